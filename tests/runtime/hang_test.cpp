// No silent hang: the watchdog, --wall-limit, --sim-time-limit, and SIGINT/SIGTERM/SIGPIPE of bxisim.
// These tests assert on messages, exit codes and simulated times; the wall-clock options only bound
// how long the runs last.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
constexpr int kLimit         = 5;    // docs/running.md, "Exit codes"
constexpr double kStartSleep = 5e-6; // hang.c: usleep(5) before hanging
const std::string kBxisim    = "'" BXISIM_BINARY "'";

std::string hang(const std::string& options, const std::string& how, const std::string& who)
{
  return kBxisim + " run " + options + " " + test_program("hang") + " " + how + " " + who;
}

/** Starts `command` in the background, sends `signal_name` once rank 1 runs, prints its exit code. */
CommandResult interrupt(const std::string& command, const std::string& signal_name, const std::string& tmpdir)
{
  std::string out = tmpdir + "/../interrupt.out";
  return run_command(fmt::format("{{ TMPDIR={} {} > {} 2>&1 & pid=$!; "
                                 "while ! grep -q 'rank 1 started' {}; do sleep 0.05; done; "
                                 "kill -{} $pid; wait $pid; echo exit=$?; cat {}; }}",
                                 tmpdir, command, out, out, signal_name, out));
}
} // namespace

TEST(Watchdog, NamesTheSpinningRankWithABacktraceThenTheWallLimitStopsTheRun)
{
  std::string tmpdir = fresh_folder("tmpdir-spin");
  auto result =
      run_command("TMPDIR=" + tmpdir + " " +
                  hang("-n 3 --no-cpu-simulation --preempt-after 0 --watchdog 1 --wall-limit 4", "spin", "1"));
  EXPECT_EQ(result.exit_code, kLimit) << result.output;
  EXPECT_THAT(result.output, HasSubstr("watchdog: rank 1 has run its own code for 1 s of wall time without calling "
                                       "the simulator, since simulated time 0.000005000 s"));
  EXPECT_THAT(result.output, HasSubstr("busy-waits on memory"));
  EXPECT_THAT(result.output, HasSubstr("rank-1/hang(spin_on_flag+"));           // the rank's copy, in the backtrace
  EXPECT_EQ(result.output.find("watchdog:"), result.output.rfind("watchdog:")); // once
  EXPECT_THAT(result.output, HasSubstr("the wall-clock limit is reached (--wall-limit 4)"));
  EXPECT_THAT(result.output, HasSubstr("rank 1: running its own code, without calling the simulator since simulated "
                                       "time 0.000005000 s"));
  EXPECT_THAT(result.output, HasSubstr("ranks 0,2: ended with exit code 0"));
  EXPECT_EQ(entry_count(tmpdir), 0);
}

// Two ranks take a shared library's lock made of a raw futex and read clock_gettime inside it, which switches ranks:
// rank 1 then waits in the kernel while rank 0 holds it, on the thread they share (bxisim waits in simulated time
// for mutexes, read-write locks, condition variables, barriers and semaphores, not for raw futexes). The watchdog
// says it is blocked, not spinning, and how to give each rank its own lock.
void expect_a_rank_blocked_on_another_ranks_lock_to_be_named(int ppn)
{
  auto result = run_command(kBxisim + " run -n 2 --ppn " + std::to_string(ppn) +
                            " --watchdog 1 --wall-limit 4 --set cpu.factor=1000 " + test_program("locked_clock") +
                            " 0.003 clock_gettime_futex");
  EXPECT_EQ(result.exit_code, kLimit) << result.output;
  EXPECT_THAT(result.output, HasSubstr("It does not run: its thread sleeps in the kernel, on a lock"));
  EXPECT_THAT(result.output, HasSubstr("--privatize-lib NAME"));
  EXPECT_THAT(result.output, HasSubstr("liblocked_clock.so(futex_clock_gettime+")); // in the backtrace
  EXPECT_THAT(result.output, Not(HasSubstr("busy-waits on memory")));
}

namespace
{
/** Both ranks read the clock under a lock of the shared library made as `clock` says; both go on, at both placements.
 */
void expect_a_librarys_lock_held_across_a_clock_read_to_be_waited_for(const std::string& clock)
{
  for (int ppn : {1, 2}) {
    auto result =
        run_command(kBxisim + " run -q --no-summary -n 2 --ppn " + std::to_string(ppn) +
                    " --wall-limit 60 --set cpu.factor=1000 " + test_program("locked_clock") + " 0.003 " + clock);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_THAT(result.output, HasSubstr("[rank 0] seconds=3 ")) << result.output;
    EXPECT_THAT(result.output, HasSubstr("[rank 1] seconds=3 ")) << result.output;
  }
}
} // namespace

