#include "PcieEndpoint.hpp"

namespace bxisim::hw::cycle
{

PcieEndpoint::PcieEndpoint(sc_core::sc_module_name name, const PcieEndpointConfig& config, int node, Outbox& outbox)
    : sc_core::sc_module(name), commands("commands"), dma("dma"), config_(config), node_(node), outbox_(outbox)
{
  dma.register_b_transport(this, &PcieEndpoint::transport);
  SC_HAS_PROCESS(PcieEndpoint);
  SC_THREAD(mmio_thread);
}

void PcieEndpoint::command_arrived(tlm::tlm_generic_payload* command)
{
  arrived_.push_back(command); // the caller's reference comes with it
  command_event_.notify(sc_core::SC_ZERO_TIME);
}

void PcieEndpoint::read_finished(tlm::tlm_generic_payload& frame)
{
  frame_of(frame).read_pending = false;
  read_event_.notify(sc_core::SC_ZERO_TIME);
}

void PcieEndpoint::mmio_thread()
{
  for (;;) {
    while (arrived_.empty())
      wait(command_event_);
    tlm::tlm_generic_payload* command = arrived_.front();
    arrived_.pop_front();
    wait(config_.mmio);
    forward(commands, *command);
    command->release();
  }
}

void PcieEndpoint::transport(int, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay)
{
  if (delay > sc_core::SC_ZERO_TIME)
    wait(delay);
  delay                 = sc_core::SC_ZERO_TIME;
  FrameExtension& frame = frame_of(payload);
  switch (payload.get_command()) {
  case tlm::TLM_READ_COMMAND: {
    uint64_t bytes = frame.payload;
    if (not config_.model_pcie || bytes == 0)
      break;
    ++reads;
    read_bytes += bytes;
    frame.read_pending = true;
    OutboxRequest read{OutboxRequest::Kind::DmaRead, node_, &payload, frame.operation};
    read.initiator_memory = frame.kind == FrameKind::Request;
    read.bytes            = bytes;
    read.trace_name       = "PCI_DMA_READ";
    outbox_.post(read);
    if (bytes > config_.packet)
      wait(config_.first_packet(bytes)); // pipelined: the wire may start once the first packet is in
    else
      while (frame.read_pending)
        wait(read_event_);
    break;
  }
  case tlm::TLM_IGNORE_COMMAND:
    while (frame.read_pending)
      wait(read_event_);
    break;
  case tlm::TLM_WRITE_COMMAND: {
    if (not config_.model_pcie || payload.get_data_length() == 0)
      break;
    ++writes;
    written_bytes += payload.get_data_length();
    OutboxRequest write{OutboxRequest::Kind::DmaWrite, node_, nullptr, frame.operation};
    write.initiator_memory = (payload.get_address() & kWriteToInitiator) != 0;
    write.bytes            = payload.get_data_length();
    write.trace_name       = (payload.get_address() & kWriteEvent) != 0 ? "PCI_EVENT" : "PCI_DMA_WRITE";
    outbox_.post(write);
    break;
  }
  }
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

} // namespace bxisim::hw::cycle
