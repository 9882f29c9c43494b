#include "Preemption.hpp"

#include "RankEnd.hpp"
#include "RankTimedWork.hpp"
#include "SimulatorCall.hpp"

#include "portals/core/Core.hpp"
#include "runtime/launch/Rank.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <ucontext.h>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_runtime);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_preemption, bxisim_runtime, "Pausing ranks that busy-wait in their own code");

namespace bxisim::os
{

namespace
{
std::atomic<unsigned long> expected_transitions{0};
// Whether no rank had called the simulator for --preempt-after as the supervisor sent the signal: the running rank
// may wait, whatever its registers say.
std::atomic<bool> expected_after_long_quiet{false};
constexpr unsigned long kNoPause = ~0UL;
// simulator_transitions() when a preemption signal found the rank outside its own code: the pause is owed
// until the rank calls the simulator (pause_if_preempted_in_call).
std::atomic<unsigned long> owed_at{kNoPause};
std::atomic<bool> owed_after_long_quiet{false};
std::atomic<bool> signal_pending{false}; // sent by the supervisor, not handled yet

void warn_first_step(const runtime::Rank& rank)
{
  XBT_WARN(
      "rank %d has run its own code for a long time while no rank called the simulator (its last call was at "
      "simulated time %.9f s): if it waits for memory that a NIC or another rank writes (a flag, a counter), "
      "nothing else could run. bxisim now pauses it whenever it has run its own code for %lld us of wall time, "
      "so that the others go on, and a pause that finds it waiting (its registers unmoved since two pauses, or no "
      "rank calling the simulator for --preempt-after) while something under way could end such a wait (a Portals "
      "operation on the wire, a rank asleep or computing) advances its simulated time by %g s (its computation "
      "is not simulated). Simulated times now depend on the host's speed; a Portals or MPI call (or sched_yield) in "
      "the loop avoids this. If it computes rather than waits (it would end by itself), --preempt-after 0 (or a "
      "larger value) keeps simulated times exact; the summary counts the pauses (busy-wait steps).",
      rank.index(), rank.last_call_time(), static_cast<long long>(kBusyWaitQuantum.count()), kBusyWaitStep);
}

/** Whether something under way ends at a later date and may then write memory a rank waits on: a Portals operation
 * (a NIC's write, an acknowledgement), a process in a timed Portals wait, a rank asleep or computing. */
bool something_could_end_its_wait()
{
  return portals::Core::instance().activity_under_way() || ranks_in_timed_work() > 0;
}

/** What the pauses of this stretch of the rank's code (`interrupted`: its registers, when the signal found it there)
 * found it doing. Without registers, nothing. */
ProgressProbe::Finding look_at(runtime::Rank& rank, unsigned long stretch, const mcontext_t* interrupted)
{
  return interrupted != nullptr ? rank.progress_probe().look(stretch, *interrupted) : ProgressProbe::Finding::FirstLook;
}

/** The running rank, interrupted in its own code: it calls the simulator as if it had asked to. It may be waiting for
 * memory if its registers have not moved since two earlier pauses of this stretch, or if no rank has called the
 * simulator for --preempt-after (`after_long_quiet`). */
void pause(runtime::Rank& rank, const mcontext_t* interrupted, bool after_long_quiet)
{
  double last_call      = rank.last_call_time(); // the summary and the watchdog speak of real calls
  unsigned long stretch = rank.simulator_calls();
  auto finding          = look_at(rank, stretch, interrupted);
  bool may_wait         = after_long_quiet || finding == ProgressProbe::Finding::Stuck;
  rank.count_preemption();
  rank.set_preempted(true);
  try {
    SimulatorCall call;
    if (not call.burst_simulated()) {
      if (not something_could_end_its_wait()) {
        // Nothing under way can write its memory: only a rank ready to run now could, and it runs now. No time
        // passes, so a rank that computes (rather than waits) keeps exact, repeatable times.
        XBT_DEBUG("rank %d paused in its own code: nothing under way could end a wait, no simulated time passes",
                  rank.index());
        simgrid::s4u::this_actor::yield();
      } else if (not may_wait) {
        // It computes, or may: the others ready now run, and no time passes. A wait that looks like this is stepped
        // once no rank has called the simulator for --preempt-after.
        XBT_DEBUG("rank %d paused in its own code: %s, no simulated time passes", rank.index(),
                  finding == ProgressProbe::Finding::Moving ? "its registers moved since the last pause (it computes)"
                                                            : "the first pause of this stretch");
        simgrid::s4u::this_actor::yield();
      } else {
        XBT_DEBUG("rank %d paused in its own code: %s, its simulated time advances by a step", rank.index(),
                  finding == ProgressProbe::Finding::Stuck
                      ? "its registers have not moved since two earlier pauses of this stretch (it waits)"
                      : "no rank has called the simulator for --preempt-after (it may wait)");
        if (not rank.stepped()) {
          rank.mark_stepped();
          warn_first_step(rank);
        }
        rank.count_busy_wait_step();
        // Counted as timed work: another rank (or thread of this one) paused meanwhile with nothing else under way
        // must let time pass too, or its yields would keep the clock from ever reaching this step's end.
        sleep_rank(kBusyWaitStep);
      }
    }
  } catch (const simgrid::ForcefulKillException&) {
    rank.set_preempted(false);
    leave_killed_rank(rank); // the job ends: leave through the rank's exit jump, not through the signal frame
    throw;
  }
  rank.set_preempted(false);
  rank.forget_pause(last_call, stretch);
}

void on_preemption_signal(int, siginfo_t*, void* context)
{
  signal_pending.store(false, std::memory_order_relaxed);
  runtime::Rank* rank = running_rank();
  if (rank != nullptr)
    rank->count_preemption_signal();
  // Not at SMPI's level (its clock hooks): SMPI's clocks and its polling costs there, not bxisim's busy-wait rules.
  if (rank == nullptr || clock_hooks() != nullptr ||
      simulator_transitions() != expected_transitions.load(std::memory_order_relaxed))
    return;
  const auto* interrupted = static_cast<const ucontext_t*>(context);
  if (not rank->runs_own_code_at(static_cast<uintptr_t>(interrupted->uc_mcontext.gregs[REG_RIP]))) {
    owed_after_long_quiet.store(expected_after_long_quiet.load(std::memory_order_relaxed), std::memory_order_relaxed);
    owed_at.store(simulator_transitions(), std::memory_order_relaxed);
    return;
  }
  int saved_errno = errno;
  pause(*rank, &interrupted->uc_mcontext, expected_after_long_quiet.load(std::memory_order_relaxed));
  errno = saved_errno;
}
} // namespace

void pause_if_preempted_in_call(const void* caller)
{
  if (owed_at.load(std::memory_order_relaxed) != simulator_transitions())
    return;
  runtime::Rank* rank = running_rank();
  if (rank == nullptr || clock_hooks() != nullptr || not rank->runs_own_code_at(reinterpret_cast<uintptr_t>(caller)))
    return;
  owed_at.store(kNoPause, std::memory_order_relaxed);
  int saved_errno = errno;
  enter_call_edge();
  bool after_long_quiet = owed_after_long_quiet.load(std::memory_order_relaxed);
  // No registers of its code here (a library call of its loop): only --preempt-after tells a wait from a computation.
  surviving_kill("killed while paused", [rank, after_long_quiet] {
    pause(*rank, nullptr, after_long_quiet);
  }); // from noexcept functions (clock_gettime)
  leave_call_edge();
  errno = saved_errno;
}

void install_preemption_handler(int signal_number)
{
  struct sigaction action {
  };
  action.sa_sigaction = on_preemption_signal;
  // SA_NODEFER: while one rank is paused inside the handler, others may be preempted in turn.
  action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(signal_number, &action, nullptr);
}

void expect_preemption_at(unsigned long transitions, bool after_long_quiet)
{
  expected_after_long_quiet.store(after_long_quiet, std::memory_order_relaxed);
  expected_transitions.store(transitions, std::memory_order_relaxed);
}

bool preemption_signal_pending()
{
  return signal_pending.load(std::memory_order_relaxed);
}

void note_preemption_signal_sent()
{
  signal_pending.store(true, std::memory_order_relaxed);
}

void note_preemption_signal_lost()
{
  signal_pending.store(false, std::memory_order_relaxed);
}

} // namespace bxisim::os
