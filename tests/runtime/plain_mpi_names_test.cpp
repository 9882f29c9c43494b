// MPI called by its plain names (MPI_x, PMPI_x) by code built with bxisim's mpi.h, behind macros of its own in place of
// mpi.h's (PETSc's logging): the calls reach bxisim's MPI at every level, from the program and from its library.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <tuple>

using namespace bxisim::test;
using testing::HasSubstr;

class PlainMpiNames : public testing::TestWithParam<std::tuple<std::string, int>>
{
};

// Before, the plain names bound to libsimgrid's SMPI: PETSc's make check crashed in SMPI's MPI_Bcast, and this program
// in its MPI_Allreduce.
TEST_P(PlainMpiNames, CallsThroughMacrosOfTheProgramsOwnReachBxisimsMpi)
{
  const auto& [level, ppn] = GetParam();
  constexpr int kRanks     = 4;
  auto result = run_bxisim("run -n " + std::to_string(kRanks) + " --ppn " + std::to_string(ppn) + " --level " + level +
                           " -q --log bxisim_launch.thres:verbose " + test_program("plain_mpi_names"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), static_cast<size_t>(kRanks)) << result.output;
  for (const auto& [rank, values] : fields) {
    EXPECT_EQ(number(values, "sum"), kRanks * (kRanks + 1) / 2) << "rank " << rank;
    if (rank == 0) {
      EXPECT_EQ(number(values, "reduced"), kRanks * (kRanks + 1) / 2);
    }
    EXPECT_EQ(number(values, "token"), 42) << "rank " << rank;
    // The macros of the program and of its library ran (the rank's counter, in its copy of the program), not mpi.h's.
    EXPECT_EQ(number(values, "plain_calls"), 2) << "rank " << rank;
  }
  EXPECT_THAT(result.output, HasSubstr("plain_mpi_names calls 2 MPI function(s) by their plain names"));
  EXPECT_THAT(result.output, HasSubstr("libplain_mpi_names.so calls 1 MPI function(s) by their plain names"));
}

INSTANTIATE_TEST_SUITE_P(EachLevelAcrossNodesAndInsideANode, PlainMpiNames,
                         testing::Combine(testing::Values("smpi", "message", "cycle"), testing::Values(1, 2)),
                         [](const auto& test) {
                           return std::get<0>(test.param) + "_ppn" + std::to_string(std::get<1>(test.param));
                         });
