#pragma once
// DMA writer: writes arrived payloads (a request's accepted bytes at the target, a reply's at the
// initiator) to host memory, in order, each write holding the write engine for its serialization on
// the PCIe; the transfer itself is a SimGrid communication posted by the PCIe endpoint. The frame
// goes on to the event engine as soon as its write is posted: events wait for the payload's last
// PCIe packet (FrameExtension::in_memory_at), not for the engine. Frames without payload (ACKs) do
// not wait for the engine either.

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
