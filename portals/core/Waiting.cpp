/* Blocking calls: PtlEQWait, PtlEQPoll, PtlCTWait, PtlCTPoll. They sleep through NicModel::wait, so the
 * runtime puts the rank to sleep in simulated time and reports a deadlock instead of spinning. */
#include "portals/core/Core.hpp"

#include <xbt/log.h>

#include <limits>
#include <optional>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_portals_wait, bxisim_portals, "Portals blocking calls");

namespace bxisim::portals
{

namespace
{
constexpr double kForever = std::numeric_limits<double>::infinity();

// Empty polls of one source, nothing changing, before a poll may block: OpenMPI's opal_progress runs its
// low-priority callbacks once every 8 calls (one poll of a source per call), so 9 see one of them run.
constexpr unsigned kQuietPolls = 9;
constexpr uint64_t kEqSet      = 1ULL << 62; // source keys: a handle alone is a PtlEQGet's EQ
constexpr uint64_t kCtSet      = 2ULL << 62;

/** The key of a polled set of handles (FNV-1a), apart from single EQs. */
uint64_t source_key(const uint32_t* handles, unsigned size, uint64_t kind)
{
  uint64_t hash = 14695981039346656037ULL;
  for (unsigned i = 0; i < size; ++i)
    hash = (hash ^ handles[i]) * 1099511628211ULL;
  return kind | (hash >> 2);
}

/** Counts a process in a wait that ends at a set time, while it lasts (Core::activity_under_way). */
class TimedWait
{
 public:
  explicit TimedWait(unsigned& count) : count_(count) { ++count_; }
  ~TimedWait() { --count_; }
  TimedWait(const TimedWait&)            = delete;
  TimedWait& operator=(const TimedWait&) = delete;

 private:
  unsigned& count_;
};

double deadline_of(const NicModel* nic, ptl_time_t timeout_ms)
{
  if (timeout_ms == PTL_TIME_FOREVER || nic == nullptr)
    return kForever;
  return nic->now() + timeout_ms / 1000.0;
}
} // namespace

WaitStatus Core::wait_for(ProcessState& ps, double deadline)
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
  std::optional<TimedWait> timed;
  if (deadline != kForever)
    timed.emplace(timed_waits_);
  WaitStatus st = nic->wait(ps.ctx, timeout);
  if (st == WaitStatus::deadlock)
    XBT_ERROR("process %u (node %u, pid %u) waits for a Portals event that can never come: deadlock", ps.ctx.id,
              ps.ctx.nid, ps.pid);
  return st;
}

void Core::took_event(ProcessState& ps, const ptl_event_t& ev)
{
  // The process acts on the event: its polling loop may have more to do before it can block. Not on the
  // result of a search that found nothing (a probe loop polls so, see search).
  if (!(ev.type == PTL_EVENT_SEARCH && ev.ni_fail_type == PTL_NI_NO_MATCH))
    ps.changes++;
}

bool Core::holds_events(const ProcessState& ps)
{
  for (const auto& entry : ps.nis)
    if (const NetworkInterface* ni = nis_.find(entry.second))
      for (ptl_handle_eq_t h : ni->eqs)
        if (const EventQueue* eq = eqs_.find(h); eq != nullptr && !eq->empty())
          return true;
  return false;
}

void Core::poll_found_nothing(ProcessState& ps, uint64_t source, bool blockable)
{
  NicModel* nic = ps.ctx.nic;
  if (nic == nullptr)
    return;
  if (!blockable || !poll_blocking_ || !poll_blocking_(ps.ctx.id)) {
    TimedWait timed(timed_waits_);
    nic->polled(ps.ctx, PollAction::sleep);
    return;
  }
  // Blocking until the next change is exact only when the process has seen every change already and
  // acted on it. A polling loop goes round its sources (OpenMPI's progress callbacks): once this same
  // source has been found empty kQuietPolls times in a row with nothing changed (no event arrived,
  // none was taken, no operation started), the loop has been round every other callback since the
  // last change, those OpenMPI runs only every 8th round included (libnbc's progress, libevent), and
  // nothing came of it. Until then the poll returns at once, in no simulated time, to look again.
  ProcessState::Quiet& quiet = ps.empty_since[source];
  if (quiet.polls == 0 || quiet.since != ps.changes) {
    quiet.since = ps.changes;
    quiet.polls = 1;
    return;
  }
  if (++quiet.polls < kQuietPolls)
    return;
  // An event waiting in an EQ that this loop does not poll every round (or never): sleep, not block.
  bool pending = holds_events(ps);
  XBT_DEBUG("process %u: nothing in source %#llx since change %llu: %s", ps.ctx.id,
            static_cast<unsigned long long>(source), static_cast<unsigned long long>(ps.changes),
            pending ? "an event waits elsewhere, sleep" : "block until the next change");
  std::optional<TimedWait> timed;
  if (pending)
    timed.emplace(timed_waits_);
  nic->polled(ps.ctx, pending ? PollAction::sleep : PollAction::block);
}