// The same under a read-write lock of the library: rank 1 waits to write in simulated time while rank 0 reads, and
// both go on (before, the run hung as with the futex).
TEST(LockWaits, ALibrarysReadWriteLockHeldAcrossAClockReadIsWaitedForInSimulatedTime)
{
  expect_a_librarys_lock_held_across_a_clock_read_to_be_waited_for("clock_gettime_rwlock");
}

// The same with a lock made of futex system calls through syscall() (as libstdc++ makes them): the rank that wants it
// waits in simulated time until the holder's FUTEX_WAKE, though the ranks are different processes sharing the
// library's one word (a real futex wait put the simulator's only thread to sleep).
TEST(LockWaits, ALibrarysFutexLockHeldAcrossAClockReadIsWaitedForInSimulatedTime)
{
  expect_a_librarys_lock_held_across_a_clock_read_to_be_waited_for("clock_gettime_syscall_futex");
}

TEST(Watchdog, NamesARankBlockedOnAnotherRanksLockAcrossNodes)
{
  expect_a_rank_blocked_on_another_ranks_lock_to_be_named(1);
}

TEST(Watchdog, NamesARankBlockedOnAnotherRanksLockInsideANode)
{
  expect_a_rank_blocked_on_another_ranks_lock_to_be_named(2);
}

namespace
{
/** The tests below run with one rank per node (across nodes) and two (inside a node). */
class HangPlacements : public testing::TestWithParam<int>
{
 protected:
  std::string ppn() const { return std::to_string(GetParam()); }
};
} // namespace

// An allocator preloaded into bxisim that takes a mutex of its own inside malloc (as jemalloc does) calls
// bxisim's pthread_mutex_lock and _unlock there: if they allocated (a thread_local map's set-up, a map's node),
// the allocation waited for the allocator's own mutex, held by the same thread, and the run never started.
TEST_P(HangPlacements, APreloadedAllocatorWithItsOwnLockRuns)
{
  // timeout: such a hang came before bxisim's own limits could start
  auto result = run_command("timeout 120 env LD_PRELOAD=" + test_program("liblocking_malloc.so") + " " + kBxisim +
                            " run -n 3 --ppn " + ppn() + " --wall-limit 60 --set cpu.factor=1000 " +
                            test_program("crossing_puts") + " 65536 1e-6");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("crossed=")) << result.output;
}

// A rank inside system calls that signals do not interrupt (long writes), found "in its own code" by the
// supervisor: its preemption signal, a queued real-time one sent every quantum, piled up, and when the call
// returned they all ran nested on the rank's stack until it overflowed (a SIGSEGV with no report; MPICH
// io/i_bigtype, OMPIO's 2 GiB pwrite). A small stack makes the pile-up overflow within a write of 128 MiB.
TEST_P(HangPlacements, LongSystemCallsDoNotPileUpPreemptionSignals)
{
  auto result = run_bxisim("run -n 2 --ppn " + ppn() + " --preempt-after 0.05 --cfg contexts/stack-size:256 " +
                           "--wall-limit 100 " + test_program("long_syscall") + " 128");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("[rank 0] written=536870912")) << result.output;
}

INSTANTIATE_TEST_SUITE_P(Hang, HangPlacements, testing::Values(1, 2), [](const auto& placement) {
  return placement.param == 1 ? std::string("AcrossNodes") : std::string("InsideANode");
});

TEST(Limits, TheSimulatedTimeLimitStopsRanksThatSleepForever)
{
  constexpr double kLimitTime = 100;
  auto result =
      run_command(hang(fmt::format("-n 2 --no-cpu-simulation --sim-time-limit {}", kLimitTime), "sleep", "all"));
  EXPECT_EQ(result.exit_code, kLimit) << result.output;
  EXPECT_THAT(result.output, HasSubstr("the simulated time limit is reached (--sim-time-limit 100)"));
  // The ranks sleep 1 s at a time from kStartSleep: the last sleep started at the last such date before the limit.
  double last_sleep = kStartSleep + std::floor(kLimitTime - kStartSleep);
  EXPECT_THAT(result.output,
              HasSubstr(fmt::format("ranks 0-1: in a simulator call (computing, sleeping or communicating) since "
                                    "simulated time {:.9f} s",
                                    last_sleep)));
}

TEST(Limits, ARankStoppedWhileReadingTheClockEndsCleanly)
{
  // The ranks wait for time to pass by reading the clock, each read advancing it (nothing else is
  // simulated): the limit's kill lands inside clock_gettime, which glibc declares noexcept. It used to
  // abort the whole simulator (std::terminate); the ranks now leave through their exit jump.
  auto result =
      run_bxisim("run -n 2 -q --no-cpu-simulation --sim-time-limit 0.0001 " + test_program("clocks") + " spin 1");
  EXPECT_EQ(result.exit_code, kLimit) << result.output;
  EXPECT_THAT(result.output, HasSubstr("the simulated time limit is reached"));
  EXPECT_THAT(result.output, Not(HasSubstr("terminate")));
}

