#include "EventEngine.hpp"

#include "StageTrace.hpp"

namespace bxisim::hw::cycle
{

void complete_send_once(const std::shared_ptr<Operation>& operation, int node, Outbox& outbox)
{
  if (operation->send_completed || operation->given_up)
    return;
  operation->send_completed = true;
  outbox.post({OutboxRequest::Kind::CompleteSend, node, nullptr, operation});
}

void EventEngine::process(tlm::tlm_generic_payload& payload)
{
  FrameExtension& frame  = frame_of(payload);
  Operation& operation   = *frame.operation;
  sc_core::sc_time start = sc_core::sc_time_stamp();
  wait(config_.event);
  // The event follows its payload into memory (a reply's at the initiator; a request's at the target
  // when the DMA writer was still busy with earlier payloads: DmaWriter sets in_memory_at).
  if (sc_core::sc_time_stamp() < frame.in_memory_at)
    wait(frame.in_memory_at - sc_core::sc_time_stamp());
  ++events;
  if (tracing_stages())
    trace_stage(node_, "event engine",
                std::string(frame.kind == FrameKind::Request ? "target event: " : "initiator event: ") +
                    frame_label(frame),
                start);
  if (config_.write_events)
    post_write(dma, payload, config_.event_bytes,
               kWriteEvent | (frame.kind == FrameKind::Response ? kWriteToInitiator : 0));
  if (frame.kind == FrameKind::Request) {
    if (operation.message->response != portals::ResponseKind::none)
      forward(to_response, payload);
    return;
  }
  complete_send_once(frame.operation, node_, outbox_);
  outbox_.post({OutboxRequest::Kind::CompleteResponse, node_, nullptr, frame.operation});
}

} // namespace bxisim::hw::cycle
