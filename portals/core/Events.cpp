/* Posting full events and counting events, and waking up the processes that wait for them. */
#include "portals/core/Core.hpp"

#include <simgrid/Exception.hpp>
#include <xbt/log.h>

#include <algorithm>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_portals_events, bxisim_portals, "Portals full and counting events");

namespace bxisim::portals
{

namespace
{
bool is_communication(ptl_event_kind_t t)
{
  return t <= PTL_EVENT_FETCH_ATOMIC_OVERFLOW && (t % 2) == 0;
}
bool is_overflow(ptl_event_kind_t t)
{
  return t <= PTL_EVENT_FETCH_ATOMIC_OVERFLOW && (t % 2) == 1;
}
} // namespace

Core::NotifyBatch::~NotifyBatch()
{
  if (!outer_)
    return;
  core_.batching_notify_ = false;
  std::vector<uint32_t> pending;
  pending.swap(core_.pending_notify_);
  std::sort(pending.begin(), pending.end());
  pending.erase(std::unique(pending.begin(), pending.end()), pending.end());
  try {
    for (uint32_t process : pending)
      core_.notify(process);
  } catch (const simgrid::ForcefulKillException&) {
    // The NIC actor is being killed as the run ends (the last rank ended while the cycle NIC's bridge completed
    // a response): waking the processes is moot, and the exception may not leave a destructor (std::terminate,
    // the run crashed after every rank had ended well). The actor's next simcall throws it again and ends it.
  }
}

void Core::notify(uint32_t process)
{
  if (ProcessState* ps = this->process(process))
    ps->changes++; // counted at once, even when the model hears of it at the end of the batch
  if (batching_notify_) {
    pending_notify_.push_back(process);
    return;
  }
  if (ProcessState* ps = this->process(process))
    if (ps->ctx.nic != nullptr)
      ps->ctx.nic->notify(process);
}

void Core::post_event(ptl_handle_eq_t h, const ptl_event_t& ev)
{
  if (h == PTL_EQ_NONE)
    return;
  EventQueue* eq = eqs_.find(h);
  if (eq == nullptr)
    return; // freed while the operation was in flight
  if (!eq->post(ev))
    XBT_VERB("EQ %#x full: its oldest event was dropped for one of type %d", h, ev.type);
  notify(eq->owner());
}

void Core::post_target_event(const NetworkInterface& ni, const ListEntry& e, const ptl_event_t& ev)
{
  unsigned o = e.options;
  bool ok    = ev.ni_fail_type == PTL_NI_OK;
  bool full  = false;
  bool count = false;
  if (is_communication(ev.type)) {
    full  = !(o & PTL_ME_EVENT_COMM_DISABLE) && !(ok && (o & PTL_ME_EVENT_SUCCESS_DISABLE));
    count = (o & PTL_ME_EVENT_CT_COMM) != 0;
  } else if (is_overflow(ev.type)) {
    full  = !(o & PTL_ME_EVENT_OVER_DISABLE) && !(ok && (o & PTL_ME_EVENT_SUCCESS_DISABLE));
    count = (o & PTL_ME_EVENT_CT_OVERFLOW) != 0;
  } else if (ev.type == PTL_EVENT_LINK) {
    full = !(o & PTL_ME_EVENT_LINK_DISABLE);
  } else if (ev.type == PTL_EVENT_AUTO_UNLINK || ev.type == PTL_EVENT_AUTO_FREE) {
    full = !(o & PTL_ME_EVENT_UNLINK_DISABLE);
  } else {
    full = true; // PTL_EVENT_SEARCH
  }
  if (full && ev.pt_index < ni.pts.size())
    post_event(ni.pts[ev.pt_index].eq, ev);
  if (count && e.ct != PTL_CT_NONE) {
    if (CountingEvent* ct = cts_.find(e.ct)) {
      if (ok)
        ct->add({(o & PTL_ME_EVENT_CT_BYTES) ? ev.mlength : 1, 0});
      else
        ct->add({0, 1});
      ct_changed(e.ct);
    }
  }
}

void Core::count_initiator(MemoryDescriptor md, unsigned ct_option, ptl_size_t bytes, ptl_ni_fail_t fail,
                           bool operations_only)
{
  if (!(md.options & ct_option) || md.ct == PTL_CT_NONE)
    return;
  CountingEvent* ct = cts_.find(md.ct);
  if (ct == nullptr)
    return;
  if (fail == PTL_NI_OK)
    ct->add({(md.options & PTL_MD_EVENT_CT_BYTES) && !operations_only ? bytes : 1, 0});
  else
    ct->add({0, 1});
  ct_changed(md.ct);
}

/* Wakes the owner and fires the triggered operations whose threshold is reached. Iterative: a triggered
 * operation that changes counters (a TriggeredCTInc, or a synchronous model delivering at once) queues
 * them instead of recursing. */
void Core::ct_changed(ptl_handle_ct_t h)
{
  ct_work_.push_back(h);
  if (!draining_cts_)
    drain_ct_work();
}

void Core::drain_ct_work()
{
  draining_cts_ = true;
  while (!ct_work_.empty()) {
    ptl_handle_ct_t next = ct_work_.front();
    ct_work_.pop_front();
    CountingEvent* ct = cts_.find(next);
    if (ct == nullptr)
      continue;
    notify(ct->owner());
    while (ct != nullptr) {
      CountingEvent::Action action = ct->pop_ready();
      if (!action)
        break;
      if (NetworkInterface* ni = nis_.find(ct->ni()))
        ni->triggered_ops--;
      action();
      ct = cts_.find(next);
    }
  }
  draining_cts_ = false;
}

} // namespace bxisim::portals
