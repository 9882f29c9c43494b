// MPI called by its plain names (MPI_x, PMPI_x) from code built for bxisim (compiled with bxisim's earlier mpi.h behind
// macros of its own, as PETSc's logging does, or declaring MPI functions itself): the calls reach bxisim's MPI at every
// level, from the program and from its library.

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
    EXPECT_EQ(number(values, "twice"), kRanks * kRanks * (kRanks + 1) / 2) << "rank " << rank;
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

// A plain name stored inside another the rewrite may not change (a profiling layer's MPI_Bcast definition inside its
// PMPI_Bcast call): refused before the run, with the fix, rather than calls that would reach SimGrid's SMPI.
TEST(PlainMpiNamesRefused, APlainNameSharingItsBytesWithADefinitionIsRefusedWithTheFix)
{
  auto result = run_bxisim("run -n 2 " + test_program("plain_profiling_layer"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr("calls MPI functions by their plain names"));
  EXPECT_THAT(result.output, HasSubstr("the name MPI_Bcast shares their bytes"));
  EXPECT_THAT(result.output, HasSubstr("Rebuild it with bxicc"));
}

INSTANTIATE_TEST_SUITE_P(EachLevelAcrossNodesAndInsideANode, PlainMpiNames,
                         testing::Combine(testing::Values("smpi", "message", "cycle"), testing::Values(1, 2)),
                         [](const auto& test) {
                           return std::get<0>(test.param) + "_ppn" + std::to_string(std::get<1>(test.param));
                         });
