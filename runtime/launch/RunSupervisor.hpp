#pragma once
// No silent hang: a thread beside the simulation that
//  - receives SIGINT, SIGTERM and SIGPIPE sent to bxisim (blocked in every other thread) and stops
//    the run cleanly: where each rank was, the temporary folder removed, exit code 128 + signal;
//  - ends the run at --wall-limit (exit code kLimitExitCode), with the same summary;
//  - when no rank has called the simulator for `preempt_after` wall seconds, pauses the rank in its
//    own code (a busy-wait on memory, runtime/os/Preemption.hpp), then after every quantum it runs
//    its own code;
//  - watches the ranks: when no rank has called the simulator for `watchdog` wall seconds while one
//    runs its own code, says so once, with the rank's backtrace and why simulated time cannot advance.
// Stopping freezes the simulator's thread at its next entry into the simulator (no rank is then
// caught between two calls), or wherever it is after a grace (a rank may be in an endless loop); the
// summary is printed from the supervisor's thread, and the process ends with _exit.

#include "Rank.hpp"
#include "RunFolder.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <pthread.h>
#include <string>
#include <thread>
#include <vector>

namespace bxisim::runtime
{

/** The MPI call a rank is in ("" outside any), by rank index: reports name it beside what the rank waits for. */
using MpiCallOf = std::function<std::string(int)>;

struct SupervisorOptions {
  double watchdog      = 10.0; // wall seconds without a simulator call before the watchdog speaks; 0: never
  double wall_limit    = 0.0;  // wall seconds after which the run is stopped; 0: no limit
  double preempt_after = 1.0; // wall seconds without any call before a busy rank's pauses advance its time; 0: no pause
};

class RunSupervisor
{
 public:
  /** Call on the simulator's thread before any other thread starts (they inherit the blocked signals). */
  RunSupervisor(const SupervisorOptions& options, const std::vector<std::unique_ptr<Rank>>& ranks,
                const RunFolder& folder);
  ~RunSupervisor();
  RunSupervisor(const RunSupervisor&)            = delete;
  RunSupervisor& operator=(const RunSupervisor&) = delete;

  /** Blocks SIGINT, SIGTERM and SIGPIPE in the calling thread: they wait for the supervisor. */
  static void block_stop_signals();
  /** Asks the supervisor to stop the run with `exit_code` (any thread; `why` must be a literal). */
  static void request_stop(int exit_code, const char* why);
  /** Where a stop report finds each rank's MPI call (read while the simulation is held). */
  void set_mpi_call(MpiCallOf mpi_call) { mpi_call_ = std::move(mpi_call); }

 private:
  void supervise();
  void watch(std::chrono::steady_clock::time_point now);
  void preempt(std::chrono::steady_clock::time_point now);
  [[noreturn]] void stop(int exit_code, const std::string& headline);

  SupervisorOptions options_;
  const std::vector<std::unique_ptr<Rank>>& ranks_;
  MpiCallOf mpi_call_;
  std::string folder_;
  bool keep_folder_;
  pthread_t simulator_thread_;
  pid_t simulator_tid_; // the same thread, as the kernel knows it (/proc/self/task)
  std::chrono::steady_clock::time_point start_;
  std::atomic<bool> done_{false};
  std::thread thread_;
  // watchdog state: real calls only (a preempted rank's pauses are not calls)
  unsigned long last_calls_ = 0;
  std::chrono::steady_clock::time_point quiet_since_;
  bool reported_ = false;
  // preemption state: any transition into or out of the simulator
  unsigned long last_transitions_ = 0;
  std::chrono::steady_clock::time_point in_code_since_;
  bool any_stepping_ = false;  // one of stepping_ is set: the supervisor then wakes every quantum
  std::vector<bool> stepping_; // by rank: found busy-waiting, paused (with a step) after each quantum in its code
};

/** "rank 3" or "ranks 0-3,7" (`ranks` in increasing order). */
std::string rank_ranges(const std::vector<int>& ranks);

/** Where each rank is, grouped ("ranks 0-3,7: inside MPI_Recv, waits for ..."), one line each, for reports. */
std::string describe_ranks(const std::vector<std::unique_ptr<Rank>>& ranks, const Rank* rank_in_code,
                           const MpiCallOf& mpi_call = {});

} // namespace bxisim::runtime
