#include "ListMatchingEngine.hpp"

#include "StageTrace.hpp"

namespace bxisim::hw::cycle
{

ListMatchingEngine::ListMatchingEngine(sc_core::sc_module_name name, const ListMatchingEngineConfig& config, int node,
                                       Outbox& outbox, CommitOrder& order)
    : sc_core::sc_module(name), headers("headers"), out("out"), slots("slots"), config_(config), node_(node),
      outbox_(outbox), order_(order)
{
  std::string base = basename(); // lmeN
  lane_ =
      "LME " + base.substr(base.find_first_of("0123456789") == std::string::npos ? base.size()
                                                                                 : base.find_first_of("0123456789"));
  SC_HAS_PROCESS(ListMatchingEngine);
  SC_THREAD(run);
}

void ListMatchingEngine::run()
{
  for (;;) {
    tlm::tlm_generic_payload* payload = headers->pop();
    uint64_t ticket                   = order_.take_ticket();
    FrameExtension& frame             = frame_of(*payload);
    busy                              = 1;
    sc_core::sc_time start            = sc_core::sc_time_stamp();
    wait(config_.match);
    order_.wait_turn(ticket);
    if (sc_core::sc_time_stamp() < frame.in_memory_at)
      wait(frame.in_memory_at - sc_core::sc_time_stamp());
    slots->acquire();
    outbox_.post({OutboxRequest::Kind::Deliver, node_, payload, frame.operation});
    while (not frame.delivered_by_core)
      wait(order_.delivered);
    if (frame.operation->message->response == portals::ResponseKind::none)
      slots->release(); // no response: the event engine will not pass it on
    ++matched;
    busy = 0;
    out->push_back(payload); // before the commit: the DMA writer sees headers in order
    payload->release();
    order_.commit();
    if (tracing_stages())
      trace_stage(node_, lane_.c_str(), frame_label(frame) + " from nid " + std::to_string(frame.from), start);
  }
}

} // namespace bxisim::hw::cycle
