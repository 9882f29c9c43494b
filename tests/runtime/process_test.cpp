// A rank behaves like a process of its own where programs can tell: getopt's scan, the random
// generators, signals sent to itself, exit handlers, the exceptions it handles; it cannot fork or exec, and its
// host commands (system, popen, posix_spawn) run on the host.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unistd.h>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
constexpr int kRankFailed        = 1; // docs/running.md, "Exit codes"
constexpr int kFirstSimulatedPid = 1000;

CommandResult run_program(int ranks, const std::string& program, const std::string& arguments)
{
  return run_bxisim("run -n " + std::to_string(ranks) + " --no-cpu-simulation " + test_program(program) + " " +
                    arguments);
}
} // namespace

TEST(Getopt, EveryRankParsesItsOwnArgumentsWhileScansInterleave)
{
  // A cluster (-vq), a separate argument (-m 4:64), a long option with a separate argument, a
  // unique prefix with '=' (--warm=3), and non-options that GNU getopt moves after the options.
  const std::vector<std::string> arguments = {"-vq", "-m", "4:64", "--iterations", "7", "file1", "--warm=3", "file2"};
  std::string line;
  for (const auto& argument : arguments)
    line += argument + " ";
  constexpr int kRanks = 4;
  auto result          = run_program(kRanks, "options", line);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(static_cast<int>(fields.size()), kRanks) << result.output;
  int argc = 1 + static_cast<int>(arguments.size());
  for (const auto& [rank, values] : fields) {
    EXPECT_EQ(values.at("verbose"), "1") << "rank " << rank;
    EXPECT_EQ(values.at("quiet"), "1") << "rank " << rank;
    EXPECT_EQ(values.at("sizes"), "4:64") << "rank " << rank;
    EXPECT_EQ(values.at("iterations"), "7") << "rank " << rank;
    EXPECT_EQ(values.at("warmup"), "3") << "rank " << rank;
    EXPECT_EQ(values.at("bad"), "0") << "rank " << rank;
    EXPECT_EQ(number(values, "optind"), argc - 2) << "rank " << rank; // the two non-options, moved last
    EXPECT_EQ(values.at("rest"), "file1,file2") << "rank " << rank;
  }
}

TEST(Getopt, ErrorsNameTheProgramAndEachRankReportsItsOwn)
{
  auto result = run_program(2, "options", "-z --iterations");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (int rank = 0; rank < 2; ++rank) {
    std::string prefix = "[rank " + std::to_string(rank) + "] ";
    EXPECT_THAT(result.output, HasSubstr(prefix + test_program("options") + ": invalid option -- 'z'"));
    EXPECT_THAT(result.output,
                HasSubstr(prefix + test_program("options") + ": option '--iterations' requires an argument"));
    EXPECT_EQ(fields_by_rank(result.output)[rank].at("bad"), "2");
  }
}

TEST(Random, EachRankHasTheGeneratorOfANewProcess)
{
  constexpr unsigned kSeed = 42;
  auto result              = run_program(3, "random", std::to_string(kSeed));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 3U);
  // What libc gives a process: unseeded, as after srand(1) and a zeroed drand48 state.
  auto expected = [](unsigned seed, bool seeded) {
    std::srand(seed);
    int first  = std::rand();
    int second = std::rand();
    long third = random();
    drand48_data state{};
    if (seeded)
      srand48_r(seed, &state);
    long fourth = 0;
    lrand48_r(&state, &fourth);
    return std::vector<std::string>{std::to_string(first), std::to_string(second), std::to_string(third),
                                    std::to_string(fourth)};
  };
  auto seeded   = expected(kSeed, true);
  auto unseeded = expected(1, false);
  for (const auto& [rank, values] : fields) {
    const auto& want = rank == 0 ? seeded : unseeded;
    EXPECT_EQ(values.at("first"), want[0]) << "rank " << rank;
    EXPECT_EQ(values.at("second"), want[1]) << "rank " << rank;
    EXPECT_EQ(values.at("third"), want[2]) << "rank " << rank;
    EXPECT_EQ(values.at("fourth"), want[3]) << "rank " << rank;
  }
}

TEST(Signals, AHandledSignalRunsTheRanksOwnHandler)
{
  auto result = run_program(3, "signals", "handled");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 3U);
  for (const auto& [rank, values] : fields) {
    EXPECT_EQ(values.at("count"), "4") << "rank " << rank; // kill, raise, sigqueue, pthread_kill
    EXPECT_EQ(number(values, "value"), 100 + rank) << "rank " << rank;
    EXPECT_EQ(number(values, "pid"), kFirstSimulatedPid + rank) << "rank " << rank;
    EXPECT_EQ(number(values, "own_pid"), kFirstSimulatedPid + rank) << "rank " << rank;
  }
}

