// Faults of the network under `bxisim run` (issue 8, "faults with nothing lost"): sustained random
// losses survived by E2E with every payload intact, reproducible for a seed; links down; a loss with
// E2E off ends the run saying so; bad --fault values are bad input.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>
#include <regex>

using namespace bxisim::test;
using testing::HasSubstr;

namespace
{
constexpr int kUsage    = 2;
constexpr int kDeadlock = 3;

struct LossyRun {
  CommandResult result;
  Fields initiator, target;
  long lost = -1, retransmissions = -1;
};

// One switch and two nodes: node0-bxi and node1-bxi are the BXI links, node0-nic-loopback the loopback.
const std::string kTwoNodes = "--set platform.topology=single-switch --set platform.nodes=2 ";

/** `lossy_puts COUNT 11` between two ranks (`ppn` per node), with `options`, --nic-stats on. */
LossyRun lossy_puts(int ppn, long count, const std::string& options)
{
  LossyRun run;
  run.result = run_bxisim(fmt::format("run -n 2 --ppn {} --no-cpu-simulation --nic-stats {}{} {} {} 11", ppn, kTwoNodes,
                                      options, test_program("lossy_puts"), count));
  auto ranks = fields_by_rank(run.result.output);
  run.initiator = ranks[0];
  run.target    = ranks[1];
  std::smatch match;
  static const std::regex stats("nic message: frames [0-9]+, lost ([0-9]+), retransmissions ([0-9]+)");
  if (std::regex_search(run.result.output, match, stats)) {
    run.lost            = std::stol(match[1]);
    run.retransmissions = std::stol(match[2]);
  }
  return run;
}
} // namespace

TEST(Faults, TenThousandPutsUnderOnePercentLossArriveIntact)
{
  // Across nodes every frame crosses two BXI links (the initiator's and the target's): about 2% of
  // the requests, ACKs and BXI ACKs are lost and sent again.
  const std::string options = "--set fault.loss_rate=0.01 --set fault.seed=5";
  LossyRun first            = lossy_puts(1, 10000, options);
  ASSERT_EQ(first.result.exit_code, 0) << first.result.output;
  EXPECT_EQ(number(first.target, "intact"), 10000) << first.result.output;
  EXPECT_EQ(number(first.initiator, "ack_failures"), 0);
  // Four frames per Put (request, its BXI ACK, the ACK, its BXI ACK) on two links at 1%: ~800 losses.
  EXPECT_GT(first.lost, 400) << first.result.output;
  EXPECT_LT(first.lost, 1200);
  // A lost request, ACK or BXI ACK of an ACK is sent again by E2E; a lost BXI ACK of a request whose
  // ACK came back needs nothing more: at most one retransmission per loss.
  EXPECT_GT(first.retransmissions, 0);
  EXPECT_LE(first.retransmissions, first.lost);
  std::cout << "lost frames: " << first.lost << ", retransmissions: " << first.retransmissions
            << ", simulated end: " << first.initiator["end"] << " s\n";

  // The same seed gives the same losses and the same simulated times, bit for bit.
  LossyRun second = lossy_puts(1, 10000, options);
  EXPECT_EQ(second.lost, first.lost);
  EXPECT_EQ(second.initiator["end"], first.initiator["end"]);
  EXPECT_EQ(second.target["last_arrival"], first.target["last_arrival"]);
}

TEST(Faults, LossesOfBxiLinksSpareTrafficInsideANode)
{
  // Inside a node frames turn round in the NIC's loopback: no BXI link, nothing lost.
  LossyRun run = lossy_puts(2, 1000, "--set fault.loss_rate=0.01");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  EXPECT_EQ(number(run.target, "intact"), 1000);
  EXPECT_EQ(run.lost, 0);
  EXPECT_EQ(run.retransmissions, 0);
}

class FaultedLink : public testing::TestWithParam<int>
{
 protected:
  /** Node 1's BXI link across nodes, node 0's loopback inside a node. */
  std::string link() const { return GetParam() == 1 ? "node1-bxi" : "node0-nic-loopback"; }
};

TEST_P(FaultedLink, DownForAWhileDelaysButLosesNothing)
{
  LossyRun run = lossy_puts(GetParam(), 50, "--fault link=" + link() + ",down=0,up=3ms");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  EXPECT_EQ(number(run.target, "intact"), 50);
  EXPECT_GT(run.retransmissions, 0);
  EXPECT_LE(run.retransmissions, run.lost);
  EXPECT_GE(number(run.target, "last_arrival"), 3e-3); // nothing crossed the link before it came back
}

TEST_P(FaultedLink, LossWithE2eOffEndsTheRunSayingWhy)
{
  LossyRun run = lossy_puts(GetParam(), 5, "--e2e off --fault link=" + link() + ",down=0");
  EXPECT_EQ(run.result.exit_code, kDeadlock) << run.result.output;
  EXPECT_THAT(run.result.output, HasSubstr("was lost on the wire"));
  EXPECT_THAT(run.result.output, HasSubstr("with E2E off (nic.e2e=false) nothing sends it again, so the operation "
                                           "can never complete"));
}

TEST_P(FaultedLink, ProfileFileTakesTheLinkDown)
{
  std::string profile = temporary_path("profile.txt");
  std::ofstream(profile) << "0 0\n0.002 1\n";
  LossyRun run = lossy_puts(GetParam(), 20, "--fault link=" + link() + ",profile=" + profile);
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  EXPECT_EQ(number(run.target, "intact"), 20);
  EXPECT_GE(number(run.target, "last_arrival"), 2e-3);
}

std::string placement_name(const testing::TestParamInfo<int>& param)
{
  return param.param == 1 ? "TwoNodes" : "OneNode";
}
INSTANTIATE_TEST_SUITE_P(RanksPerNode, FaultedLink, testing::Values(1, 2), placement_name);

TEST(Faults, BadFaultsAreBadInput)
{
  auto unknown =
      run_bxisim("run -n 2 " + kTwoNodes + "--fault link=node0-bix,down=0 " + test_program("ends") + " return all");
  EXPECT_EQ(unknown.exit_code, kUsage) << unknown.output;
  EXPECT_THAT(unknown.output, HasSubstr("the platform has no link 'node0-bix'. Did you mean 'node0-bxi'?"));
  auto syntax = run_bxisim("run -n 2 --fault node0-bxi " + test_program("ends") + " return all");
  EXPECT_EQ(syntax.exit_code, kUsage) << syntax.output;
  EXPECT_THAT(syntax.output, HasSubstr("--fault: bad fault 'node0-bxi'"));
  auto rate = run_bxisim("run -n 2 --set fault.loss_rate=1.5 " + test_program("ends") + " return all");
  EXPECT_EQ(rate.exit_code, kUsage) << rate.output;
  EXPECT_THAT(rate.output, HasSubstr("must be below 1"));
}

TEST(Faults, CycleLevelSurvivesLossesToo)
{
  LossyRun run = lossy_puts(1, 100, "--level cycle --set fault.loss_rate=0.02 --set fault.seed=2");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.output;
  EXPECT_EQ(number(run.target, "intact"), 100);
  std::smatch match;
  static const std::regex stats("nic cycle: .* lost ([0-9]+), retransmissions ([0-9]+)");
  ASSERT_TRUE(std::regex_search(run.result.output, match, stats)) << run.result.output;
  EXPECT_GT(std::stol(match[2]), 0);
  EXPECT_LE(std::stol(match[2]), std::stol(match[1]));
}
