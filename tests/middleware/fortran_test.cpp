// MPI from Fortran (bxif90, mpif.h and `use mpi`; middleware/FortranSupport.hpp): the same program at every
// level this build has (BXISIM_MPI_TEST_LEVELS), across nodes (--ppn 1) and inside a node (--ppn 2).

#include "MpiTestLevels.hpp"
#include "tests/runtime/RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <sys/stat.h>
#include <tuple>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
const std::string kPrograms = BXISIM_MW_TEST_PROGRAMS;
constexpr int kRanks        = 4;

class Fortran : public testing::TestWithParam<std::tuple<std::string, int>> // level, ranks per node
{
 protected:
  const std::string& level() const { return std::get<0>(GetParam()); }
  int ppn() const { return std::get<1>(GetParam()); }

  CommandResult run(const std::string& program, const std::string& arguments) const
  {
    return run_command("'" BXISIM_BINARY "' run -q --no-summary --level " + level() + " --no-cpu-simulation -n " +
                       std::to_string(kRanks) + " --ppn " + std::to_string(ppn()) + " " + kPrograms + "/" + program +
                       " " + arguments + " 2>&1");
  }

  /** The run of `program` ended well, no check failed, every rank printed ok=1; its fields by rank. */
  std::map<int, Fields> run_passed(const std::string& arguments, const std::string& program = "fortran_suite") const
  {
    auto result = run(program, arguments);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_THAT(result.output, Not(HasSubstr("bad_"))) << result.output;
    auto fields = fields_by_rank(result.output);
    EXPECT_EQ(fields.size(), static_cast<size_t>(kRanks)) << result.output;
    for (auto& [rank, mine] : fields)
      EXPECT_EQ(mine["ok"], "1") << "rank " << rank << "\n" << result.output;
    return fields;
  }
};

std::string placement_name(const testing::TestParamInfo<std::tuple<std::string, int>>& param)
{
  return std::get<0>(param.param) + "_ppn" + std::to_string(std::get<1>(param.param));
}
} // namespace

// The ping-pong is mpi_suite.c's, call for call: the Fortran bindings add no simulated time, so the times
// are C's to the nanosecond.
TEST_P(Fortran, PointToPointTakesTheSameSimulatedTimeAsC)
{
  auto fields   = run_passed("p2p 65536");
  auto c_result = run("mpi_suite", "p2p 65536");
  ASSERT_EQ(c_result.exit_code, 0) << c_result.output;
  auto c_fields = fields_by_rank(c_result.output);
  for (int rank = 0; rank < kRanks; ++rank) {
    ASSERT_FALSE(fields[rank]["pingpong_time"].empty()) << "rank " << rank;
    EXPECT_DOUBLE_EQ(number(fields[rank], "pingpong_time"), number(c_fields[rank], "pingpong_time")) << "rank " << rank;
    EXPECT_EQ(fields[rank]["ring_from"], std::to_string((rank + kRanks - 1) % kRanks)) << "rank " << rank;
    EXPECT_EQ(fields[rank]["waitany_indices"], "3") << "rank " << rank; // 1 + 2: Fortran counts from 1
  }
  EXPECT_EQ(fields[0]["any_source_sum"], "6"); // 1 + 2 + 3, each with its own tag
}

TEST_P(Fortran, CollectivesWithFortranTypesAndAUserOperation)
{
  auto fields = run_passed("collectives");
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["double_sum"], "8.0") << "rank " << rank; // 0.5 + 1.5 + 2.5 + 3.5
    EXPECT_EQ(mine["in_place_max"], "4") << "rank " << rank;
    EXPECT_EQ(mine["logical_and"], "F") << "rank " << rank; // rank 1 gives .false.
    EXPECT_EQ(mine["user_op"], "10") << "rank " << rank;    // the Fortran procedure's sum
    EXPECT_EQ(mine["user_op_called"], "T") << "rank " << rank;
    EXPECT_EQ(mine["maxloc_value"], "3") << "rank " << rank; // 3 * rank mod 4: 0, 3, 2, 1
    EXPECT_EQ(mine["maxloc_rank"], "1") << "rank " << rank;
    EXPECT_EQ(mine["bcast"], "42") << "rank " << rank;
  }
  EXPECT_EQ(fields[0]["gather_sum"], "14"); // 0 + 1 + 4 + 9
}

