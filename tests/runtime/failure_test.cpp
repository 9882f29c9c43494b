// Exit codes, crashes, deadlocks and bad command lines of `bxisim run`.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
// docs/running.md, "Exit codes".
constexpr int kRankFailed = 1;
constexpr int kUsage      = 2;
constexpr int kDeadlock   = 3;
constexpr int kCrash      = 4;

CommandResult run_ends(int ranks, const std::string& arguments, const std::string& tmpdir = "")
{
  std::string environment = tmpdir.empty() ? "" : "TMPDIR=" + tmpdir + " ";
  return run_command(environment + "'" BXISIM_BINARY "' run -n " + std::to_string(ranks) + " " + test_program("ends") +
                     " " + arguments);
}
} // namespace

TEST(Ends, ZeroWhenEveryRankReturnsZero)
{
  EXPECT_EQ(run_ends(4, "return all 0").exit_code, 0);
  EXPECT_EQ(run_ends(4, "exit all 0").exit_code, 0);
}

TEST(Ends, AFailingRankIsNamed)
{
  auto result = run_ends(3, "return 1 5");
  EXPECT_EQ(result.exit_code, kRankFailed);
  EXPECT_THAT(result.output, HasSubstr("1 of 3 rank(s) failed: rank 1 (exit code 5)"));
}

TEST(Ends, ExitEndsOnlyTheCallingRank)
{
  auto result = run_ends(3, "exit 2 7");
  EXPECT_EQ(result.exit_code, kRankFailed) << result.output;
  EXPECT_THAT(result.output, HasSubstr("[rank 2] exiting with 7"));
  EXPECT_THAT(result.output, Not(HasSubstr("[rank 2] rank 2 done")));
  EXPECT_THAT(result.output, HasSubstr("[rank 0] rank 0 done"));
  EXPECT_THAT(result.output, HasSubstr("[rank 1] rank 1 done"));
  EXPECT_THAT(result.output, HasSubstr("rank 2 (exit code 7)"));
}

TEST(Ends, ACrashNamesTheRankPrintsABacktraceAndLeavesNoFiles)
{
  std::string tmpdir = fresh_folder("tmpdir-segv");
  auto result        = run_ends(3, "segv 1", tmpdir);
  EXPECT_EQ(result.exit_code, kCrash) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 1 crashed (Segmentation fault)"));
  EXPECT_THAT(result.output, HasSubstr("Backtrace"));
  EXPECT_THAT(result.output, HasSubstr("rank-1/ends(main+")); // the rank's copy of the program, in the backtrace
  EXPECT_EQ(entry_count(tmpdir), 0);
}

TEST(Ends, AnAbortIsACrashToo)
{
  std::string tmpdir = fresh_folder("tmpdir-abort");
  auto result        = run_ends(2, "abort 0", tmpdir);
  EXPECT_EQ(result.exit_code, kCrash) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 0 crashed (Aborted)"));
  EXPECT_EQ(entry_count(tmpdir), 0);
}

TEST(Ends, ADeadlockNamesTheKeyARankWaitsFor)
{
  std::string tmpdir = fresh_folder("tmpdir-deadlock");
  auto result        = run_ends(3, "kv_never 1", tmpdir);
  EXPECT_EQ(result.exit_code, kDeadlock) << result.output;
  EXPECT_THAT(result.output, HasSubstr("deadlock"));
  EXPECT_THAT(result.output, HasSubstr("rank 1 waits for bxisim_kv_get of key 'never-put'"));
  EXPECT_THAT(result.output, Not(HasSubstr("rank 0 waits")));
  EXPECT_EQ(entry_count(tmpdir), 0);
}

TEST(Ends, ADeadlockNamesTheBarrierRanksWaitIn)
{
  auto result = run_ends(3, "barrier_skip 0");
  EXPECT_EQ(result.exit_code, kDeadlock) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 1 waits for bxisim_barrier (2 of 3 ranks arrived)"));
  EXPECT_THAT(result.output, HasSubstr("rank 2 waits for bxisim_barrier (2 of 3 ranks arrived)"));
}

TEST(BadRunCommandLine, NoProgram)
{
  auto result = run_bxisim("run -n 2");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("give the program to run"));
}

TEST(BadRunCommandLine, MissingProgramFile)
{
  auto result = run_bxisim("run -n 2 ./no-such-program");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("./no-such-program: no such program"));
}

TEST(BadRunCommandLine, ProgramNotBuiltWithTheWrappers)
{
  auto result = run_bxisim("run -n 2 /bin/true");
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr("bxicc"));
}

TEST(BadRunCommandLine, RankCount)
{
  EXPECT_EQ(run_bxisim("run " + test_program("ends")).exit_code, kUsage);
  auto result = run_bxisim("run -n 0 " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("-n"));
}

TEST(BadRunCommandLine, MoreRanksPerNodeThanCores)
{
  auto result = run_bxisim("run --set node.cores=8 -n 4 --ppn 9 " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("--ppn 9: the nodes of this platform have 8 core(s)"));
}

TEST(BadRunCommandLine, MoreRanksThanTheMachineHolds)
{
  auto result =
      run_bxisim("run --platform single-switch --set platform.nodes=2 --set node.cores=4 -n 9 " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("needs 3 nodes"));
  EXPECT_THAT(result.output, HasSubstr("platform.nodes=3"));
}

TEST(BadRunCommandLine, UnknownMapping)
{
  auto result = run_bxisim("run -n 2 --map-by socket " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("--map-by"));
}

TEST(BadRunCommandLine, BadCpuFactor)
{
  auto result = run_bxisim("run -n 2 --cpu-factor -1 " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("cpu.factor"));
}

TEST(BadRunCommandLine, UnknownLibraryToPrivatize)
{
  auto result = run_bxisim("run -n 2 --privatize-lib libnothing.so " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("--privatize-lib libnothing.so: no such library"));
}

TEST(BadRunCommandLine, MissingOutputDir)
{
  auto result = run_bxisim("run -n 2 --output-dir /nonexistent/folder " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("--output-dir"));
}
