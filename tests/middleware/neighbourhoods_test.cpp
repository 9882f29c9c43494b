// Process topologies, neighbour collectives and MPI_Comm_idup at every level this build has, across nodes
// (--ppn 1) and inside a node (--ppn 2). SMPI 3.32 has no graph topology, neighbour collective nor
// MPI_Comm_idup (the job ended at smpi): bxisim's (middleware/SmpiTopologies.cpp, SmpiCompositeRequests.cpp).
// OpenMPI 4.1's MPI_Cart_map and MPI_Graph_map gave a rank outside the topology its own rank (MPICH's cartmap1,
// graphmap1): bxisim answers them at every level.

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
class Neighbourhoods : public testing::TestWithParam<std::tuple<std::string, int>> // level, ranks per node
{
 protected:
  /** `mode` of the neighbourhoods program on 4 ranks: each rank printed `field`=1 and no check failed. */
  void expect_passed(const std::string& mode, const std::string& field) const
  {
    auto result = run_command("'" BXISIM_BINARY "' run -q --no-summary --no-cpu-simulation -n 4 --level " +
                              std::get<0>(GetParam()) + " --ppn " + std::to_string(std::get<1>(GetParam())) + " " +
                              BXISIM_MW_TEST_PROGRAMS "/neighbourhoods " + mode + " 2>&1");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_THAT(result.output, Not(HasSubstr("bad_"))) << result.output;
    EXPECT_THAT(result.output, Not(HasSubstr("modex"))) << result.output; // OpenMPI's topo/treematch
    auto fields = fields_by_rank(result.output);
    ASSERT_EQ(fields.size(), 4U) << result.output;
    for (auto& [rank, mine] : fields)
      EXPECT_EQ(mine[field], "1") << "rank " << rank << "\n" << result.output;
  }
};

std::string placement_name(const testing::TestParamInfo<std::tuple<std::string, int>>& param)
{
  return std::get<0>(param.param) + "_ppn" + std::to_string(std::get<1>(param.param));
}
} // namespace

// Graph and distributed-graph constructors (the last rank outside a graph), their queries on the communicator and
// a duplicate, MPI_Topo_test, MPI_Graph_map and MPI_Cart_map (MPI_UNDEFINED outside); MPI_Dist_graph_create with
// reorder allowed keeps the ranks in order without OpenMPI's topo/treematch errors.
TEST_P(Neighbourhoods, GraphTopologiesAnswerTheirQueries)
{
  expect_passed("graphs", "graphs");
}

// Every neighbour collective, blocking and not, on a periodic ring, a 2 x 2 grid (MPI_PROC_NULL at its edges: the
// blocks stay untouched), a graph and a distributed graph: each block from the right neighbour and the right block
// of it. The nonblocking ones are completed beside point-to-point requests by MPI_Waitall, _Testall, _Waitany,
// _Waitsome, _Testsome and _Testany.
TEST_P(Neighbourhoods, NeighbourCollectivesExchangeWithEachNeighbour)
{
  expect_passed("collectives", "collectives");
}

// MPICH's comm/comm_idup: MPI_Comm_idup does not wait for the other ranks (rank 0 receives from them first).
TEST_P(Neighbourhoods, CommIdupDoesNotWaitForTheOtherRanks)
{
  expect_passed("idup", "idup");
}

INSTANTIATE_TEST_SUITE_P(Mpi, Neighbourhoods,
                         testing::Combine(testing::ValuesIn(mpi_test_levels()), testing::Values(1, 2)), placement_name);
