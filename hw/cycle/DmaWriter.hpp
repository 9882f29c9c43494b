#pragma once
// DMA writer: writes arrived payloads (a request's accepted bytes at the target, a reply's at the
// initiator) to host memory through one write engine working at the PCIe's rate; the transfer itself
// is a SimGrid communication posted by the PCIe endpoint. A payload streams to memory while its frame
// arrives (thesis figure 4.10): when the engine keeps up, it is in memory one PCIe packet and the PCIe
// latency after the frame's last wire packet (FrameExtension::in_memory_at, set by the depacketizer).
// The engine writes packets in their order of arrival, so payloads arriving together from several
// NICs stream together; a payload waits only when the engine's work (each payload counted from its
// first packet, over the last 64) needs longer than the payloads took to arrive. The writer
// updates in_memory_at, which the frame's event waits for (EventEngine). Frames without payload
// (ACKs, Get requests) do not wait for the engine.

#include "Channels.hpp"
#include "CycleNicConfig.hpp"
#include "PcieEndpoint.hpp"

#include <tlm_utils/simple_initiator_socket.h>

#include <deque>
#include <utility>

namespace bxisim::hw::cycle
{

class DmaWriter : public sc_core::sc_module
{
 public:
  sc_core::sc_port<FrameQueueIf> in;
  tlm_utils::simple_initiator_socket<DmaWriter> dma; // to the PCIe endpoint
  tlm_utils::simple_initiator_socket<DmaWriter> out; // to the event engine

  DmaWriter(sc_core::sc_module_name name, const DmaWriterConfig& config);

  uint64_t writes = 0, bytes = 0;

 private:
  void run();
  DmaWriterConfig config_;
  sc_core::sc_time engine_done_with(sc_core::sc_time first_packet, sc_core::sc_time occupy);
  // (first packet, serialization on the PCIe) of the last payloads, by first packet
  static constexpr size_t kWorkRemembered = 64;
  std::deque<std::pair<sc_core::sc_time, sc_core::sc_time>> work_;
};

} // namespace bxisim::hw::cycle
