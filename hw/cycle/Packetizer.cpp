#include "Packetizer.hpp"

#include "StageTrace.hpp"

namespace bxisim::hw::cycle
{

void Packetizer::process(tlm::tlm_generic_payload& payload)
{
  FrameExtension& frame  = frame_of(payload);
  sc_core::sc_time start = sc_core::sc_time_stamp();
  frame.packets          = config_.packets(frame.payload);
  const Operation& op    = *frame.operation;
  bool read              = frame.payload > 0 &&
              ((frame.kind == FrameKind::Request && op.path == PayloadPath::Dma) || frame.kind == FrameKind::Response);
  wait(config_.head);
  if (read) {
    payload.set_command(tlm::TLM_READ_COMMAND);
    forward(dma, payload); // back once the first PCIe packet is in
    payload.set_command(tlm::TLM_WRITE_COMMAND);
  }
  out->push_back(&payload);
  ++frames;
  packets += frame.packets;
  sc_core::sc_time busy_until = start + config_.per_packet * static_cast<double>(frame.packets);
  if (sc_core::sc_time_stamp() < busy_until)
    wait(busy_until - sc_core::sc_time_stamp());
  if (tracing_stages())
    trace_stage(frame.from, frame.kind == FrameKind::Request ? "packetizer (requests)" : "packetizer (responses)",
                frame_label(frame) + " (" + std::to_string(frame.packets) + " packets)", start);
}

} // namespace bxisim::hw::cycle
