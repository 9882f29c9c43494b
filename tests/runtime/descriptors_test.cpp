// A rank's file descriptors are numbered as a process's are, from 3, whatever bxisim itself holds: the files
// its options open and the descriptors its caller left open (runtime/os/SimulatorDescriptors.hpp). Programs
// size allocations by those numbers, so any difference moves their buffers and the simulated times.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

using namespace bxisim::test;

namespace
{
constexpr int kRanks            = 2;
constexpr int kFirstOfAProcess  = 3;                      // after stdin, stdout and stderr
const char* const kPlacements[] = {"--ppn 1", "--ppn 2"}; // across nodes, inside a node

/** Runs the program (a file opened, a Put to the next rank, a file opened again) and checks both numbers. */
void expect_process_numbering(const std::string& options, const std::string& redirections = "")
{
  for (const char* placement : kPlacements) {
    auto result = run_bxisim("run -q --no-cpu-simulation -n " + std::to_string(kRanks) + " " + placement + " " +
                             options + " " + test_program("descriptors") + " " + redirections);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    auto fields = fields_by_rank(result.output);
    ASSERT_EQ(static_cast<int>(fields.size()), kRanks) << result.output;
    for (const auto& [rank, values] : fields) {
      EXPECT_EQ(number(values, "before"), kFirstOfAProcess) << placement << " " << options << ", rank " << rank;
      EXPECT_EQ(number(values, "after"), kFirstOfAProcess) << placement << " " << options << ", rank " << rank;
    }
  }
}
} // namespace

TEST(Descriptors, ARankGetsThreeFirstWithoutOptions)
{
  expect_process_numbering("");
}

TEST(Descriptors, TheOperationTraceFileDoesNotTakeARanksNumber)
{
  expect_process_numbering("--level message --trace-csv " + fresh_folder("trace"));
}

TEST(Descriptors, TheVcdFileOfTheCycleNicDoesNotTakeARanksNumber)
{
  // SystemC would open it at the NIC's first time step, in the middle of the run.
  expect_process_numbering("--level cycle --vcd " + fresh_folder("vcd") + "/signals");
}

TEST(Descriptors, SimGridsOwnFilesDoNotTakeARanksNumber)
{
  std::string folder = fresh_folder("simgrid");
  expect_process_numbering("--log=root.app:file:" + folder + "/log --cfg=tracing:yes --cfg=tracing/filename:" + folder +
                           "/trace");
}

TEST(Descriptors, DescriptorsInheritedFromTheCallerDoNotTakeARanksNumber)
{
  expect_process_numbering("", "3</dev/null 4</dev/null 9</dev/null");
}

TEST(Descriptors, TheLimitOfOpenFilesIsRaisedToTheHardLimitForTheRanks)
{
  // Each OpenMPI copy holds three descriptors: the usual soft limit of 1024 stopped MPI runs at about 250 ranks.
  for (const char* placement : kPlacements) {
    auto result =
        run_command("ulimit -S -n 128 && '" + std::string(BXISIM_BINARY) + "' run -q --no-cpu-simulation -n " +
                    std::to_string(kRanks) + " " + placement + " " + test_program("descriptors"));
    ASSERT_EQ(result.exit_code, 0) << result.output;
    auto fields = fields_by_rank(result.output);
    ASSERT_EQ(static_cast<int>(fields.size()), kRanks) << result.output;
    for (const auto& [rank, values] : fields) {
      EXPECT_EQ(values.at("soft_limit"), values.at("hard_limit")) << placement << ", rank " << rank;
      EXPECT_EQ(number(values, "before"), kFirstOfAProcess) << placement << ", rank " << rank;
    }
  }
}

TEST(Descriptors, PerRankOutputFilesDoNotTakeARanksNumber)
{
  for (const char* placement : kPlacements) {
    std::string folder = fresh_folder("output");
    auto result        = run_bxisim("run -q --no-cpu-simulation -n " + std::to_string(kRanks) + " " + placement +
                                    " --output-dir " + folder + " " + test_program("descriptors"));
    ASSERT_EQ(result.exit_code, 0) << result.output;
    for (int rank = 0; rank < kRanks; ++rank) {
      std::ifstream file(folder + "/rank-" + std::to_string(rank) + ".stdout");
      std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
      auto values = fields_of(text);
      ASSERT_TRUE(values.count("after")) << placement << ", rank " << rank << ": " << text;
      EXPECT_EQ(number(values, "before"), kFirstOfAProcess) << placement << ", rank " << rank;
      EXPECT_EQ(number(values, "after"), kFirstOfAProcess) << placement << ", rank " << rank;
      // Kept open from the start: opened by the output's thread as output comes, a file would take a low number
      // for an instant, maybe while a rank opens one of its own.
      EXPECT_EQ(number(values, "output_files_open"), 2 * kRanks) << placement << ", rank " << rank;
    }
  }
}
