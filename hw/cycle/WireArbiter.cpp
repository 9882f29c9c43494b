#include "WireArbiter.hpp"

#include "Stage.hpp"

#include <string>

namespace bxisim::hw::cycle
{

WireArbiter::WireArbiter(sc_core::sc_module_name name, const WireArbiterConfig& config)
    : sc_core::sc_module(name), out("out"), credits("credits"), config_(config)
{
  for (unsigned network = 0; network < kVirtualNetworks; ++network) {
    queues_[network] = std::make_unique<FrameQueue>(("vn" + std::to_string(network)).c_str(), config_.vn_depth);
    vn[network].bind(*queues_[network]);
  }
  credits.bind(*this);
  SC_HAS_PROCESS(WireArbiter);
  SC_THREAD(arbiter);
}

std::pair<ptl_nid_t, ptl_pid_t> WireArbiter::process_of(const Operation& operation)
{
  return {operation.message->target.phys.nid, operation.message->target.phys.pid};
}

bool WireArbiter::may_go(tlm::tlm_generic_payload& payload) const
{
  const FrameExtension& frame = frame_of(payload);
  if (frame.kind != FrameKind::Request || frame.operation->holds_flow_credit)
    return true;
  if (config_.nic_limit > 0) {
    auto it = per_nic_.find(frame.to);
    if (it != per_nic_.end() && it->second >= config_.nic_limit)
      return false;
  }
  if (config_.process_limit > 0) {
    auto it = per_process_.find(process_of(*frame.operation));
    if (it != per_process_.end() && it->second >= config_.process_limit)
      return false;
  }
  return true;
}

void WireArbiter::return_credit(Operation& operation)
{
  if (not operation.holds_flow_credit)
    return;
  operation.holds_flow_credit = false;
  --per_nic_[operation.target_node];
  --per_process_[process_of(operation)];
  --in_flight;
  credit_back_.notify(sc_core::SC_ZERO_TIME);
  if (tracing_stages())
    trace_counter(operation.source_node, "flow-control requests in flight", in_flight);
}

PacketFairTurns<kVirtualNetworks>::Heads WireArbiter::ready_heads(bool& flow_stalled, bool& link_stalled) const
{
  flow_stalled = link_stalled = false;
  PacketFairTurns<kVirtualNetworks>::Heads heads{};
  for (unsigned network = 0; network < kVirtualNetworks; ++network) {
    if (queues_[network]->size() == 0)
      continue;
    const FrameExtension& head = frame_of(*queues_[network]->front());
    if (not may_go(*queues_[network]->front()))
      flow_stalled = true;
    else if (not link->has_credits(head.network()))
      link_stalled = true;
    else
      heads[network] = head.packets;
  }
  return heads;
}

void WireArbiter::arbiter()
{
  bool flow_control = config_.nic_limit > 0 || config_.process_limit > 0;
  for (;;) {
    bool flow_stalled, link_stalled;
    if (turns_.next(ready_heads(flow_stalled, link_stalled)) < 0) {
      sc_core::sc_event_or_list any;
      for (auto& queue : queues_)
        any |= queue->written();
      if (link_stalled) // credits coming back wake it (an idle NIC's arbiter sleeps on its queues only)
        any |= link->changed();
      if (flow_stalled) {
        ++flow_stalls;
        sc_core::sc_time since = sc_core::sc_time_stamp();
        wait(any | credit_back_);
        flow_stalled_time += sc_core::sc_time_stamp() - since;
      } else {
        link_stalls += link_stalled ? 1 : 0;
        wait(any);
      }
      continue;
    }
    sc_core::sc_time decided_from = sc_core::sc_time_stamp();
    wait(config_.arbitrate); // the decision, while the port may still send the previous frame
    while (link->busy())
      wait(link->changed());
    int chosen = turns_.grant(ready_heads(flow_stalled, link_stalled)); // credits may have gone to the previous frame
    if (chosen < 0)
      continue;
    tlm::tlm_generic_payload* frame = queues_[chosen]->pop();
    FrameExtension& extension       = frame_of(*frame);
    if (flow_control && extension.kind == FrameKind::Request && not extension.operation->holds_flow_credit) {
      extension.operation->holds_flow_credit = true;
      ++per_nic_[extension.to];
      ++per_process_[process_of(*extension.operation)];
      ++in_flight;
      if (tracing_stages())
        trace_counter(extension.from, "flow-control requests in flight", in_flight);
    }
    if (tracing_stages())
      trace_stage(extension.from, "wire arbiter", frame_label(extension) + " (vn" + std::to_string(chosen) + ")",
                  decided_from);
    forward(out, *frame); // the port is free: it takes the frame at once
    ++frames;
    frame->release();
  }
}

} // namespace bxisim::hw::cycle
