#include "E2eEngine.hpp"

#include "EventEngine.hpp"
#include "Stage.hpp"
#include "StageTrace.hpp"

#include <xbt/log.h>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_nic_cycle);
XBT_LOG_DEFAULT_CATEGORY(bxisim_nic_cycle);

namespace bxisim::hw::cycle
{

E2eEngine::E2eEngine(sc_core::sc_module_name name, const E2eEngineConfig& config, uint64_t early_send_max, int node,
                     Outbox& outbox, FramePool& pool)
    : sc_core::sc_module(name), sent("sent"), arrived("arrived"), resend_request("resend_request"),
      resend_response("resend_response"), acks("acks"), flow("flow"), config_(config), early_send_max_(early_send_max),
      node_(node), outbox_(outbox), pool_(pool)
{
  sent.register_b_transport(this, &E2eEngine::on_sent);
  arrived.register_b_transport(this, &E2eEngine::on_arrived);
  SC_HAS_PROCESS(E2eEngine);
  SC_THREAD(timer);
}

bool E2eEngine::acknowledged(const FrameExtension& frame)
{
  const Operation& operation = *frame.operation;
  return operation.given_up ||
         (frame.kind == FrameKind::Request ? operation.request_acknowledged : operation.response_acknowledged);
}

void E2eEngine::on_sent(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay)
{
  delay                 = sc_core::SC_ZERO_TIME;
  FrameExtension& frame = frame_of(payload);
  Operation& operation  = *frame.operation;
  if (frame.kind == FrameKind::Request) {
    ++operation.request_sends;
    // Small payloads stay in the E2E context: their buffer is free once sent. Larger ones at
    // acknowledgement, unless nothing can ever read them again (E2E off).
    if (operation.message->request_bytes() <= early_send_max_ || not config_.enabled)
      complete_send_once(frame.operation, node_, outbox_);
  } else if (frame.kind == FrameKind::Response) {
    ++operation.response_sends;
  }
  if (config_.enabled && frame.reliable()) {
    payload.acquire();
    table_.emplace_back(sc_core::sc_time_stamp() + config_.timeout, &payload);
    ++pending;
    registered_.notify(sc_core::SC_ZERO_TIME);
    if (tracing_stages())
      trace_counter(node_, "E2E frames awaiting an ACK", pending);
  }
}

void E2eEngine::acknowledge(const FrameExtension& frame, FrameKind kind)
{
  sc_core::sc_time start = sc_core::sc_time_stamp();
  wait(config_.process);
  if (tracing_stages())
    trace_stage(node_, "E2E engine", "BXI_ACK of " + frame_label(frame) + " to nid " + std::to_string(frame.from),
                start);
  ++(kind == FrameKind::RequestAck ? frame.operation->request_ack_sends : frame.operation->response_ack_sends);
  tlm::tlm_generic_payload* ack = pool_.allocate(kind, frame.operation, node_, frame.from);
  acks->push_front(ack);
  ack->release();
  ++bxi_acks_sent;
}

void E2eEngine::on_arrived(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay)
{
  delay                 = sc_core::SC_ZERO_TIME;
  FrameExtension& frame = frame_of(payload);
  Operation& operation  = *frame.operation;
  switch (frame.kind) {
  case FrameKind::Request:
    // E2E acknowledges what the network delivered, before any processing (duplicates too: their
    // first BXI ACK was lost).
    if (config_.enabled)
      acknowledge(frame, FrameKind::RequestAck);
    break;
  case FrameKind::Response:
    if (config_.enabled)
      acknowledge(frame, FrameKind::ResponseAck);
    operation.request_acknowledged = true;
    flow->return_credit(operation);
    acknowledged_.notify(sc_core::SC_ZERO_TIME);
    break;
  case FrameKind::RequestAck: {
    sc_core::sc_time start = sc_core::sc_time_stamp();
    wait(config_.process);
    if (tracing_stages())
      trace_stage(node_, "E2E engine", "BXI_ACK from nid " + std::to_string(frame.from) + " (request acknowledged)",
                  start);
    operation.request_acknowledged = true;
    complete_send_once(frame.operation, node_, outbox_);
    flow->return_credit(operation);
    acknowledged_.notify(sc_core::SC_ZERO_TIME);
    break;
  }
  case FrameKind::ResponseAck: {
    sc_core::sc_time start = sc_core::sc_time_stamp();
    wait(config_.process);
    if (tracing_stages())
      trace_stage(node_, "E2E engine", "BXI_ACK from nid " + std::to_string(frame.from) + " (response acknowledged)",
                  start);
    operation.response_acknowledged = true;
    acknowledged_.notify(sc_core::SC_ZERO_TIME);
    break;
  }
  }
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void E2eEngine::give_up(FrameExtension& frame)
{
  Operation& operation = *frame.operation;
  ++given_up;
  if (frame.kind == FrameKind::Request && not operation.request_delivered) {
    // The initiator learns it from its own NIC: SEND, then ACK or REPLY with PTL_NI_UNDELIVERABLE.
    OutboxRequest drop{OutboxRequest::Kind::DropRequest, node_, nullptr, frame.operation};
    drop.last                = not operation.send_completed; // the SEND is still due
    operation.send_completed = true;
    operation.given_up       = true;
    outbox_.post(drop);
    flow->return_credit(operation);
  } else {
    operation.given_up = true;
    XBT_WARN("%s #%lu was not acknowledged after %d sends: E2E gives up on it (its initiator may not see the "
             "operation end; a longer nic.e2e_timeout avoids this under heavy load)",
             frame_kind_name(frame.kind), static_cast<unsigned long>(operation.message->id), config_.retries + 1);
  }
}

void E2eEngine::timer()
{
  for (;;) {
    while (table_.empty())
      wait(registered_);
    auto [deadline, payload] = table_.front();
    FrameExtension& frame    = frame_of(*payload);
    if (not acknowledged(frame) && sc_core::sc_time_stamp() < deadline) {
      wait(deadline - sc_core::sc_time_stamp(), acknowledged_);
      continue;
    }
    table_.pop_front();
    --pending;
    if (tracing_stages())
      trace_counter(node_, "E2E frames awaiting an ACK", pending);
    if (not acknowledged(frame)) {
      const Operation& operation = *frame.operation;
      bool request               = frame.kind == FrameKind::Request;
      if ((request ? operation.request_ack_landings : operation.response_ack_landings) <
          (request ? operation.request_ack_sends : operation.response_ack_sends)) {
        // Its BXI ACK is on its way back, behind a large frame of the other NIC's link (the link port sends one
        // message's packets at a time): congestion, not loss. The timer starts again; the payload stays held.
        table_.emplace_back(sc_core::sc_time_stamp() + config_.timeout, payload);
        ++pending;
        continue;
      }
      int sends = request ? operation.request_sends : operation.response_sends;
      if (sends > config_.retries) {
        give_up(frame);
      } else {
        ++retransmissions;
        if (tracing_stages())
          trace_stage(node_, "E2E engine", "timeout: resend " + frame_label(frame), sc_core::sc_time_stamp());
        XBT_VERB("E2E timeout: %s #%lu sent again (attempt %d)", frame_kind_name(frame.kind),
                 static_cast<unsigned long>(frame.operation->message->id), sends + 1);
        forward(frame.kind == FrameKind::Request ? resend_request : resend_response, *payload);
      }
    }
    payload->release();
  }
}

} // namespace bxisim::hw::cycle
