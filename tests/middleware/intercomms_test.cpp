// Inter-communicators at every level this build has, across nodes (--ppn 1) and inside a node (--ppn 2), with
// groups of equal and unequal sizes. SMPI 3.32 has none (MPI_Intercomm_create ended the job at smpi; MPICH's
// test utilities make them in every communicator loop): bxisim's (middleware/SmpiIntercomms.cpp).

#include "MpiTestLevels.hpp"
#include "tests/runtime/RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <tuple>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
class Intercomms : public testing::TestWithParam<std::tuple<std::string, int>> // level, ranks per node
{
 protected:
  /** The test program on `ranks` ranks at the test's level and placement, with `mode` as its argument. */
  CommandResult run(int ranks, const std::string& mode = "") const
  {
    return run_command("'" BXISIM_BINARY "' run -q --no-summary --no-cpu-simulation --wall-limit 60 -n " +
                       std::to_string(ranks) + " --level " + std::get<0>(GetParam()) + " --ppn " +
                       std::to_string(std::get<1>(GetParam())) + " " BXISIM_MW_TEST_PROGRAMS "/intercomms " + mode +
                       " 2>&1");
  }
  /** Ran well, no check failed, every rank printed `field`=1. */
  static void expect_every_rank(const CommandResult& result, int ranks, const std::string& field)
  {
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_THAT(result.output, Not(HasSubstr("bad_"))) << result.output;
    auto fields = fields_by_rank(result.output);
    ASSERT_EQ(fields.size(), static_cast<size_t>(ranks)) << result.output;
    for (auto& [rank, mine] : fields)
      EXPECT_EQ(mine[field], "1") << "rank " << rank << "\n" << result.output;
  }
};

std::string placement_name(const testing::TestParamInfo<std::tuple<std::string, int>>& param)
{
  return std::get<0>(param.param) + "_ppn" + std::to_string(std::get<1>(param.param));
}
} // namespace

// Queries, point-to-point (statuses name the remote rank), collectives rooted in one group, MPI_Comm_dup,
// MPI_Comm_split and MPI_Intercomm_merge of an inter-communicator between the halves of MPI_COMM_WORLD.
TEST_P(Intercomms, CarryQueriesMessagesCollectivesAndConstructors)
{
  for (int ranks : {4, 5})
    expect_every_rank(run(ranks), ranks, "intercomms");
}

// At smpi, a call the inter-communicators there do not carry (a matched probe) fails through the error handler with
// MPI_ERR_COMM and a message naming the call; OpenMPI carries it at the other levels.
TEST_P(Intercomms, AnUncarriedCallOnOneFailsNamingIt)
{
  auto result = run(4, "uncarried");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  bool smpi = std::get<0>(GetParam()) == "smpi";
  for (auto& [rank, mine] : fields_by_rank(result.output))
    EXPECT_EQ(mine["improbe_class"], smpi ? "comm" : "success") << "rank " << rank << "\n" << result.output;
  if (smpi) {
    EXPECT_THAT(result.output, HasSubstr("MPI_Improbe on an inter-communicator at the smpi level")) << result.output;
  }
}

// A nonblocking collective on an inter-communicator: testing it returns while a rank of the other group has not
// called it yet (that rank waits for a message the tester sends after its test), and two of them complete in the
// reverse order of their calls. At smpi they ran when called: the test never returned.
TEST_P(Intercomms, NonblockingCollectivesReturnFromTestsAndCompleteInAnyOrder)
{
  for (int ranks : {2, 4})
    expect_every_rank(run(ranks, "deferred"), ranks, "deferred");
}

INSTANTIATE_TEST_SUITE_P(Mpi, Intercomms, testing::Combine(testing::ValuesIn(mpi_test_levels()), testing::Values(1, 2)),
                         placement_name);