TEST(Signals, AnUnhandledSignalEndsOnlyThatRankAndIsNamed)
{
  auto result = run_program(3, "signals", "unhandled 1 " + std::to_string(SIGTERM));
  EXPECT_EQ(result.exit_code, kRankFailed) << result.output;
  EXPECT_THAT(result.output, HasSubstr("1 of 3 rank(s) failed: rank 1 (killed by SIGTERM)"));
  EXPECT_THAT(result.output, Not(HasSubstr("survived")));
  EXPECT_THAT(result.output, Not(HasSubstr("[rank 1] rank 1 done")));
  EXPECT_THAT(result.output, HasSubstr("[rank 0] rank 0 done"));
  EXPECT_THAT(result.output, HasSubstr("[rank 2] rank 2 done"));
}

// HDF5's tests arm alarm(1200) as a watchdog: the real SIGALRM would end the whole simulator with no report (the
// rank's handlers are its own, never the process's). A rank's timers are not armed, and bxisim says so.
TEST(Signals, ARanksWallClockTimersAreNotArmed)
{
  auto result = run_program(2, "signals", "timers");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 0 called alarm: timers count wall time"));
  EXPECT_THAT(result.output, HasSubstr("rank 1 called setitimer"));
  for (const auto& [rank, values] : fields_by_rank(result.output)) {
    EXPECT_EQ(values.at("timers_set"), "0") << "rank " << rank;
    EXPECT_EQ(values.at("alarm_left"), "0") << "rank " << rank;
  }
}

TEST(Signals, SigkillCannotBeCaughtAndEndsTheRank)
{
  auto result = run_program(2, "signals", "unhandled 0 " + std::to_string(SIGKILL));
  EXPECT_EQ(result.exit_code, kRankFailed) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 0 (killed by SIGKILL)"));
  EXPECT_THAT(result.output, HasSubstr("[rank 1] rank 1 done"));
}

TEST(Signals, IgnoredSignalsLeaveTheRankRunning)
{
  auto result = run_program(2, "signals", "ignored");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const auto& [rank, values] : fields_by_rank(result.output))
    EXPECT_EQ(values.at("ignored"), "yes") << "rank " << rank;
}

TEST(Signals, ARankCannotSignalAProcessOfTheHost)
{
  auto result = run_program(2, "signals", "outside");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 2U);
  for (const auto& [rank, values] : fields) {
    EXPECT_EQ(values.at("parent"), "-1/ESRCH") << "rank " << rank;
    EXPECT_EQ(values.at("init"), "-1/ESRCH") << "rank " << rank;
    EXPECT_EQ(values.at("group"), "-1/EPERM") << "rank " << rank;
    EXPECT_EQ(values.at("other_exists"), "0") << "rank " << rank;
  }
  EXPECT_THAT(result.output, HasSubstr("bxisim never signals processes of the host"));
}

// fork and exec fail with a message (the child would be a copy of the simulator, exec would replace it); system,
// popen and posix_spawn start their program at once and run it on the host, as under mpirun (they failed with ENOSYS
// like fork: a program making its output folder with system("mkdir -p ...") could not run).
TEST(Spawn, ForkAndExecFailWhileHostCommandsRun)
{
  std::string folder = fresh_folder("spawn-files");
  auto result        = run_program(2, "spawn", folder);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 2U);
  for (const auto& [rank, values] : fields) {
    EXPECT_EQ(values.at("fork"), "-1/ENOSYS") << "rank " << rank;
    EXPECT_EQ(values.at("exec"), "-1/ENOSYS") << "rank " << rank;
    EXPECT_EQ(values.at("system"), "0") << "rank " << rank;
    EXPECT_EQ(values.at("popen"), "from-popen") << "rank " << rank;
    EXPECT_EQ(values.at("spawn"), "0/0") << "rank " << rank;
    EXPECT_EQ(values.at("shell_available"), "1") << "rank " << rank;
    EXPECT_EQ(number(values, "took"), 0.0) << "rank " << rank; // no simulated time
    std::ifstream written(folder + "/rank" + std::to_string(rank) + ".txt");
    std::string line;
    std::getline(written, line);
    EXPECT_EQ(line, "rank" + std::to_string(rank)) << "the shell of rank " << rank << " wrote its file";
    std::string prefix = "rank " + std::to_string(rank) + " called ";
    EXPECT_THAT(result.output, HasSubstr(prefix + "fork()"));
    EXPECT_THAT(result.output, HasSubstr(prefix + "execlp(\"echo\")"));
  }
  EXPECT_THAT(result.output, HasSubstr("the command runs on the host, outside the simulation"));
  EXPECT_THAT(result.output, Not(HasSubstr("from-exec")));
  // No second simulator ran in a child: each rank ended once.
  EXPECT_EQ(result.output.find("rank 0 done"), result.output.rfind("rank 0 done"));
}