TEST(Limits, TheWallLimitStopsRanksThatSleepForever)
{
  auto result = run_command(hang("-n 2 --no-cpu-simulation --wall-limit 1", "sleep", "all"));
  EXPECT_EQ(result.exit_code, kLimit) << result.output;
  EXPECT_THAT(result.output, HasSubstr("the wall-clock limit is reached (--wall-limit 1)"));
  EXPECT_THAT(result.output, testing::ContainsRegex("ranks? (0-1|1): in a simulator call"));
}

namespace
{
void expect_clean_stop(const std::string& signal_name, int signal_number)
{
  std::string tmpdir = fresh_folder("tmpdir-" + signal_name);
  auto result        = interrupt(hang("-n 2 --no-cpu-simulation", "sleep", "all"), signal_name, tmpdir);
  EXPECT_THAT(result.output, HasSubstr("exit=" + std::to_string(128 + signal_number))) << result.output;
  EXPECT_THAT(result.output, HasSubstr("bxisim: stopped by SIG" + signal_name));
  // The ranks sleep in turns: caught between two turns, they may be at different dates.
  EXPECT_THAT(result.output, testing::ContainsRegex("ranks? (0-1|1): in a simulator call"));
  EXPECT_EQ(entry_count(tmpdir), 0);
}
} // namespace

TEST(Interrupt, SigintStopsCleanly)
{
  expect_clean_stop("INT", SIGINT);
}

TEST(Interrupt, SigtermStopsCleanly)
{
  expect_clean_stop("TERM", SIGTERM);
}

TEST(Interrupt, SigpipeStopsCleanly)
{
  expect_clean_stop("PIPE", SIGPIPE);
}

// SIGKILL (the OOM killer, a scheduler's last resort) leaves the copies behind: the next run removes
// them, but not the folder of a run still going nor one kept by --keep-temps.
TEST(Interrupt, TheFolderOfAKilledRunIsRemovedByTheNextRunButNotThoseOfLiveOrKeptRuns)
{
  std::string tmpdir = fresh_folder("tmpdir-KILL");
  auto kept = run_command("TMPDIR=" + tmpdir + " " + kBxisim + " run --keep-temps -n 2 " + test_program("identity"));
  ASSERT_EQ(kept.exit_code, 0) << kept.output;
  auto killed = interrupt(hang("-n 2 --no-cpu-simulation", "sleep", "all"), "KILL", tmpdir);
  ASSERT_THAT(killed.output, HasSubstr("exit=" + std::to_string(128 + SIGKILL))) << killed.output;
  ASSERT_EQ(entry_count(tmpdir), 2);

  std::string live_out = tmpdir + "/../live.out";
  auto next            = run_command(fmt::format("{{ TMPDIR={0} {1} > {2} 2>&1 & pid=$!; "
                                                            "while ! grep -q 'rank 1 started' {2}; do sleep 0.05; done; "
                                                            "TMPDIR={0} {3} run -n 2 {4} && echo folders=$(ls {0} | wc -l); "
                                                            "kill -TERM $pid; wait $pid; }}",
                                                 tmpdir, hang("-n 2 --no-cpu-simulation", "sleep", "all"), live_out, kBxisim,
                                                 test_program("identity")));
  EXPECT_THAT(next.output, HasSubstr("folders=2")) << next.output; // the kept one and the live run's
  EXPECT_EQ(entry_count(tmpdir), 1);                               // the kept one
}

TEST(Interrupt, AClosedOutputStopsTheRunWith141)
{
  std::string status = temporary_path("pipe-status");
  std::string errors = temporary_path("pipe-errors");
  auto result =
      run_command(fmt::format("{{ ( {} 2> {}; echo $? > {} ) | head -n 2; cat {} {}; }}",
                              hang("-n 2 --no-cpu-simulation", "print", "all"), errors, status, status, errors));
  EXPECT_THAT(result.output, HasSubstr("141\n")) << result.output;
  EXPECT_THAT(result.output, HasSubstr("bxisim: stopped (SIGPIPE: the output of bxisim is closed)"));
}

// The same when the output is closed after the ranks ended, before bxisim's summary (`2>&1 | head -n 1`): that write
// failed with an exception and bxisim reported a crash of its own (exit code 4).
TEST(Interrupt, AnOutputClosedBeforeTheSummaryEndsWith141NotACrash)
{
  std::string status = temporary_path("summary-pipe-status");
  auto result        = run_command(fmt::format("{{ ( {} 2>&1; echo $? > {} ) | head -n 1; cat {}; }}",
                                               hang("-n 2 --no-cpu-simulation", "print", "all"), status, status));
  EXPECT_THAT(result.output, HasSubstr("141\n")) << result.output;
}