TEST_P(Fortran, CommunicatorsAttributesStringsDatatypesAndErrorHandlers)
{
  auto fields = run_passed("comms");
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["half_size"], "2") << "rank " << rank;
    EXPECT_EQ(mine["half_rank"], rank < 2 ? "1" : "0") << "rank " << rank; // key -rank: reversed
    EXPECT_EQ(mine["name"], "the") << "rank " << rank;                     // "the half", trailing blanks dropped
    EXPECT_EQ(mine["name_length"], "8") << "rank " << rank;
    EXPECT_EQ(mine["copied_attribute"], "16") << "rank " << rank; // 5 + 1 + the keyval's extra state 10
    EXPECT_EQ(mine["copied_flag"], "T") << "rank " << rank;
    int sender = (rank + kRanks - 1) % kRanks; // the second row of its 4x3 matrix, through a vector type
    EXPECT_EQ(mine["row_1"], std::to_string(2 + 100 * sender)) << "rank " << rank;
    EXPECT_EQ(mine["row_3"], std::to_string(10 + 100 * sender)) << "rank " << rank;
    EXPECT_EQ(mine["handler_calls"], "1") << "rank " << rank;
    EXPECT_EQ(mine["handler_code"], "16") << "rank " << rank;    // MPI_ERR_OTHER
    EXPECT_EQ(mine["sizeof_character"], "1") << "rank " << rank; // one element of each, from `use mpi`
    EXPECT_EQ(mine["sizeof_double"], "8") << "rank " << rank;
    EXPECT_EQ(mine["sizeof_int2"], "2") << "rank " << rank;
  }
}

// A program of Fortran and C parts: handles cross through C's MPI_x_f2c and MPI_x_c2f (MPI-3.1 17.2.4).
TEST_P(Fortran, HandlesCrossToCAndBack)
{
  auto fields = run_passed("mixed");
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["c_half_size"], "2") << "rank " << rank;
    int sender = (rank + kRanks - 1) % kRanks; // through a datatype C made
    EXPECT_EQ(mine["pair_1"], std::to_string(sender)) << "rank " << rank;
    EXPECT_EQ(mine["pair_2"], std::to_string(-sender)) << "rank " << rank;
  }
}

// MPI-3.1 9: Fortran info keys and values lose their leading and trailing blanks; a missing key leaves the
// value as it was.
TEST_P(Fortran, InfoStringsFollowFortransRules)
{
  auto fields = run_passed("info");
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["found"], "T") << "rank " << rank;
    EXPECT_EQ(mine["value"], "val.") << "rank " << rank;
    EXPECT_EQ(mine["absent_found"], "F") << "rank " << rank;
    EXPECT_EQ(mine["absent_value"], "untouched.") << "rank " << rank;
    EXPECT_EQ(mine["valuelen"], "3") << "rank " << rank;
  }
}

// `print *, f()` where f calls a collective: the first rank holds the unit lock of libgfortran (one for all
// ranks: the simulator's own SimGrid uses it) while it waits for the others, which wait for the lock in
// simulated time. Separate processes would not; the run ends after a simulated second, saying why and what
// to do, instead of running for ever.
// Fortran output into a file (bxisim's stdout redirected): libgfortran buffers units on regular files, so the ranks'
// lines came out at exit, unprefixed, after the summary (and never in --output-dir's files).
TEST_P(Fortran, OutputIntoAFileIsEachRanksAsItIsWritten)
{
  std::string file = temporary_path("fortran_output_" + level() + std::to_string(ppn()) + ".txt");
  auto result =
      run_command("'" BXISIM_BINARY "' run --level " + level() + " --no-cpu-simulation -n " + std::to_string(kRanks) +
                  " --ppn " + std::to_string(ppn()) + " " + kPrograms + "/fortran_suite p2p 8 > '" + file + "' 2>&1");
  ASSERT_EQ(result.exit_code, 0);
  std::ifstream in(file);
  std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t summary = output.find("bxisim: summary");
  ASSERT_NE(summary, std::string::npos) << output;
  for (int rank = 0; rank < kRanks; ++rank) {
    size_t line = output.find("[rank " + std::to_string(rank) + "] ");
    EXPECT_LT(line, summary) << output;
  }
  EXPECT_EQ(fields_by_rank(output).size(), static_cast<size_t>(kRanks)) << output;
}

