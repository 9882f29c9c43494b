// `bxisim run` launches unmodified programs as isolated ranks: private globals, placement, identity,
// the key/value store and the barrier, output routing, the temporary folder.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
constexpr int kLoops             = 10;    // private_globals: additions per rank
constexpr double kLoopSleep      = 0.001; // seconds slept after each
constexpr int kFirstSimulatedPid = 1000;  // docs/running.md: getpid() returns 1000 + rank

void expect_private_globals(const std::string& program, int ranks)
{
  auto result = run_bxisim("run -n " + std::to_string(ranks) + " --no-cpu-simulation " + program);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(static_cast<int>(fields.size()), ranks) << result.output;
  for (const auto& [rank, values] : fields) {
    EXPECT_EQ(number(values, "rank"), rank);
    // With shared globals, interleaved ranks would add into one another's totals.
    EXPECT_EQ(number(values, "total"), kLoops * rank) << "rank " << rank;
    EXPECT_EQ(number(values, "calls"), kLoops) << "rank " << rank;
    EXPECT_DOUBLE_EQ(number(values, "elapsed"), kLoops * kLoopSleep) << "rank " << rank;
  }
}
} // namespace

TEST(Launch, GlobalsArePrivateAcross64RanksOfACProgram)
{
  expect_private_globals(test_program("private_globals_c"), 64);
}

TEST(Launch, GlobalsArePrivateAcross64RanksOfACxxProgram)
{
  expect_private_globals(test_program("private_globals_cpp"), 64);
}

