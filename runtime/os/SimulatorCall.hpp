#pragma once
// Tells a rank's own code from the simulator's.
//
// Only one rank's code runs on a thread at a time, and ranks switch only inside simulator calls.
// running_rank() is the rank whose own code runs on this thread, or nullptr while the simulator
// (SimGrid, bxisim) runs, in a thread that is not a rank, or before any rank starts. SimGrid reads
// the real clocks from inside rank actors too, so "which actor runs" would not tell them apart.
//
// Every bxisim entry point a rank can call (interposed libc functions, bxisim/rank.h, Portals, MPI)
// opens a SimulatorCall first. That ends the rank's CPU burst (simulating it on the rank's core)
// and clears running_rank() until the call returns to the rank's code.

namespace bxisim::runtime
{
class Rank;
}

namespace bxisim::os
{

runtime::Rank* running_rank();

/** Used by the rank actor around the rank's main only. */
void set_running_rank(runtime::Rank* rank);

/**
 * For the watchdog, from any thread: the rank whose code runs on the simulator's thread (nullptr
 * while the simulator runs), and a count that changes at every entry into and exit from the simulator.
 */
runtime::Rank* rank_in_code();
/** The last rank whose own code ran (nullptr before any): who most likely damaged the heap when the allocator
 * stops the simulator in its own code (CrashReport). */
runtime::Rank* last_rank_in_code();
unsigned long simulator_transitions();
/** The same count less those of preempted ranks (os/Preemption.hpp): the transitions of real calls. */
unsigned long call_transitions();

/**
 * From any thread: the simulator's thread calls `hold` (which need not return) the next time it
 * leaves a rank's code for the simulator. The supervisor stops runs there, so that no rank is caught
 * between two simulator calls. nullptr: nothing.
 */
void hold_at_next_call(void (*hold)());

/**
 * The simulated clock and sleeps of ranks when an MPI library keeps its own account of CPU time
 * (SMPI at --level smpi: reading the clock must first flush its measure). nullptr: bxisim's own.
 */
struct ClockHooks {
  double (*now)();       // called inside a SimulatorCall, as the program's clock reads
  void (*sleep)(double); // idem
  double (*flush)();     // idem: the CPU time so far simulated, then the clock; nothing injected (regions)
};
void set_clock_hooks(const ClockHooks* hooks);
/** The calling rank's simulated time in seconds, as the interposed clocks read it but not rounded (MPI_Wtime). */
double rank_clock();
/** The same read as the interposed clocks read it, from a noexcept function inside a CallEdges scope: a kill of the
 * rank there is survived (RankEnd.hpp). */
double rank_clock_in_call_edges();
/** The calling rank's simulated time for bxisim's own accounts (regions): its CPU time so far counted, no read cost. */
double rank_clock_exact();
const ClockHooks* clock_hooks();

/**
 * portals::Core::CallEdges: the first and last thing a Portals entry point runs. The calling rank's
 * burst ends at the first and the next starts at the last, so that none of the entry point's own
 * code (its arguments, its call scope) is measured as the rank's computation.
 */
void enter_call_edge();
void leave_call_edge();

/**
 * The call edges of an interposed function that reads the simulated clock: made first, destroyed last, after the
 * caller's results are written. The first pass through a conversion's code costs a microsecond of cache and TLB
 * misses on a virtual machine, as much as cpu.threshold: measured in the rank's burst, it made a program's first timed
 * Put longer than its second.
 */
class CallEdges
{
 public:
  CallEdges() { enter_call_edge(); }
  ~CallEdges() { leave_call_edge(); }
  CallEdges(const CallEdges&)            = delete;
  CallEdges& operator=(const CallEdges&) = delete;
};

/**
 * A rank's own code starts (or resumes) on this thread: its output, its globals, its heap, then its CPU burst
 * (last: what comes before is the simulator's). Used by the rank's main thread and its simulated threads.
 */
void enter_rank_code(runtime::Rank& rank);
/** Back to the simulator from the rank's own code: its last burst is simulated. */
void leave_rank_code(runtime::Rank& rank);

/**
 * Inside a simulator call of `rank` in which other ranks may have run (SMPI's MPI calls), its program's
 * code runs again for a while (a user operation, an error handler SMPI calls): what it writes is its
 * own, and so are the process's globals it sees (getopt's). Not a simulator call: no burst, no switch.
 */
void enter_program_code_in_call(runtime::Rank& rank);
void leave_program_code_in_call(runtime::Rank& rank);

class SimulatorCall
{
 public:
  SimulatorCall();
  ~SimulatorCall();
  SimulatorCall(const SimulatorCall&)            = delete;
  SimulatorCall& operator=(const SimulatorCall&) = delete;

  /** The rank that made the call, or nullptr when the caller is not a rank's code (nothing to do). */
  runtime::Rank* rank() const { return rank_; }
  /** The CPU time the rank spent in its own code before this call (measured, unscaled). */
  double burst() const { return burst_; }
  /** Whether that burst was simulated (computation simulated and the burst above the threshold). */
  bool burst_simulated() const { return burst_simulated_; }

 private:
  runtime::Rank* rank_;
  double burst_         = 0.0;
  bool burst_simulated_ = false;
  bool at_edge_         = false; // the burst ended at a call edge: the exit edge starts the next
};

} // namespace bxisim::os
