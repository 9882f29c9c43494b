#pragma once
// DMA writer: writes arrived payloads (a request's accepted bytes at the target, a reply's at the
// initiator) to host memory, in order, each write holding the write engine for its serialization on
// the PCIe; the transfer itself is a SimGrid communication posted by the PCIe endpoint. A payload
// streams to memory while its frame arrives (thesis figure 4.10): when the engine is free, it is in
// memory one PCIe packet and the PCIe latency after the frame's last wire packet
// (FrameExtension::in_memory_at, set by the depacketizer), and the engine is free again one packet
// after that arrival, not one whole serialization later. Only a payload that arrives while earlier
// ones still hold the engine waits for them; it is then in memory one serialization after them. The
// writer updates in_memory_at, which the frame's event waits for (EventEngine). Frames without
// payload (ACKs, Get requests) do not wait for the engine.

#include "Channels.hpp"
#include "CycleNicConfig.hpp"
#include "PcieEndpoint.hpp"

#include <tlm_utils/simple_initiator_socket.h>

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
  sc_core::sc_time engine_free_at_;
};

} // namespace bxisim::hw::cycle
