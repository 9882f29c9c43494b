/* Blocking calls: PtlEQWait, PtlEQPoll, PtlCTWait, PtlCTPoll. They sleep through NicModel::wait, so the
 * runtime puts the rank to sleep in simulated time and reports a deadlock instead of spinning. */
#include "portals/core/Core.hpp"

#include <xbt/log.h>

#include <limits>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(portals_wait, portals, "Portals blocking calls");

namespace bxisim::portals
{

namespace
{
constexpr double kForever = std::numeric_limits<double>::infinity();

double deadlineOf(const NicModel* nic, ptl_time_t timeoutMs)
{
  if (timeoutMs == PTL_TIME_FOREVER || nic == nullptr)
    return kForever;
  return nic->now() + timeoutMs / 1000.0;
}
} // namespace

WaitStatus Core::waitFor(ProcessState& ps, double deadline)
{
  NicModel* nic = ps.ctx.nic;
  if (nic == nullptr) {
    XBT_ERROR("process %u blocks in a Portals wait but has no NIC model to wait on: nothing can ever wake it up",
              ps.ctx.id);
    return WaitStatus::deadlock;
  }
  double timeout = deadline == kForever ? kForever : deadline - nic->now();
  if (timeout <= 0)
    return WaitStatus::timeout;
  WaitStatus st = nic->wait(ps.ctx, timeout);
  if (st == WaitStatus::deadlock)
    XBT_ERROR("process %u (node %u, pid %u) waits for a Portals event that can never come: deadlock", ps.ctx.id,
              ps.ctx.nid, ps.pid);
  return st;
}

int Core::eqWait(ptl_handle_eq_t h, ptl_event_t* ev)
{
  unsigned which;
  return eqPoll(&h, 1, PTL_TIME_FOREVER, ev, &which);
}

int Core::eqPoll(const ptl_handle_eq_t* eqs, unsigned size, ptl_time_t timeout, ptl_event_t* ev, unsigned* which)
{
  ProcessState& ps = current();
  if (ps.initCount == 0)
    return PTL_NO_INIT;
  if (eqs == nullptr || size == 0 || ev == nullptr || which == nullptr)
    return PTL_ARG_INVALID;
  if (ps.aborted)
    return PTL_ABORTED;
  for (unsigned i = 0; i < size; ++i)
    if (owned(eqs_, eqs[i], ps) == nullptr)
      return PTL_ARG_INVALID;
  double deadline = deadlineOf(ps.ctx.nic, timeout);
  for (;;) {
    for (unsigned i = 0; i < size; ++i) {
      EventQueue* eq = owned(eqs_, eqs[i], ps);
      if (eq == nullptr)
        return PTL_INTERRUPTED; // freed (PtlNIFini) while waiting
      int rc = eq->get(ev);
      if (rc != PTL_EQ_EMPTY) {
        *which = i;
        return rc;
      }
    }
    if (timeout == 0) {
      // a poll that found nothing, as an empty PtlEQGet: the model lets simulated time advance
      if (ps.ctx.nic != nullptr)
        ps.ctx.nic->polled(ps.ctx);
      return PTL_EQ_EMPTY;
    }
    WaitStatus st = waitFor(ps, deadline);
    if (ps.aborted)
      return PTL_ABORTED;
    if (st == WaitStatus::timeout)
      return PTL_EQ_EMPTY;
    if (st == WaitStatus::deadlock)
      return PTL_INTERRUPTED;
  }
}

int Core::ctWait(ptl_handle_ct_t h, ptl_size_t test, ptl_ct_event_t* ev)
{
  unsigned which;
  int rc = ctPoll(&h, &test, 1, PTL_TIME_FOREVER, ev, &which);
  return rc;
}

int Core::ctPoll(const ptl_handle_ct_t* cts, const ptl_size_t* tests, unsigned size, ptl_time_t timeout,
                 ptl_ct_event_t* ev, unsigned* which)
{
  ProcessState& ps = current();
  if (ps.initCount == 0)
    return PTL_NO_INIT;
  if (cts == nullptr || tests == nullptr || size == 0 || ev == nullptr || which == nullptr)
    return PTL_ARG_INVALID;
  if (ps.aborted)
    return PTL_ABORTED;
  for (unsigned i = 0; i < size; ++i)
    if (owned(cts_, cts[i], ps) == nullptr)
      return PTL_ARG_INVALID;
  double deadline = deadlineOf(ps.ctx.nic, timeout);
  for (;;) {
    for (unsigned i = 0; i < size; ++i) {
      CountingEvent* ct = owned(cts_, cts[i], ps);
      if (ct == nullptr)
        return PTL_INTERRUPTED;
      if (ct->reached(tests[i])) {
        *ev    = ct->value();
        *which = i;
        return PTL_OK;
      }
    }
    if (timeout == 0) {
      if (ps.ctx.nic != nullptr)
        ps.ctx.nic->polled(ps.ctx);
      return PTL_CT_NONE_REACHED;
    }
    WaitStatus st = waitFor(ps, deadline);
    if (ps.aborted)
      return PTL_ABORTED;
    if (st == WaitStatus::timeout)
      return PTL_CT_NONE_REACHED;
    if (st == WaitStatus::deadlock)
      return PTL_INTERRUPTED;
  }
}

} // namespace bxisim::portals
