// PMI-1 (runtime/include/pmi.h): a Portals program that bootstraps with PMI only (its rank, the NIC
// addresses of the others through the key/value space, barriers), across nodes and inside a node;
// PMI_Abort ends the job with its code; PMI's error codes for misuse.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
constexpr int kRanks = 4;

/** The ring over PMI: every rank received its predecessor's number; `clique_of` gives each rank's clique. */
void expect_ring(int ranks_per_node, const std::function<std::string(int)>& clique_of)
{
  auto result = run_bxisim(fmt::format("run -n {} --ppn {} --no-cpu-simulation --quiet {}", kRanks, ranks_per_node,
                                       test_program("pmi_ring")));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (int rank = 0; rank < kRanks; ++rank)
    EXPECT_THAT(result.output,
                HasSubstr(fmt::format("[rank {0}] pmi rank {0} of {1} (bxisim rank {0}), spawned 0, clique {2}, "
                                      "received {3} at",
                                      rank, kRanks, clique_of(rank), (rank + kRanks - 1) % kRanks)));
}
} // namespace

TEST(Pmi, ARingBootstrappedWithPmiOnlyDeliversAcrossNodes)
{
  expect_ring(1, [](int rank) { return std::to_string(rank); });
}

TEST(Pmi, ARingBootstrappedWithPmiOnlyDeliversInsideANode)
{
  expect_ring(2, [](int rank) { return rank < 2 ? std::string("0 1") : std::string("2 3"); });
}

TEST(Pmi, AbortEndsTheJobWithItsCodeAcrossNodesAndInsideANode)
{
  for (int ranks_per_node : {1, 2}) {
    auto result = run_bxisim(fmt::format("run -n {} --ppn {} --no-cpu-simulation --quiet {} abort 7", kRanks,
                                         ranks_per_node, test_program("pmi_ring")));
    EXPECT_EQ(result.exit_code, 7) << result.output;
    EXPECT_THAT(result.output,
                HasSubstr("bxisim: rank 1 called PMI_Abort with code 7: rank 1 gives up; the job ends."));
    EXPECT_THAT(result.output, HasSubstr("rank 1 ended the job with code 7"));
    EXPECT_THAT(result.output, Not(HasSubstr("received")));
  }
}

// pmi.barrier_latency: a PMI_Barrier ends that long after the last rank arrives (ranks arrive 1 us apart);
// 0, the default, ends it at the last arrival. Across nodes and inside a node.
TEST(Pmi, ABarrierEndsTheLauncherLatencyAfterTheLastArrival)
{
  for (int ranks_per_node : {1, 2})
    for (double latency : {0.0, 2.5e-5}) {
      auto result = run_bxisim(
          fmt::format("run -n {} --ppn {} --no-cpu-simulation --quiet --set pmi.barrier_latency={}s {} barrier", kRanks,
                      ranks_per_node, latency, test_program("pmi_ring")));
      ASSERT_EQ(result.exit_code, 0) << result.output;
      auto fields = fields_by_rank(result.output);
      ASSERT_EQ(fields.size(), static_cast<size_t>(kRanks)) << result.output;
      double last_arrival = 0;
      for (int rank = 0; rank < kRanks; ++rank) {
        EXPECT_NEAR(number(fields[rank], "barrier_enter"), rank * 1e-6, 1e-12) << result.output;
        last_arrival = std::max(last_arrival, number(fields[rank], "barrier_enter"));
      }
      for (int rank = 0; rank < kRanks; ++rank)
        EXPECT_NEAR(number(fields[rank], "barrier_leave"), last_arrival + latency, 1e-12) << result.output;
    }
}

TEST(Pmi, MisuseGetsPmiErrorCodes)
{
  auto result = run_bxisim("run -n 1 --no-cpu-simulation --quiet " + test_program("pmi_ring") + " misuse");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  // Values of MPICH's pmi.h: PMI_ERR_INIT 1, INVALID_ARG 3, INVALID_KEY 4, INVALID_LENGTH 8, PMI_FAIL -1.
  EXPECT_THAT(result.output, HasSubstr("rank before init: 1\n"));
  EXPECT_THAT(result.output, HasSubstr("initialized before init: 0\n"));
  EXPECT_THAT(result.output, HasSubstr("initialized after init: 1, spawned 0\n"));
  EXPECT_THAT(result.output, HasSubstr("name too small: 8\n"));
  EXPECT_THAT(result.output, HasSubstr("absent key: 4\n"));
  EXPECT_THAT(result.output, HasSubstr("other space: 3\n"));
  EXPECT_THAT(result.output, HasSubstr("value too long for the buffer: 8\n"));
  EXPECT_THAT(result.output, HasSubstr("spawn: -1\n"));
  EXPECT_THAT(result.output, HasSubstr("PMI_Spawn_multiple is not supported"));
  EXPECT_THAT(result.output, HasSubstr("rank after finalize: 1\n"));
}
