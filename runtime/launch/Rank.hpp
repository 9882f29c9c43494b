#pragma once
// One simulated process of `bxisim run`: where it runs, its state, and its account of CPU time.

#include "hw/actors/StackShadow.hpp"
#include "runtime/os/ProcessState.hpp"
#include "runtime/os/ProgressProbe.hpp"
#include "runtime/os/RankHeap.hpp"

#include <simgrid/s4u/Host.hpp>

#include <atomic>
#include <csetjmp>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace bxisim::runtime
{

/** Where a rank runs; computed by map_ranks(). */
struct RankPlacement {
  int rank;
  int node;       // index in platform::Machine::nodes()
  int local_rank; // among the ranks of the same node, in rank order
  int local_size; // ranks on that node
  int core;       // index of the core host in the node
};

/** How the CPU time a rank spends in its own code becomes simulated time (the cpu.* parameters). */
struct CpuSettings {
  bool simulate    = true;
  double factor    = 1.0;  // simulated seconds per measured second
  double threshold = 1e-6; // measured bursts shorter than this (seconds) are ignored
  // The MPI library's code inside a burst (Rank::enter_library) is simulated only when mpi_library is set, and then
  // only when it ran at least mpi_threshold seconds in the burst.
  bool mpi_library     = false;
  double mpi_threshold = 5e-6;
  bool measure = true; // false when the MPI library measures CPU time itself (SMPI, when told to at --level smpi)
};

enum class RankState { NotStarted, Running, Ended, Killed };

class Rank
{
 public:
  Rank(const RankPlacement& placement, int size, simgrid::s4u::Host* host, std::string node_name);
  Rank(const Rank&)            = delete;
  Rank& operator=(const Rank&) = delete;

  int index() const { return placement_.rank; }
  int size() const { return size_; }
  const RankPlacement& placement() const { return placement_; }
  simgrid::s4u::Host* host() const { return host_; }
  const std::string& node_name() const { return node_name_; }
  /** The pid getpid() returns in this rank: distinct per rank, the same in every run. */
  int simulated_pid() const { return kFirstSimulatedPid + placement_.rank; }

  /** The rank's own code starts (or resumes) running on this thread: its CPU burst starts. */
  void start_burst();
  /**
   * CPU seconds the rank's code spent since start_burst(), less the cost of reading the clocks: the
   * wall time when it is below cpu.threshold, else the thread CPU time (at most the wall time).
   */
  double end_burst();
  /**
   * The edges of a Portals call (portals::Core::CallEdges): the burst ends at the entry point's first
   * instruction and the next starts at its last, so the SimulatorCall inside takes the burst ended
   * there (take_burst) and leaves the start to the exit edge.
   */
  void end_burst_at_edge()
  {
    edge_burst_ = end_burst();
    at_edge_    = true;
  }
  /** The burst ended at the entry edge if there was one, else end_burst(); tells which. */
  double take_burst(bool& at_edge)
  {
    at_edge  = at_edge_;
    at_edge_ = false;
    return at_edge ? edge_burst_ : end_burst();
  }
  /**
   * The simulated seconds the rank's current burst would take if it ended now (0 when it would not be
   * simulated), without ending it: for clock reads that must not switch ranks (see time()).
   */
  double burst_so_far();
  /**
   * The calling thread of the rank enters (leaves) the MPI library's own code at the OpenMPI levels: an MPI
   * call, or the return from a program function the library called. Within a burst, the library's share is
   * simulated only with cpu.mpi_library, from cpu.mpi_threshold; the program's share by cpu.threshold. Why:
   * the library's code runs here after the simulator's work and the other ranks', with cold caches, 10 to 100
   * times slower than on a node (docs/running.md, "Computation").
   */
  bool enter_library(); // whether the thread was in the library already
  void leave_library();
  /** Whether the running thread is inside the library's code now (its share of the burst is being counted). */
  bool in_library() const { return in_library_; }
  /** Whether the exit edge starts the next burst (the SimulatorCall taken at the entry edge has ended). */
  void defer_burst_start() { start_deferred_ = true; }
  bool take_deferred_start()
  {
    at_edge_        = false;
    bool deferred   = start_deferred_;
    start_deferred_ = false;
    return deferred;
  }
  /**
   * Simulates a burst measured by end_burst(), scaled by the CPU factor, when computation is
   * simulated and the burst is not below the threshold; returns whether it did.
   */
  bool simulate_burst(double seconds);
  /** Simulates `seconds` of measured CPU time (scaled by the CPU factor) on the rank's core. */
  void simulate_cpu_seconds(double seconds);

  RankState state() const { return state_; }
  int exit_code() const { return exit_code_; }
  /** The simulated time at which the rank's process ended, or -1 while it runs. */
  double end_time() const { return end_time_; }
  void mark_running() { state_ = RankState::Running; }
  void mark_ended(int exit_code);
  void mark_killed() { state_ = RankState::Killed; }
  /** The rank ended as a process killed by `signal_number` would (exit code 128 + signal). */
  void mark_killed_by(int signal_number);
  /** An uncaught C++ exception ended the rank: a crash. */
  void mark_crashed()
  {
    mark_ended(134); // what std::terminate gives a process (128 + SIGABRT)
    crashed_ = true;
  }
  bool crashed() const { return crashed_; }
  /** The rank's copy of the program or of OpenMPI could not be loaded (or has no main): bad input. */
  void mark_load_failed()
  {
    mark_ended(127);
    load_failed_ = true;
  }
  bool load_failed() const { return load_failed_; }
  /** The signal that ended the rank, 0 when it returned or exited. */
  int end_signal() const { return end_signal_; }

  /** The simulated time the rank last entered or left the simulator: how long it has been where it is. */
  double last_call_time() const { return last_call_time_; }
  void note_simulator_call(double now)
  {
    last_call_time_ = now;
    ++simulator_calls_;
  }
  /** Its simulator calls so far (each counted as it enters and as it leaves): a stretch of its own code lies between
   * two. A pause (os/Preemption.hpp) is no call: it puts back what the last real one left. */
  unsigned long simulator_calls() const { return simulator_calls_; }
  void forget_pause(double last_call_time, unsigned long simulator_calls)
  {
    last_call_time_  = last_call_time;
    simulator_calls_ = simulator_calls;
  }

  /** The libc state the rank has to itself, as a process would (getopt, random, signals, exit handlers). */
  os::ProcessState& process_state() { return process_state_; }
  /** Where its code allocates: its own heap, or nullptr for the process's (os/RankHeap.hpp). */
  os::RankHeap* heap() const { return heap_; }

  /**
   * What the rank blocks on, for the deadlock report ("" when it does not block): set by each
   * blocking bxisim call while it blocks, as a function so that the report shows the state at the
   * time of the deadlock (how many ranks reached a barrier, say).
   */
  std::string waiting_for() const { return waiting_for_ ? waiting_for_() : std::string(); }
  void set_waiting_for(std::function<std::string()> what) { waiting_for_ = std::move(what); }

  /**
   * Where the rank's own copy of the program has its code, set once it is loaded: only there may a
   * busy-waiting rank be preempted (os/Preemption.hpp), never inside a library that may hold a lock (a system's).
   */
  void set_own_code(std::vector<std::pair<uintptr_t, uintptr_t>> ranges) { own_code_ = std::move(ranges); }
  /** The rank's copy of the program, as loaded: what dlopen(NULL) gives the rank's code (its "main program"). */
  void set_program_copy(std::string path) { program_copy_ = std::move(path); }
  const std::string& program_copy() const { return program_copy_; }
  /** The code of the rank's copies of its project's libraries (built for bxisim: loaded with the program, or opened
   * with dlopen) is its own too: a thread such a library creates is one of the rank's, as one the program creates. */
  void add_own_code_of(const std::vector<std::string>& loaded_copies);
  /** Whether its program is loaded (its code known): not while the loader runs the program's constructors. */
  bool loaded() const { return not own_code_.empty(); }
  bool runs_own_code_at(uintptr_t address) const
  {
    for (const auto& [first, last] : own_code_)
      if (address >= first && address < last)
        return true;
    return false;
  }
  /** Preempted in its own code (a busy-wait), and paused for the others to run (os/Preemption.hpp). */
  bool preempted() const { return preempted_; }
  void set_preempted(bool preempted) { preempted_ = preempted; }
  /** How many times it has been preempted so far. */
  unsigned long preemptions() const { return preemptions_; }
  void count_preemption() { ++preemptions_; }
  /** Preemption signals that found the rank in its code (paused or not): the summary's count. */
  unsigned long preemption_signals() const { return preemption_signals_; }
  void count_preemption_signal() { ++preemption_signals_; }
  /** Threads a library created for the rank (real threads, os/ThreadInterposition.hpp) that still run: they may
   * share futex words with the rank's code, and wake them in real time (os/FutexInterposition.cpp). */
  bool has_library_threads() const { return library_threads_.load(std::memory_order_acquire) > 0; }
  void count_library_thread(int change) { library_threads_.fetch_add(change, std::memory_order_acq_rel); }
  /** What successive pauses of one stretch found it doing: a wait or a computation. */
  os::ProgressProbe& progress_probe() { return progress_probe_; }
  /** Whether a pause has advanced its simulated time yet (a busy-wait without CPU simulation). */
  bool stepped() const { return stepped_; }
  void mark_stepped() { stepped_ = true; }
  /** How many pauses have advanced its simulated time (each by os::kBusyWaitStep). */
  unsigned long busy_wait_steps() const { return busy_wait_steps_; }
  void count_busy_wait_step() { ++busy_wait_steps_; }

  /** exit() in the rank's code jumps here (see RankActor.cpp): set while main runs. */
  std::jmp_buf exit_jump;
  bool exit_jump_armed = false;
  bool killed_in_libc  = false; // SimGrid killed it in a noexcept libc function: os::leave_killed_rank
  long main_actor_pid  = -1;    // the actor that runs main
  bool ended_by_thread = false; // a thread it created called exit(): its main actor was killed, the rank ended
  /** Where its actor's stack is, for ASan's shadow of abandoned frames (hw/actors/StackShadow.hpp). */
  hw::ActorStack stack;

  static void set_cpu_settings(const CpuSettings& settings);
  static const CpuSettings& cpu_settings();

  static constexpr int kFirstSimulatedPid = 1000;

 private:
  RankPlacement placement_;
  int size_;
  simgrid::s4u::Host* host_;
  std::string node_name_;
  RankState state_               = RankState::NotStarted;
  int exit_code_                 = 0;
  double end_time_               = -1;
  int end_signal_                = 0;
  double last_call_time_         = 0.0;
  unsigned long simulator_calls_ = 0;
  bool crashed_                  = false;
  bool load_failed_              = false;
  double edge_burst_             = 0.0;
  bool at_edge_                  = false;
  bool start_deferred_           = false;
  bool cpu_started_              = false; // whether the thread CPU clock was read in this burst
  double cpu_mark_               = 0.0;   // its last reading
  double wall_mark_              = 0.0;   // the monotonic clock as it was read
  double library_wall_at_mark_   = 0.0;   // library_wall_until(wall_mark_)
  double program_cpu_            = 0.0;   // CPU time of the program's share of the burst, until the mark
  double library_cpu_            = 0.0;   // and of the library's
  double burst_wall_start_       = 0.0;   // monotonic clock at start_burst()
  bool in_library_               = false;
  double library_start_          = 0.0; // monotonic clock as the running thread entered the library
  double program_start_          = 0.0; // and as the program's code last started running
  double library_wall_           = 0.0; // wall time of the current burst spent in the library before library_start_
  /** The burst's wall time in the library until `now`. */
  double library_wall_until(double now) const;
  /** The CPU time from the mark to `cpu` (read at `now`), shared as (program, library) by their wall times. */
  std::pair<double, double> cpu_since_mark(double cpu, double now) const;
  /** Moves the mark to `cpu`, read at `now`, giving each share its CPU time since the last. */
  void mark_cpu(double cpu, double now);
  // The rank's threads (nullptr: its main thread) inside the library as their last burst ended: the thread whose burst
  // starts may not be the one whose burst ended.
  std::vector<const void*> threads_in_library_;
  bool running_thread_in_library() const;
  void keep_running_thread_in_library(bool inside);
  std::function<std::string()> waiting_for_;
  std::vector<std::pair<uintptr_t, uintptr_t>> own_code_;
  std::string program_copy_;
  bool preempted_                   = false;
  unsigned long preemptions_        = 0;
  unsigned long preemption_signals_ = 0;
  std::atomic<int> library_threads_{0}; // changed by those threads themselves as they end
  os::ProgressProbe progress_probe_;
  bool stepped_                  = false;
  unsigned long busy_wait_steps_ = 0;
  os::ProcessState process_state_;
  os::RankHeap* heap_;
};

} // namespace bxisim::runtime