// MPI-1's routines MPI-3.0 removed, which OpenMPI 4.1's mpif.h still offers and legacy programs call (bxisim refused
// them): the datatypes with INTEGER displacements carry a message, the error handler routines act on MPI_COMM_WORLD.
TEST_P(Fortran, RoutinesMpi3RemovedStillRunAsOpenMpisDo)
{
  auto result = run("removed_mpi1_fortran", "");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto ranks = fields_by_rank(result.output);
  for (int rank = 0; rank < kRanks; ++rank) {
    EXPECT_EQ(ranks[rank]["extent"], "16") << result.output; // an INTEGER and a DOUBLE PRECISION at 8
    EXPECT_EQ(ranks[rank]["lb"], "0") << result.output;
    EXPECT_EQ(ranks[rank]["ub"], "16") << result.output;
    EXPECT_EQ(ranks[rank]["hvector_extent"], "20") << result.output;
    EXPECT_EQ(ranks[rank]["hindexed_ub"], "16") << result.output;
    EXPECT_EQ(ranks[rank]["bounded_extent"], "32") << result.output; // MPI_LB at 0, MPI_UB at 32
    EXPECT_EQ(ranks[rank]["bounded_lb"], "0") << result.output;
    EXPECT_EQ(ranks[rank]["errors_return"], "T") << result.output;
    EXPECT_EQ(ranks[rank]["address_answered"], "T") << result.output;
  }
  EXPECT_EQ(ranks[1]["hvector_first"], "42") << result.output;
  EXPECT_EQ(ranks[1]["hvector_second"], "7") << result.output;
  EXPECT_EQ(ranks[1]["bounded_first"], "11") << result.output; // an INTEGER at 4 in each of two 32-byte elements
  EXPECT_EQ(ranks[1]["bounded_second"], "13") << result.output;
}

// A print whose list calls a collective: each rank's libgfortran holds its own unit lock meanwhile, as in a process
// (the ranks shared one libgfortran, whose unit lock the first rank kept while it waited for the others in the
// allreduce: the run ended after a simulated second of waiting).
TEST_P(Fortran, ACollectiveInsideAPrintRunsAsInAProcess)
{
  auto fields = run_passed("print_sum");
  for (auto& [rank, mine] : fields)
    EXPECT_EQ(mine["sum"], "6") << "rank " << rank; // 0 + 1 + 2 + 3
}

// Fortran units are each rank's (MUMPS's save and restore): every rank opened unit 10 on its own file, and the ranks
// shared libgfortran's table of units, so all lines went into one file and the others stayed empty.
TEST_P(Fortran, UnitsAreEachRanksOwn)
{
  std::string folder = temporary_path("fortran_units_" + level() + std::to_string(ppn()));
  ASSERT_EQ(run_command("mkdir -p '" + folder + "'").exit_code, 0);
  auto fields = run_passed("units '" + folder + "'");
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["lines"], "1") << "rank " << rank;
    EXPECT_EQ(mine["line1"], "written_by_rank_" + std::to_string(rank)) << "rank " << rank;
  }
}

// Each rank's copy of libgfortran maps its code from one file, as the ranks' copies of OpenMPI do: the run's folder
// holds little more than its writable part per rank (2.9 MB each before). The pages where a copy differs from that file
// (the rank's digits in the paths of the libraries it needs) stay the copy's; a Fortran library that a rank opens later
// (whose copy maps its code from one file too) still calls the rank's own units. The ELF header and the symbols stay
// in each copy's file (ABacktraceNamesTheProgramsRoutines).
TEST_P(Fortran, EachRanksLibgfortranSharesItsCodeWithTheOthers)
{
  auto result = run_command("'" BXISIM_BINARY "' run -q --no-summary --keep-temps --level " + level() +
                            " --no-cpu-simulation -n " + std::to_string(kRanks) + " --ppn " + std::to_string(ppn()) +
                            " " + kPrograms + "/fortran_opens_plugin " + kPrograms + "/libfortran_plugin.so 2>&1");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), static_cast<size_t>(kRanks)) << result.output;
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["plugin_rank"], std::to_string(rank)) << result.output;
    EXPECT_EQ(mine["ok"], "1") << result.output;
  }
  std::smatch kept;
  ASSERT_TRUE(std::regex_search(result.output, kept, std::regex("kept the temporary folder (\\S+) \\(--keep-temps\\)")))
      << result.output;
  for (int rank = 0; rank < kRanks; ++rank) {
    struct stat copy {
    };
    std::string path = kept[1].str() + "/rank-" + std::to_string(rank) + "/libgfortran.so.5";
    ASSERT_EQ(stat(path.c_str(), &copy), 0) << path;
    EXPECT_LT(copy.st_blocks * 512, copy.st_size / 4) << path << ": its code is the rank's own on disk";
  }
  run_command("rm -rf '" + kept[1].str() + "'");
}

