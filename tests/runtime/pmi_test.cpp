// PMI-1 (runtime/include/pmi.h): a Portals program that bootstraps with PMI only (its rank, the NIC
// addresses of the others through the key/value space, barriers), across nodes and inside a node;
// PMI_Abort ends the job with its code; PMI's error codes for misuse.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
constexpr int kRanks = 4;

/** The ring over PMI: every rank received its predecessor's number; `clique_of` gives each rank's clique. */
void expect_ring(int ranks_per_node, const std::function<std::string(int)>& clique_of)
{
  std::string trace = temporary_path("pmi-ring-trace");
  auto result       = run_bxisim(fmt::format("run -n {} --ppn {} --no-cpu-simulation --quiet --trace {} {}", kRanks,
                                             ranks_per_node, trace, test_program("pmi_ring")));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  // The Puts go through a logical NI: the timeline names their targets by rank (it showed "nid 1 pid 0", the
  // ptl_process_t read as a physical id).
  std::ifstream file(trace + "/trace.json");
  std::string timeline((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  for (int rank = 0; rank < kRanks; ++rank)
    EXPECT_THAT(timeline, HasSubstr(fmt::format("\"arguments\":\"length=4, target=rank {}\"", rank)));
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

// pmi.barrier_latency: a PMI_Barrier ends that long after the last rank arrives (ranks arrive 1 us apart): 20 us by
// default, 0 and 25 us when set. Across nodes and inside a node.
TEST(Pmi, ABarrierEndsTheLauncherLatencyAfterTheLastArrival)
{
  for (int ranks_per_node : {1, 2})
    for (auto [option, latency] : {std::pair<std::string, double>{"", 2e-5},
                                   {"--set pmi.barrier_latency=0s", 0.0},
                                   {"--set pmi.barrier_latency=25us", 2.5e-5}}) {
      auto result = run_bxisim(fmt::format("run -n {} --ppn {} --no-cpu-simulation --quiet {} {} barrier", kRanks,
                                           ranks_per_node, option, test_program("pmi_ring")));
      ASSERT_EQ(result.exit_code, 0) << result.output;
      auto fields = fields_by_rank(result.output);
      ASSERT_EQ(fields.size(), static_cast<size_t>(kRanks)) << result.output;
      double last_arrival = 0;
      for (int rank = 0; rank < kRanks; ++rank) {
        EXPECT_NEAR(number(fields[rank], "barrier_enter"), rank * 1e-6, 1e-12) << result.output;
        last_arrival = std::max(last_arrival, number(fields[rank], "barrier_enter"));
      }
      for (int rank = 0; rank < kRanks; ++rank)
        EXPECT_NEAR(number(fields[rank], "barrier_leave"), last_arrival + latency, 1e-12) << option << result.output;
    }
}

// The Portals 4 reference suite's pattern (test_search_delete_counter_me_*, the sfw suite's test_eq_overflow-001):
// Puts whose ACKs nobody waits for, then a PMI_Barrier, after which the target expects all of them. A launcher's
// barrier takes that long by default; one that takes no time leaves them on the wire.
TEST(Pmi, PutsInFlightAtABarrierHaveArrivedAfterIt)
{
  for (int ranks_per_node : {1, 2})
    for (auto [option, expected] :
         {std::pair<std::string, std::string>{"", "8 of 8"}, {"--set pmi.barrier_latency=0s", "0 of 8"}}) {
      auto result = run_bxisim(fmt::format("run -n 2 --ppn {} --no-cpu-simulation --quiet {} {} puts_then_barrier",
                                           ranks_per_node, option, test_program("pmi_ring")));
      ASSERT_EQ(result.exit_code, 0) << result.output;
      EXPECT_THAT(result.output, HasSubstr("[rank 1] arrived after the barrier: " + expected)) << option;
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
