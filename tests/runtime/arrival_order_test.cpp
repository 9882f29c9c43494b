// A NIC takes a frame in when it has arrived, whoever sent it: an 8 B Put does not wait behind a
// 64 KiB frame another NIC sent to the same target just before (hw/actors/WireLanes.hpp), at both
// NIC levels. crossing_puts: rank 1 measures its 8 B Put's latency (to its ACK) alone, then 1 us after
// rank 2 started a 64 KiB Put to the same target, rank 0. Across nodes the two frames share the
// target's BXI link for the small frame's one packet, which then takes two packet times instead of
// one; inside a node (ranks 0 and 1 on node 0) the small frame comes over the target NIC's loopback
// and shares nothing with the large one. Before, the small frame waited for the large one's
// transfer to end: 5.2 to 6.3 us more.

#include "RunOutput.hpp"
#include "config/Parameters.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

using namespace bxisim::test;

namespace
{
void expect_the_small_put_not_to_wait(const std::string& level, int ppn)
{
  auto result = run_bxisim(fmt::format("run -n 3 --ppn {} --no-cpu-simulation --level {} {} 65536 1e-6", ppn, level,
                                       test_program("crossing_puts")));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  Fields measured = fields_by_rank(result.output)[1];
  double alone    = number(measured, "alone");
  double crossed  = number(measured, "crossed");
  auto p          = bxisim::config::Parameters::defaults();
  double shared   = ppn == 1 ? p.real("nic.wire_packet") / p.real("bxi.link_bandwidth") : 0.0;
  EXPECT_GE(crossed, alone);
  EXPECT_NEAR(crossed - alone, shared, 1e-12) << "alone " << alone << " s, crossed " << crossed << " s";
}
} // namespace

TEST(ArrivalOrder, MessageLevelSmallPutDoesNotWaitBehindAnotherNicsLargeOneAcrossNodes)
{
  expect_the_small_put_not_to_wait("message", 1);
}

TEST(ArrivalOrder, MessageLevelSmallPutDoesNotWaitBehindAnotherNicsLargeOneInsideANode)
{
  expect_the_small_put_not_to_wait("message", 2);
}

TEST(ArrivalOrder, CycleLevelSmallPutDoesNotWaitBehindAnotherNicsLargeOneAcrossNodes)
{
  expect_the_small_put_not_to_wait("cycle", 1);
}

TEST(ArrivalOrder, CycleLevelSmallPutDoesNotWaitBehindAnotherNicsLargeOneInsideANode)
{
  expect_the_small_put_not_to_wait("cycle", 2);
}