namespace
{
/** atexit: the handlers run when each rank returns or exits, last registered first; `code` is the exit code. */
void expect_exit_handlers_ran(const std::string& how, int code)
{
  constexpr int kRanks      = 3;
  constexpr double kSkew    = 10e-6; // atexit.c: rank r sleeps 10 r us before ending
  constexpr double kHandler = 1e-3;  // the second handler sleeps 1 ms
  auto result               = run_program(kRanks, "atexit", how + " " + std::to_string(code));
  EXPECT_EQ(result.exit_code, code) << result.output; // the ranks' own, as mpirun's
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(static_cast<int>(fields.size()), kRanks) << result.output;
  for (const auto& [rank, values] : fields) {
    EXPECT_EQ(values.at("second_order"), "1") << "rank " << rank;
    EXPECT_EQ(values.at("first_order"), "2") << "rank " << rank;
    EXPECT_NEAR(number(values, "second_time"), kSkew * rank + kHandler, 1e-9) << "rank " << rank;
  }
  if (code != 0) { // every rank failed alike: named once, as a range
    EXPECT_THAT(result.output,
                HasSubstr("ranks 0-" + std::to_string(kRanks - 1) + " (exit code " + std::to_string(code) + ")"));
  }
}
} // namespace

TEST(ExitHandlers, RunWhenARankReturnsFromMain)
{
  expect_exit_handlers_ran("return", 0);
  expect_exit_handlers_ran("return", 5);
}

TEST(ExitHandlers, RunWhenARankCallsExit)
{
  expect_exit_handlers_ran("exit", 3);
}

TEST(ExitHandlers, DoNotRunOnUnderscoreExit)
{
  auto result = run_program(2, "atexit", "_exit 0");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, Not(HasSubstr("_order")));
}

TEST(ExitHandlers, StaticObjectsOfARankAreDestroyedWhenItEnds)
{
  constexpr int kRanks        = 3;
  constexpr double kSleepEach = 100e-6; // destructors.cpp: rank r sleeps 100 (r + 1) us
  auto result                 = run_program(kRanks, "destructors", "");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(static_cast<int>(fields.size()), kRanks) << result.output;
  for (const auto& [rank, values] : fields) {
    EXPECT_EQ(number(values, "destroyed"), rank); // each rank destroys its own copy
    EXPECT_NEAR(number(values, "time"), kSleepEach * (rank + 1), 1e-12) << "rank " << rank;
  }
}

// All ranks share one process, which glibc lets have PTHREAD_KEYS_MAX (1024) thread-specific data keys: every
// rank's copy of OpenMPI makes its own, and from about 1000 ranks on OpenMPI printed "Out of resource" for
// each rank left. Two ranks of 700 keys each: the keys glibc cannot give are bxisim's, and behave as glibc's
// (values per thread, a key made again starts empty, destructors run as a thread ends).
// libstdc++'s exception state is per thread, and every rank and thread runs on the simulator's one: a rank that slept
// in a catch block and rethrew got the exception another rank had caught meanwhile. Each rank and thread now handles
// its own, and a destructor run while an exception unwinds counts that one only.
TEST(Exceptions, EachRankAndThreadHandlesItsOwnAcrossSimulatorCalls)
{
  auto result = run_program(3, "handled_exceptions", "");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 3U) << result.output;
  for (const auto& [rank, values] : fields) {
    EXPECT_EQ(values.at("own"), "1") << "rank " << rank;
    EXPECT_EQ(values.at("thread0_own"), "1") << "rank " << rank;
    EXPECT_EQ(values.at("thread1_own"), "1") << "rank " << rank;
    EXPECT_EQ(values.at("main_own"), "1") << "rank " << rank;
    EXPECT_EQ(values.at("in_flight"), rank == 0 ? "1" : "0") << "rank " << rank;
  }
}

// A named semaphore is how processes of a node wait for each other without MPI: rank 0's sem_wait put the simulator's
// only thread to sleep until a post only rank 1 could make. It waits in simulated time now, across ranks.
TEST(NamedSemaphores, RanksShareOneAndWaitInSimulatedTime)
{
  std::string name = "/bxisim-test-" + std::to_string(getpid());
  auto result      = run_program(2, "named_semaphore", name);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  EXPECT_EQ(fields[1]["opened"], "1") << result.output;
  EXPECT_EQ(fields[1]["value_after_post"], "0"); // the post went to rank 0's wait
  EXPECT_EQ(fields[0]["posted_after"], "30000");
  EXPECT_EQ(fields[0]["timed_out"], "1");
  EXPECT_EQ(fields[0]["timed_out_after"], "20000");
}

TEST(ThreadKeys, MoreKeysThanTheProcessMayHaveWork)
{
  auto result = run_program(2, "thread_keys", "700");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 2u) << result.output;
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["made"], "700") << "rank " << rank;
    EXPECT_EQ(mine["wrong"], "0") << "rank " << rank;
    EXPECT_EQ(mine["empty_again"], "350") << "rank " << rank;
    EXPECT_EQ(mine["destructor_calls"], "700") << "rank " << rank; // the thread's 700 values
  }
}