// The compiler binds these statics STB_GNU_UNIQUE, and the loader gave every rank's copy the first copy's: the ranks
// shared them (miniVite's ranks drew their graph from one random generator, and built another graph than natively).
TEST(Launch, TheStaticsCxxMakesUniqueArePrivateToo)
{
  auto result = run_bxisim("run -n 4 --no-cpu-simulation " + test_program("unique_statics"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 4U) << result.output;
  for (auto& [rank, values] : fields)
    for (const char* name : {"inline_static", "template_member", "thread_local_static"})
      EXPECT_EQ(number(values, name), rank + 1) << name << " of rank " << rank << "\n" << result.output;
}

// Sandia OpenSHMEM over Portals 4 exposes [&__data_start, &_end) as the program's symmetric data and maps its heap
// at a hint above it, telling heap from data by the side of the heap's start: __data_start was the simulator's (a
// shared object has none), and the hint, taken by another rank's heap, gave a heap below the data (wrong offsets).
TEST(Launch, EachRankHasTheLayoutOpenShmemLibrariesAssume)
{
  auto result = run_bxisim("run -n 8 --no-cpu-simulation " + test_program("openshmem_layout"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  for (int rank = 0; rank < 8; ++rank)
    EXPECT_THAT(result.output, HasSubstr("[rank " + std::to_string(rank) + "] rank " + std::to_string(rank) +
                                         ": data bracketed yes, heap above data yes, last byte " +
                                         std::to_string(rank) + ", map32 low yes, stack room left yes"));
}

// mpirun gives each process its rank and its node's share in the environment, which programs read before MPI_Init
// (a GPU per local rank); the ranks share bxisim's environment, where none is set.
TEST(Launch, EachRankReadsItsOwnLauncherVariables)
{
  // and its own copy of the others: strtok cut the shared string up for the ranks after the first (mpiP's MPIP)
  auto result = run_command("OPTIONS_TO_CUT='-a -b -c' '" BXISIM_BINARY "' run -n 4 --ppn 2 --no-cpu-simulation " +
                            test_program("launcher_variables") + " 2>&1");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 4U) << result.output;
  for (auto& [rank, values] : fields) {
    EXPECT_EQ(number(values, "rank"), rank);
    EXPECT_EQ(number(values, "pmix_rank"), rank);
    EXPECT_EQ(number(values, "size"), 4);
    EXPECT_EQ(number(values, "local_rank"), rank % 2);
    EXPECT_EQ(number(values, "node_rank"), rank % 2);
    EXPECT_EQ(number(values, "local_size"), 2);
    EXPECT_EQ(number(values, "options"), 3) << "rank " << rank;
  }
}

// Each rank loads a copy of the program (globals of its own), and the kernel kept each copy's pages apart: N copies of
// the code in memory and in the caches. The code is mapped from the program itself now, as OpenMPI's copies' code is
// from the original library; the data pages stay each copy's own.
TEST(Launch, TheRanksShareTheProgramsCodePages)
{
  struct stat original {
  };
  ASSERT_EQ(stat(test_program("code_pages").c_str(), &original), 0);
  auto result = run_bxisim("run -n 4 --no-cpu-simulation " + test_program("code_pages"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 4U) << result.output;
  for (auto& [rank, values] : fields) {
    EXPECT_EQ(values["code_inode"], std::to_string(original.st_ino)) << "rank " << rank;
    EXPECT_NE(values["data_inode"], std::to_string(original.st_ino)) << "rank " << rank; // the copy's own
  }
}

TEST(Launch, SameRunTwiceGivesTheSameOutput)
{
  // --quiet: the summary table at the end shows wall time and memory, which differ from run to run.
  std::string command = "run -n 16 --no-cpu-simulation --quiet " + test_program("private_globals_c");
  auto first          = run_bxisim(command);
  auto second         = run_bxisim(command);
  EXPECT_EQ(first.exit_code, 0);
  EXPECT_EQ(first.output, second.output);
}

TEST(Launch, EveryOutputLineIsPrefixedByItsRank)
{
  auto result = run_bxisim("run -n 3 " + test_program("ends") + " return all 0");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  for (int rank = 0; rank < 3; ++rank)
    EXPECT_THAT(result.output,
                HasSubstr("[rank " + std::to_string(rank) + "] rank " + std::to_string(rank) + " done\n"));
}

/** Every line of `output` that starts "[rank N] rank " names rank N next; returns how many there were. */
int check_every_line_names_its_rank(const std::string& output)
{
  std::istringstream lines(output);
  int checked = 0;
  for (std::string line; std::getline(lines, line);) {
    int prefix = -1, named = -1;
    if (std::sscanf(line.c_str(), "[rank %d] rank %d", &prefix, &named) != 2)
      continue;
    EXPECT_EQ(prefix, named) << line;
    ++checked;
  }
  return checked;
}

TEST(Launch, OutputGoesToTheRankThatWroteItWhateverTheWay)
{
  constexpr int kRanks = 4, kRounds = 6;
  // per rank and round: stdio, write, stderr, the two halves; then 100 lines written at once
  constexpr int kLines = kRanks * (kRounds * 4 + 100);
  for (const char* mode : {"plain", "blocked"}) {
    auto result = run_bxisim("run -n " + std::to_string(kRanks) + " --no-cpu-simulation -q --no-summary " +
                             test_program("interleaved_output") + " " + std::to_string(kRounds) + " " + mode);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(check_every_line_names_its_rank(result.output), kLines) << mode;
    EXPECT_THAT(result.output, HasSubstr("[rank 3] rank 3 half 5 and half\n"));
  }
}

TEST(Launch, NoRankPrefixLeavesTheRanksOutputAsWritten)
{
  auto result = run_bxisim("run -n 3 --no-rank-prefix " + test_program("ends") + " return all 0");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  for (int rank = 0; rank < 3; ++rank)
    EXPECT_THAT(result.output, HasSubstr("rank " + std::to_string(rank) + " done\n"));
  EXPECT_THAT(result.output, Not(HasSubstr("[rank")));
}

TEST(Launch, NoRankPrefixAndOutputDirExcludeEachOther)
{
  auto result = run_bxisim("run -n 2 --no-rank-prefix --output-dir " + fresh_folder("outputs") + " " +
                           test_program("ends") + " return all 0");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr("--output-dir excludes --no-rank-prefix"));
}

TEST(Launch, OptionsAfterTheProgramBelongToTheProgram)
{
  // clocks rejects an unknown sleep function with exit code 2: bxisim reports the rank, not a usage error of its own
  // (and ends with the rank's code, as mpirun).
  auto result = run_bxisim("run -n 1 " + test_program("clocks") + " --help 1");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr("[rank 0] unknown sleep function --help"));
  EXPECT_THAT(result.output, HasSubstr("rank 0 (exit code 2)"));
}

// GA's test scripts (mpirun's --output-filename makes its folder): a missing folder is made.
TEST(Launch, OutputDirHoldsOneFilePerRankAndStream)
{
  std::string folder = fresh_folder("outputs") + "/made/by/bxisim";
  auto result        = run_bxisim("run -n 2 --output-dir " + folder + " " + test_program("ends") + " exit 1 3");
  EXPECT_EQ(result.exit_code, 3) << result.output; // rank 1's
  EXPECT_THAT(result.output, Not(HasSubstr("[rank")));
  auto read = [&folder](const std::string& name) {
    std::ifstream file(folder + "/" + name);
    std::stringstream content;
    content << file.rdbuf();
    return content.str();
  };
  EXPECT_EQ(read("rank-0.stdout"), "rank 0 done\n");
  EXPECT_EQ(read("rank-1.stdout"), "exiting with 3\n");
  EXPECT_EQ(read("rank-0.stderr"), "");
  EXPECT_EQ(entry_count(folder), 5); // and the run's summary.json (docs/outputs.md)
  EXPECT_THAT(read("summary.json"), HasSubstr("\"schema\": \"bxisim-run-summary\""));
}

namespace
{
struct Mapping {
  const char* map_by;
  int ranks;
  int per_node;
};

/** The placement docs/running.md promises, from its definition. */
void expect_mapping(const Mapping& mapping)
{
  auto result = run_bxisim("run --platform single-switch --set platform.nodes=4 --set node.cores=4 -n " +
                           std::to_string(mapping.ranks) + " --ppn " + std::to_string(mapping.per_node) + " --map-by " +
                           mapping.map_by + " " + test_program("identity"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields    = fields_by_rank(result.output);
  int nodes_used = (mapping.ranks + mapping.per_node - 1) / mapping.per_node;
  std::map<int, int> per_node;
  std::map<int, int> expected_node;
  std::map<int, int> expected_local;
  for (int rank = 0; rank < mapping.ranks; ++rank) {
    int node             = std::string(mapping.map_by) == "core" ? rank / mapping.per_node : rank % nodes_used;
    expected_node[rank]  = node;
    expected_local[rank] = per_node[node]++;
  }
  ASSERT_EQ(static_cast<int>(fields.size()), mapping.ranks);
  for (const auto& [rank, values] : fields) {
    int node = expected_node[rank];
    EXPECT_EQ(number(values, "size"), mapping.ranks);
    EXPECT_EQ(number(values, "node"), node) << "rank " << rank;
    EXPECT_EQ(number(values, "local_rank"), expected_local[rank]) << "rank " << rank;
    EXPECT_EQ(number(values, "local_size"), per_node[node]) << "rank " << rank;
    EXPECT_EQ(values.at("host"), "node" + std::to_string(node)) << "rank " << rank;
    EXPECT_EQ(values.at("uname"), values.at("host")) << "rank " << rank; // uname's node name too
    // getpid() is the rank's, and /proc/<it> the process's; /proc/self/exe names the program, not bxisim
    EXPECT_EQ(values.at("proc_status"), "1") << "rank " << rank;
    EXPECT_EQ(values.at("exe"), test_program("identity")) << "rank " << rank;
    EXPECT_EQ(values.at("invocation"), "identity") << "rank " << rank; // error(), err() and assert() print it
    EXPECT_EQ(values.at("cmdline"), test_program("identity")) << "rank " << rank; // /proc/self/cmdline, not bxisim's
    EXPECT_EQ(values.at("comm"), "identity") << "rank " << rank;
    EXPECT_EQ(number(values, "pid"), kFirstSimulatedPid + rank);
  }
}
} // namespace

TEST(Launch, MapByCoreFillsANodeFirst)
{
  expect_mapping({"core", 7, 3});
}

TEST(Launch, MapByNodeGoesRoundRobin)
{
  expect_mapping({"node", 7, 3});
}

TEST(Launch, DefaultIsOneRankPerCoreOfEachNode)
{
  auto result = run_bxisim("run --platform single-switch --set node.cores=2 -n 3 " + test_program("identity"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  EXPECT_EQ(number(fields[1], "node"), 0);
  EXPECT_EQ(number(fields[2], "node"), 1);
  EXPECT_EQ(number(fields[2], "local_size"), 1);
}

// Programs built with -D_FORTIFY_SOURCE=2 (as distributions build) call the C library's checking forms when a length is
// not a constant: __gethostname_chk, __readlink_chk, __read_chk, __poll_chk... They named the host and bxisim, read
// rank 0's input in rank 1 and waited in real time, none of it simulated.
TEST(Launch, FortifiedCallsSeeTheRanksNodeProgramInputAndTime)
{
  for (int per_node : {1, 2}) {
    auto result = run_command("echo hello | '" BXISIM_BINARY "' run --no-cpu-simulation -n 2 --ppn " +
                              std::to_string(per_node) + " " + test_program("fortified") + " 2>&1");
    ASSERT_EQ(result.exit_code, 0) << result.output;
    auto fields = fields_by_rank(result.output);
    ASSERT_EQ(fields.size(), 2u) << result.output;
    for (const auto& [rank, values] : fields) {
      EXPECT_EQ(values.at("host"), "node" + std::to_string(rank / per_node)) << result.output;
      for (const char* link : {"exe", "exe_at", "exe_real", "canonical"})
        EXPECT_EQ(values.at(link), test_program("fortified")) << link << " of rank " << rank;
      EXPECT_EQ(values.at("input"), rank == 0 ? "hello" : "(eof)") << result.output;
      EXPECT_EQ(values.at("polled"), "0");
      EXPECT_EQ(values.at("ppolled"), "0");
      EXPECT_EQ(number(values, "waited"), 0.75) << "the two timeouts in simulated time, rank " << rank;
    }
  }
}

TEST(Launch, KeyValueStoreAndBarrier)
{
  constexpr int kRanks = 5;
  // Without computation, nothing lets one rank run between another's calls: the worst case for blocking.
  auto result = run_bxisim("run --no-cpu-simulation -n " + std::to_string(kRanks) + " " + test_program("identity"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  for (const auto& [rank, values] : fields) {
    EXPECT_EQ(number(values, "put"), 0);   // BXISIM_SUCCESS
    EXPECT_EQ(number(values, "again"), 1); // BXISIM_ERR_EXIST: keys are written once
    EXPECT_EQ(number(values, "got"), 0);
    EXPECT_EQ(number(values, "size_left"), sizeof(int));
    EXPECT_EQ(number(values, "left_pid"), kFirstSimulatedPid + (rank + kRanks - 1) % kRanks);
    EXPECT_EQ(number(values, "right_pid"), kFirstSimulatedPid + (rank + 1) % kRanks);
    EXPECT_EQ(number(values, "truncated"), 2); // BXISIM_ERR_TRUNC
    EXPECT_EQ(number(values, "full"), sizeof(int));
  }
}

TEST(Launch, KeyValueStoreWithManyWaiters)
{
  // Each rank waits for its right neighbour's key; a put wakes its waiters while other ranks put and
  // wait (a put used to iterate the waiters across its wake-ups and crashed from 9 ranks up).
  constexpr int kRanks = 64;
  auto result = run_bxisim("run --no-cpu-simulation -n " + std::to_string(kRanks) + " " + test_program("kv_ring"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), static_cast<size_t>(kRanks)) << result.output;
  for (const auto& [rank, values] : fields) {
    EXPECT_EQ(number(values, "put"), 0);
    EXPECT_EQ(number(values, "got"), 0);
    EXPECT_EQ(number(values, "right"), 1000 * ((rank + 1) % kRanks));
  }
}

TEST(Launch, TemporaryFolderIsRemovedAtExit)
{
  std::string tmpdir = fresh_folder("tmpdir-removed");
  auto result        = run_command("TMPDIR=" + tmpdir + " '" BXISIM_BINARY "' run -n 4 " + test_program("identity"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(entry_count(tmpdir), 0);
}

TEST(Launch, KeepTempsKeepsEachRanksCopy)
{
  std::string tmpdir = fresh_folder("tmpdir-kept");
  auto result =
      run_command("TMPDIR=" + tmpdir + " '" BXISIM_BINARY "' run --keep-temps -n 3 " + test_program("identity"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  std::smatch match;
  ASSERT_TRUE(std::regex_search(result.output, match, std::regex("kept the temporary folder (\\S+) ")))
      << result.output;
  std::string kept = match[1].str();
  EXPECT_EQ(std::filesystem::path(kept).parent_path(), std::filesystem::path(tmpdir));
  for (int rank = 0; rank < 3; ++rank)
    EXPECT_TRUE(std::filesystem::is_regular_file(kept + "/rank-" + std::to_string(rank) + "/identity"));
  std::filesystem::remove_all(kept);
}
