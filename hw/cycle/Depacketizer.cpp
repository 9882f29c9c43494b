#include "Depacketizer.hpp"

#include <algorithm>

namespace bxisim::hw::cycle
{

Depacketizer::Depacketizer(sc_core::sc_module_name name, const DepacketizerConfig& config, int node, Outbox& outbox)
    : sc_core::sc_module(name), in("in"), in_responses("in_responses"), to_e2e("to_e2e"), headers("headers"),
      responses("responses"), config_(config), node_(node), outbox_(outbox)
{
  SC_HAS_PROCESS(Depacketizer);
  SC_THREAD(run);
}

sc_core::sc_time Depacketizer::deposit(uint64_t bytes) const
{
  if (not config_.model_pcie || bytes == 0)
    return sc_core::SC_ZERO_TIME;
  return to_sc_time(config_.pcie.latency +
                    static_cast<double>(std::min(bytes, config_.pcie_packet)) / config_.pcie.bandwidth);
}

tlm::tlm_generic_payload* Depacketizer::next()
{
  for (;;) {
    if (in_responses->size() > 0)
      return in_responses->pop();
    if (in->size() > 0 && not headers->full())
      return in->pop();
    wait(in_responses->written() | in->written() | headers->read());
  }
}

void Depacketizer::run()
{
  for (;;) {
    tlm::tlm_generic_payload* payload = next();
    FrameExtension& frame             = frame_of(*payload);
    OutboxRequest back{OutboxRequest::Kind::CreditReturn, frame.from};
    back.flits   = frame.last_flits;
    back.network = frame.network();
    outbox_.post(back);
    sc_core::sc_time start = sc_core::sc_time_stamp();
    wait(config_.depacketize);
    if (tracing_stages())
      trace_stage(node_, "depacketizer", frame_label(frame) + " from nid " + std::to_string(frame.from), start);
    ++frames;
    forward(to_e2e, *payload);
    Operation& operation = *frame.operation;
    if (frame.kind == FrameKind::Request) {
      if (operation.request_arrived) {
        ++duplicates;
      } else {
        operation.request_arrived = true;
        // The payload streams to memory behind the wire: its last PCIe packet is in one packet later
        // (thesis figure 4.10); the LMEs wait for it before events and acknowledgements.
        frame.in_memory_at = frame.arrived_at + deposit(operation.message->request_bytes());
        payload->acquire();
        headers->push_back(payload);
        payload->release();
      }
    } else if (frame.kind == FrameKind::Response) {
      if (operation.response_arrived) {
        ++duplicates;
      } else {
        operation.response_arrived = true;
        frame.in_memory_at         = frame.arrived_at + deposit(operation.message->response_bytes());
        payload->acquire();
        responses->push_back(payload);
        payload->release();
      }
    }
    payload->release();
  }
}

} // namespace bxisim::hw::cycle
