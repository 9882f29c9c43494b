#include "RunSupervisor.hpp"

#include "ExitCodes.hpp"
#include "OutputRouter.hpp"
#include "runtime/os/Preemption.hpp"
#include "runtime/os/SimulatorCall.hpp"
#include "runtime/os/SimulatorSignals.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <execinfo.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <unistd.h>

namespace bxisim::runtime
{

namespace
{
constexpr auto kPeriod        = std::chrono::milliseconds(100);
constexpr size_t kReportLines = 40; // the summary shows at most this many groups of ranks
// When stopping, how long a rank running its own code has to call the simulator before its thread is
// frozen where it is (an endless loop, a long computation: "running its own code" in the summary).
constexpr auto kStopGrace = std::chrono::milliseconds(500);

using os::preemption_signal;
using os::supervisor_signal;

// Requests to the simulator's thread, answered in its signal handler or at its next simulator call.
std::atomic<bool> freeze_requested{false};
std::atomic<bool> freeze_anywhere{false}; // even in a rank's own code
std::atomic<bool> frozen{false};
std::atomic<bool> backtrace_done{false};
// Requests to the supervisor from other threads.
std::atomic<int> stop_code{0};
std::atomic<const char*> stop_reason{nullptr};

void write_text(const std::string& text)
{
  int fd         = OutputRouter::original_stderr_fd();
  const char* at = text.data();
  size_t left    = text.size();
  while (left > 0) {
    ssize_t written = write(fd, at, left);
    if (written <= 0)
      return;
    at += written;
    left -= static_cast<size_t>(written);
  }
}

/** On the simulator's thread, where no rank's own code runs (or the grace is over): stops it for good. */
[[noreturn]] void freeze()
{
  frozen.store(true);
  for (;;)
    pause();
}

/**
 * On the simulator's thread: prints its backtrace (the running rank's code), or freezes it for good,
 * unless a rank's own code runs between two simulator calls: that rank would be reported as running
 * its code, so the thread freezes at its next simulator call instead (os::hold_at_next_call).
 */
void on_supervisor_signal(int)
{
  if (freeze_requested.load()) {
    if (os::rank_in_code() != nullptr && not freeze_anywhere.load())
      return;
    freeze();
  }
  void* frames[64];
  int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, OutputRouter::original_stderr_fd());
  backtrace_done.store(true);
}

/** Only reached in a thread that unblocked the signal (a rank's own thread, say): the supervisor stops the run. */
void on_stop_signal(int number)
{
  stop_reason.store(nullptr);
  stop_code.store(128 + number);
}

sigset_t stop_signals()
{
  sigset_t set;
  sigemptyset(&set);
  for (int number : {SIGINT, SIGTERM, SIGPIPE})
    sigaddset(&set, number);
  return set;
}

/** Whether thread `tid` of this process sleeps in the kernel at every look over a few milliseconds. */
bool sleeps_in_kernel(pid_t tid)
{
  for (int look = 0; look < 5; ++look) {
    std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    auto name_end = text.rfind(')'); // the state follows the command name, which may hold spaces
    if (name_end == std::string::npos || name_end + 2 >= text.size())
      return false;
    char state = text[name_end + 2];
    if (state != 'S' && state != 'D')
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

std::string describe(const Rank& rank, const Rank* rank_in_code, const std::string& call)
{
  switch (rank.state()) {
  case RankState::NotStarted:
    return "not started";
  case RankState::Ended:
    if (rank.end_signal() != 0)
      return fmt::format("ended, killed by SIG{}", sigabbrev_np(rank.end_signal()));
    return fmt::format("ended with exit code {}", rank.exit_code());
  case RankState::Killed:
    return "stopped by the simulator";
  case RankState::Running:
    break;
  }
  if (&rank == rank_in_code)
    return fmt::format("running its own code, without calling the simulator since simulated time {:.9f} s",
                       rank.last_call_time());
  if (rank.preempted())
    return fmt::format("running its own code (a busy-wait, paused {} times by bxisim), without calling the simulator "
                       "since simulated time {:.9f} s",
                       rank.preemptions(), rank.last_call_time());
  std::string inside  = call.empty() ? std::string() : "inside " + call + ", ";
  std::string waiting = rank.waiting_for();
  if (not waiting.empty())
    return fmt::format("{}waits for {} (since simulated time {:.9f} s)", inside, waiting, rank.last_call_time());
  return fmt::format("{}in a simulator call (computing, sleeping or communicating) since simulated time {:.9f} s",
                     inside, rank.last_call_time());
}
} // namespace

std::string rank_ranges(const std::vector<int>& ranks)
{
  std::string text;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
      ++j;
    text += fmt::format("{}{}", text.empty() ? "" : ",", ranks[i]);
    if (j > i)
      text += fmt::format("-{}", ranks[j]);
    i = j + 1;
  }
  return (ranks.size() > 1 ? "ranks " : "rank ") + text;
}

std::string describe_ranks(const std::vector<std::unique_ptr<Rank>>& ranks, const Rank* rank_in_code,
                           const MpiCallOf& mpi_call)
{
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  std::map<std::string, size_t> group_of;
  for (const auto& rank : ranks) {
    std::string what    = describe(*rank, rank_in_code, mpi_call ? mpi_call(rank->index()) : std::string());
    auto [entry, added] = group_of.try_emplace(what, groups.size());
    if (added)
      groups.emplace_back(what, std::vector<int>{});
    groups[entry->second].second.push_back(rank->index());
  }
  std::string text;
  for (size_t i = 0; i < groups.size() && i < kReportLines; ++i)
    text += fmt::format("bxisim:   {}: {}\n", rank_ranges(groups[i].second), groups[i].first);
  if (groups.size() > kReportLines)
    text += fmt::format("bxisim:   ... and {} more groups of ranks\n", groups.size() - kReportLines);
  return text;
}

RunSupervisor::RunSupervisor(const SupervisorOptions& options, const std::vector<std::unique_ptr<Rank>>& ranks,
                             const RunFolder& folder)
    : options_(options), ranks_(ranks), folder_(folder.path()), keep_folder_(folder.kept()),
      simulator_thread_(pthread_self()), simulator_tid_(gettid()), start_(std::chrono::steady_clock::now()),
      quiet_since_(start_), in_code_since_(start_), stepping_(ranks.size(), false)
{
  block_stop_signals();
  void* warm_up[1];
  backtrace(warm_up, 1); // loads libgcc now: the handler must not
  struct sigaction action {
  };
  action.sa_handler = on_supervisor_signal;
  sigemptyset(&action.sa_mask);
  sigaction(supervisor_signal(), &action, nullptr);
  os::install_preemption_handler(preemption_signal());
  // A handler rather than the default action, which an unblocked thread would run, and rather than
  // SIG_IGN inherited from a shell (background jobs), which would discard the signals.
  action.sa_handler = on_stop_signal;
  for (int number : {SIGINT, SIGTERM, SIGPIPE})
    sigaction(number, &action, nullptr);
  // The thread starts with its signal blocked (a thread inherits the mask): the destructor's wake-up
  // must never run the backtrace handler there, however early the run ends.
  sigset_t own;
  sigemptyset(&own);
  sigaddset(&own, supervisor_signal());
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &own, &previous);
  thread_ = std::thread([this] { supervise(); });
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

RunSupervisor::~RunSupervisor()
{
  done_.store(true);
  // Wakes it now rather than at the end of its period: every run would end up to 100 ms later.
  pthread_kill(thread_.native_handle(), supervisor_signal());
  thread_.join();
}

void RunSupervisor::block_stop_signals()
{
  sigset_t blocked = stop_signals();
  pthread_sigmask(SIG_BLOCK, &blocked, nullptr);
}

void RunSupervisor::request_stop(int exit_code, const char* why)
{
  stop_reason.store(why);
  stop_code.store(exit_code);
}

void RunSupervisor::supervise()
{
  sigset_t blocked = stop_signals();
  sigaddset(&blocked, supervisor_signal());
  pthread_sigmask(SIG_BLOCK, &blocked, nullptr);
  sigset_t wanted = stop_signals();
  sigaddset(&wanted, supervisor_signal()); // from the destructor: the run is over
  std::chrono::duration<double> idle_period = kPeriod;
  if (options_.preempt_after > 0)
    idle_period =
        std::min<std::chrono::duration<double>>(idle_period, std::chrono::duration<double>(options_.preempt_after));
  while (not done_.load()) {
    // Once a rank has been found busy-waiting, it must be paused again after each quantum in its code.
    auto nanoseconds = std::chrono::duration_cast<std::chrono::nanoseconds>(
        any_stepping_ ? std::chrono::duration<double>(os::kBusyWaitQuantum) : idle_period);
    timespec period{0, nanoseconds.count()};
    int number = sigtimedwait(&wanted, nullptr, &period);
    if (done_.load())
      return;
    if (number == supervisor_signal())
      continue;
    if (number > 0)
      stop(128 + number, fmt::format("bxisim: stopped by SIG{}", sigabbrev_np(number)));
    if (int code = stop_code.load(); code != 0)
      stop(code, stop_reason.load() != nullptr ? fmt::format("bxisim: stopped ({})", stop_reason.load())
                                               : fmt::format("bxisim: stopped by SIG{}", sigabbrev_np(code - 128)));
    auto now     = std::chrono::steady_clock::now();
    double spent = std::chrono::duration<double>(now - start_).count();
    if (options_.wall_limit > 0 && spent >= options_.wall_limit)
      stop(kLimitExitCode,
           fmt::format("bxisim: the wall-clock limit is reached (--wall-limit {})", options_.wall_limit));
    watch(now);
    preempt(now);
  }
}

void RunSupervisor::preempt(std::chrono::steady_clock::time_point now)
{
  Rank* rank                = os::rank_in_code();
  unsigned long transitions = os::simulator_transitions();
  if (rank == nullptr || transitions != last_transitions_) {
    last_transitions_ = transitions;
    in_code_since_    = now;
    return;
  }
  // At SMPI's level (its clock hooks) the signal pauses nobody (SMPI's clocks and polling costs rule there): each
  // one, every 100 us of a long computation, was only the kernel's work (2.2 s of system time in 9 s of a rank's).
  if (options_.preempt_after <= 0 || os::clock_hooks() != nullptr)
    return;
  std::chrono::duration<double> in_code = now - in_code_since_;
  std::chrono::duration<double> quiet   = now - quiet_since_; // no rank has called the simulator since
  auto index                            = static_cast<size_t>(rank->index());
  // The rank busy-waits (or computes for long) while no rank calls the simulator: pause it. Once a rank
  // has been found so, it is paused after each quantum in its code.
  if (stepping_[index] ? in_code < os::kBusyWaitQuantum : quiet.count() < options_.preempt_after)
    return;
  stepping_[index] = true;
  any_stepping_    = true;
  if (os::preemption_signal_pending()) // the rank is in a long system call: the last signal is still queued
    return;
  // The signal pauses the rank only if it is still there; after a long quiet it may be a wait whatever it looks like.
  os::expect_preemption_at(transitions, quiet.count() >= options_.preempt_after);
  os::note_preemption_signal_sent();
  if (pthread_kill(simulator_thread_, preemption_signal()) != 0)
    os::note_preemption_signal_lost(); // not queued (EAGAIN): the next quantum sends another
}

void RunSupervisor::watch(std::chrono::steady_clock::time_point now)
{
  // Reset by real calls only: a rank paused by preemption (and the others running meanwhile without
  // calling, the NICs) has still not called the simulator.
  unsigned long calls = os::call_transitions();
  if (calls != last_calls_) {
    last_calls_  = calls;
    quiet_since_ = now;
    reported_    = false;
    return;
  }
  Rank* rank   = os::rank_in_code();
  double quiet = std::chrono::duration<double>(now - quiet_since_).count();
  if (rank == nullptr || reported_ || options_.watchdog <= 0 || quiet < options_.watchdog)
    return;
  reported_ = true;
  std::string why =
      rank->preemptions() > 0
          ? fmt::format("bxisim has paused it {} times so that the NICs and the other ranks could run (simulated time "
                        "went on), and it still runs: an endless loop, a wait for memory that nothing writes, or a "
                        "very long computation",
                        rank->preemptions())
          : "Simulated time cannot advance meanwhile: ranks run one at a time, so a rank that busy-waits on memory "
            "another rank or the NIC should write (a flag, a counter) waits forever, as nothing else runs until it "
            "calls bxisim (a Portals or MPI call, a clock read, a sleep, sched_yield) or bxisim preempts it "
            "(--preempt-after); otherwise it is in an endless loop or a very long computation";
  if (sleeps_in_kernel(simulator_tid_))
    why = "It does not run: its thread sleeps in the kernel, on a lock or in a blocking system call of its own. All "
          "ranks run on that one thread, so a rank waiting for a lock that another rank holds waits forever: a lock "
          "of a shared library taken across a simulator call (a clock read, a sleep) by the other rank. Privatize "
          "that library (--privatize-lib NAME: each rank gets its own copy and lock), or remove the blocking call "
          "the backtrace shows";
  write_text(fmt::format("bxisim: watchdog: rank {} has run its own code for {:.0f} s of wall time without calling the "
                         "simulator, since simulated time {:.9f} s. {}. Its backtrace (innermost first):\n",
                         rank->index(), quiet, rank->last_call_time(), why));
  backtrace_done.store(false);
  pthread_kill(simulator_thread_, supervisor_signal());
  for (int i = 0; i < 100 && not backtrace_done.load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  write_text("bxisim: the run goes on; stop it with Ctrl-C, or bound it with --wall-limit or --sim-time-limit.\n");
}

void RunSupervisor::stop(int exit_code, const std::string& headline)
{
  // Ranks call the simulator often: freeze the simulator's thread at the next call, so that the
  // summary says where each rank is in simulated time. A rank that does not call it within the grace
  // (a busy-wait, a long computation) is frozen in its own code and reported as such.
  freeze_requested.store(true);
  os::hold_at_next_call(freeze);
  pthread_kill(simulator_thread_, supervisor_signal());
  auto grace_end = std::chrono::steady_clock::now() + kStopGrace;
  while (not frozen.load() && std::chrono::steady_clock::now() < grace_end)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (not frozen.load()) {
    freeze_anywhere.store(true);
    pthread_kill(simulator_thread_, supervisor_signal());
  }
  for (int i = 0; i < 200 && not frozen.load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  for (FILE* stream : {stdout, stderr}) // what ranks printed last, unless the frozen thread holds the stream
    if (ftrylockfile(stream) == 0) {
      fflush_unlocked(stream);
      funlockfile(stream);
    }
  OutputRouter::drain_after_crash();
  double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  write_text(fmt::format("{} after {:.1f} s of wall time, at simulated time {:.9f} s. Where each rank was:\n{}",
                         headline, spent, simgrid::s4u::Engine::get_clock(),
                         describe_ranks(ranks_, os::rank_in_code(), mpi_call_)));
  if (keep_folder_) {
    write_text(fmt::format("bxisim: kept the temporary folder {} (--keep-temps).\n", folder_));
  } else {
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
  }
  _exit(exit_code);
}

} // namespace bxisim::runtime
