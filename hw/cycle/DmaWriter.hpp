#pragma once
// DMA writer: writes arrived payloads (a request's accepted bytes at the target, a reply's at the
// initiator) to host memory through one write engine working at the PCIe's rate: payloads stream
// in behind the wire and wait only when the engine is behind (FrameExtension::written_by, counted by
// the link port as chunks arrive, hw/actors/WriteEngineWork); the transfer itself is a SimGrid communication posted by
// the PCIe endpoint. The writer updates in_memory_at, which the frame's event waits for (EventEngine). Frames without
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
};

} // namespace bxisim::hw::cycle