// A backtrace (gfortran's BACKTRACE, a runtime error's report) names the program's routines: libgfortran's libbacktrace
// reads the rank's copies of the program and of libgfortran, whose headers and symbols stay in their files when their
// code pages are shared ("Could not print backtrace: executable file is not ELF" when they were given back too).
TEST_P(Fortran, ABacktraceNamesTheProgramsRoutines)
{
  auto result = run("fortran_backtrace", "");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, Not(HasSubstr("Could not print backtrace"))) << result.output;
  EXPECT_THAT(result.output, HasSubstr("in __traced_MOD_innermost_routine")) << result.output;
  EXPECT_THAT(result.output, HasSubstr("fortran_backtrace.f90:7")) << result.output;
  EXPECT_EQ(fields_by_rank(result.output).size(), static_cast<size_t>(kRanks)) << result.output;
}

// A shared library built with bxif90 that calls MPI through the Fortran bindings (mpi_comm_rank_, not bxisim_MPI_x) is
// each rank's own, as under mpirun: its module variables were shared (every rank printed the last rank's value).
TEST_P(Fortran, ALibraryBuiltWithBxif90IsEachRanksOwn)
{
  for (auto& [rank, mine] : run_passed("", "fortran_uses_module_library")) {
    EXPECT_EQ(mine["myval"], std::to_string(1000 + rank)) << "rank " << rank;
    EXPECT_EQ(mine["sum"], "4006") << "rank " << rank; // 1000 + 1001 + 1002 + 1003
  }
}

// `use mpi, only: MPI_INIT, ...` compiles and runs, as with OpenMPI's and MPICH's modules: bxisim's module named no MPI
// subroutine ("Symbol 'mpi_init' referenced at (1) not found in module 'mpi'"; OpenCoarrays' initialize_mpi).
TEST_P(Fortran, UseMpiOnlyNamesTheSubroutinesItCalls)
{
  for (auto& [rank, mine] : run_passed("", "fortran_use_only")) {
    EXPECT_EQ(mine["size"], std::to_string(kRanks)) << "rank " << rank;
    EXPECT_EQ(mine["sum"], "6") << "rank " << rank; // 0 + 1 + 2 + 3
  }
}

// A region of a Fortran program (bxisim_regionf.h), run at the test's level inside a run at another one; a
// communicator MPI_COMM_IDUP'ed there is used at the other level.
TEST_P(Fortran, RegionsSwitchLevels)
{
  const std::string other = level() == "smpi" ? "message" : "smpi";
  auto levels             = mpi_test_levels();
  if (std::find(levels.begin(), levels.end(), other) == levels.end())
    GTEST_SKIP() << "this build has no " << other << " level";
  auto result = run_command("'" BXISIM_BINARY "' run --level " + other + " --region exchange=" + level() +
                            " --no-cpu-simulation -n " + std::to_string(kRanks) + " --ppn " + std::to_string(ppn()) +
                            " " + kPrograms + "/fortran_regions 2>&1");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), static_cast<size_t>(kRanks)) << result.output;
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["region_sum"], "6") << "rank " << rank;
    EXPECT_EQ(mine["twin_sum"], "6") << "rank " << rank; // MPI_COMM_IDUP'ed in the region, used after it
  }
  EXPECT_THAT(result.output, testing::ContainsRegex("region exchange +[0-9.]+ s at " + level())) << result.output;
}

INSTANTIATE_TEST_SUITE_P(Mpi, Fortran, testing::Combine(testing::ValuesIn(mpi_test_levels()), testing::Values(1, 2)),
                         placement_name);