int Core::eq_wait(ptl_handle_eq_t h, ptl_event_t* ev)
{
  unsigned which;
  return eq_poll(&h, 1, PTL_TIME_FOREVER, ev, &which);
}

int Core::eq_poll(const ptl_handle_eq_t* eqs, unsigned size, ptl_time_t timeout, ptl_event_t* ev, unsigned* which)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  if (eqs == nullptr || size == 0 || ev == nullptr || which == nullptr)
    return PTL_ARG_INVALID;
  if (ps.aborted)
    return PTL_ABORTED;
  for (unsigned i = 0; i < size; ++i)
    if (owned(eqs_, eqs[i], ps) == nullptr)
      return PTL_ARG_INVALID;
  double deadline = deadline_of(ps.ctx.nic, timeout);
  for (;;) {
    for (unsigned i = 0; i < size; ++i) {
      EventQueue* eq = owned(eqs_, eqs[i], ps);
      if (eq == nullptr)
        return PTL_INTERRUPTED; // freed (PtlNIFini) while waiting
      int rc = eq->get(ev);
      if (rc != PTL_EQ_EMPTY) {
        *which = i;
        took_event(ps, *ev);
        return rc;
      }
    }
    if (timeout == 0) {
      poll_found_nothing(ps, source_key(eqs, size, kEqSet), true); // as an empty PtlEQGet
      return PTL_EQ_EMPTY;
    }
    WaitStatus st = wait_for(ps, deadline);
    if (ps.aborted)
      return PTL_ABORTED;
    if (st == WaitStatus::timeout)
      return PTL_EQ_EMPTY;
    if (st == WaitStatus::deadlock)
      return PTL_INTERRUPTED;
  }
}

int Core::ct_wait(ptl_handle_ct_t h, ptl_size_t test, ptl_ct_event_t* ev)
{
  unsigned which;
  int rc = ct_poll(&h, &test, 1, PTL_TIME_FOREVER, ev, &which);
  return rc;
}

int Core::ct_poll(const ptl_handle_ct_t* cts, const ptl_size_t* tests, unsigned size, ptl_time_t timeout,
                  ptl_ct_event_t* ev, unsigned* which)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  if (cts == nullptr || tests == nullptr || size == 0 || ev == nullptr || which == nullptr)
    return PTL_ARG_INVALID;
  if (ps.aborted)
    return PTL_ABORTED;
  for (unsigned i = 0; i < size; ++i)
    if (owned(cts_, cts[i], ps) == nullptr)
      return PTL_ARG_INVALID;
  double deadline = deadline_of(ps.ctx.nic, timeout);
  for (;;) {
    for (unsigned i = 0; i < size; ++i) {
      CountingEvent* ct = owned(cts_, cts[i], ps);
      if (ct == nullptr)
        return PTL_INTERRUPTED;
      if (ct->reached(tests[i])) {
        *ev    = ct->value();
        *which = i;
        ps.changes++;
        return PTL_OK;
      }
    }
    if (timeout == 0) {
      poll_found_nothing(ps, source_key(cts, size, kCtSet), true);
      return PTL_CT_NONE_REACHED;
    }
    WaitStatus st = wait_for(ps, deadline);
    if (ps.aborted)
      return PTL_ABORTED;
    if (st == WaitStatus::timeout)
      return PTL_CT_NONE_REACHED;
    if (st == WaitStatus::deadlock)
      return PTL_INTERRUPTED;
  }
}

} // namespace bxisim::portals
