#include "ResponseGenerator.hpp"

#include "EventEngine.hpp"
#include "StageTrace.hpp"

namespace bxisim::hw::cycle
{

void ResponseGenerator::process(tlm::tlm_generic_payload& request)
{
  FrameExtension& frame  = frame_of(request);
  Operation& operation   = *frame.operation;
  sc_core::sc_time start = sc_core::sc_time_stamp();
  wait(config_.generate);
  ++responses;
  if (tracing_stages())
    trace_stage(node_, "response generator",
                std::string(operation.message->kind == portals::OpKind::get ? "REPLY" : "ACK") + " for nid " +
                    std::to_string(frame.from),
                start);
  if (config_.quick_acks && operation.message->response == portals::ResponseKind::ack) {
    operation.request_acknowledged = operation.response_acknowledged = true;
    outbox_.post({OutboxRequest::Kind::FlowCreditReturn, operation.source_node, nullptr, frame.operation});
    complete_send_once(frame.operation, node_, outbox_);
    outbox_.post({OutboxRequest::Kind::CompleteResponse, node_, nullptr, frame.operation});
    slots->release();
    return;
  }
  tlm::tlm_generic_payload* response = pool_.allocate(FrameKind::Response, frame.operation, node_, frame.from);
  frame_of(*response).payload        = operation.message->response_bytes();
  forward(out, *response);
  response->release();
  slots->release();
}

} // namespace bxisim::hw::cycle
