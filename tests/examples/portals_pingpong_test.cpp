// examples/portals/pingpong.c under `bxisim run --level message`: its half round trip is what the
// message NIC model gives, derived here from the parameter defaults. Each Put (no ACK requested):
// command over PCIe, BXI packets across two links (or, both ranks on one node, through the NIC's
// loopback), the payload's deposit in memory; the peer answers on its PUT event.

#include "config/Parameters.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

using bxisim::test::run_bxisim;

namespace
{
double half_round_trip_us(const std::string& output)
{
  std::smatch match;
  std::regex pattern("half round trip ([0-9.]+) us");
  if (not std::regex_search(output, match, pattern))
    return -1;
  return std::stod(match[1]);
}

enum class Path { Wire, Loopback };

double expected_half_round_trip(double payload, Path path = Path::Wire)
{
  auto p          = bxisim::config::Parameters::defaults();
  double pcie_lat = p.real("pcie.transfer_latency") + p.real("pcie.bus_latency");
  double pcie_bw  = std::min(p.real("pcie.transfer_bandwidth"), p.real("pcie.bus_bandwidth"));
  double command  = p.real("nic.command_size") + (payload > p.real("nic.inline_max") ? payload : 0);
  double packets  = std::max(1.0, std::ceil(payload / p.real("nic.wire_packet_payload")));
  double wire =
      path == Path::Wire
          ? 2 * p.real("bxi.link_latency") + packets * p.real("nic.wire_packet") / p.real("bxi.link_bandwidth")
          : p.real("bxi.loopback_latency") + packets * p.real("nic.wire_packet") / p.real("bxi.loopback_bandwidth");
  // The peer's PUT event waits for the payload's last PCIe packet to be in memory (one packet).
  double deposit = pcie_lat + std::min(payload, p.real("nic.pcie_packet")) / pcie_bw;
  return pcie_lat + command / pcie_bw + wire + deposit;
}

const std::string kProgram = std::string(BXISIM_EXAMPLE_PROGRAMS) + "/pingpong";
constexpr int kIterations  = 20;
// The program reads time with clock_gettime (nanoseconds) around all iterations and prints the mean.
constexpr double kResolutionUs = 1e-3 / (2 * kIterations);
} // namespace

TEST(PortalsPingpong, EightBytesInline)
{
  auto result = run_bxisim("run -n 2 --ppn 1 --platform single-switch --no-cpu-simulation " + kProgram + " 8 " +
                           std::to_string(kIterations));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, testing::HasSubstr("(nodes 0 and 1)"));
  EXPECT_NEAR(half_round_trip_us(result.output), expected_half_round_trip(8) * 1e6, kResolutionUs);
}

TEST(PortalsPingpong, EightBytesInlineInsideANode)
{
  auto result = run_bxisim("run -n 2 --ppn 2 --platform single-switch --no-cpu-simulation " + kProgram + " 8 " +
                           std::to_string(kIterations));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, testing::HasSubstr("(nodes 0 and 0)"));
  EXPECT_NEAR(half_round_trip_us(result.output), expected_half_round_trip(8, Path::Loopback) * 1e6, kResolutionUs);
}

TEST(PortalsPingpong, DefaultPlacementPutsBothRanksOnOneNode)
{
  // The default --ppn fills a node first: the ping-pong that used to abort (issue 7) runs in node 0.
  auto result = run_bxisim("run -n 2 --no-cpu-simulation " + kProgram + " 8 " + std::to_string(kIterations));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, testing::HasSubstr("(nodes 0 and 0)"));
  EXPECT_NEAR(half_round_trip_us(result.output), expected_half_round_trip(8, Path::Loopback) * 1e6, kResolutionUs);
}

TEST(PortalsPingpong, OneRankPingsItself)
{
  // With one rank, the peer is the rank itself: each iteration is one Put to itself, and the program
  // prints half of it.
  auto result = run_bxisim("run -n 1 --no-cpu-simulation " + kProgram + " 8 " + std::to_string(kIterations));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, testing::HasSubstr("(nodes 0 and 0)"));
  EXPECT_NEAR(half_round_trip_us(result.output), expected_half_round_trip(8, Path::Loopback) / 2 * 1e6, kResolutionUs);
}

TEST(PortalsPingpong, TwoHundredBytesPio)
{
  auto result = run_bxisim("run -n 2 --ppn 1 --platform single-switch --no-cpu-simulation " + kProgram + " 200 " +
                           std::to_string(kIterations));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NEAR(half_round_trip_us(result.output), expected_half_round_trip(200) * 1e6, kResolutionUs);
}

TEST(PortalsPingpong, TwoHundredBytesPioInsideANode)
{
  auto result = run_bxisim("run -n 2 --ppn 2 --platform single-switch --no-cpu-simulation " + kProgram + " 200 " +
                           std::to_string(kIterations));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NEAR(half_round_trip_us(result.output), expected_half_round_trip(200, Path::Loopback) * 1e6, kResolutionUs);
}

TEST(PortalsPingpong, SameSimulatedTimesTwice)
{
  std::string command = "run -n 4 --ppn 2 --platform two-switches --no-cpu-simulation -q " + kProgram + " 4096 5";
  auto first          = run_bxisim(command);
  auto second         = run_bxisim(command);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_EQ(first.output, second.output);
}

TEST(PortalsPingpong, SameSimulatedTimesTwiceInsideANode)
{
  std::string command = "run -n 2 --ppn 2 --platform single-switch --no-cpu-simulation -q " + kProgram + " 4096 5";
  auto first          = run_bxisim(command);
  auto second         = run_bxisim(command);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_THAT(first.output, testing::HasSubstr("(nodes 0 and 0)"));
  EXPECT_EQ(first.output, second.output);
}

TEST(PortalsPingpong, TraceCsvIsWritten)
{
  std::string folder = bxisim::test::temporary_path("pingpong-trace");
  auto result = run_bxisim("run -n 2 --ppn 1 --platform single-switch --no-cpu-simulation --trace-csv " + folder + " " +
                           kProgram + " 8 3");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto lines = bxisim::test::run_command("grep -c '^PUT,' " + folder + "/operations.csv");
  EXPECT_EQ(lines.output, "6\n"); // three round trips
}

TEST(PortalsPingpong, TraceCsvInsideANodeStaysOnNode0)
{
  std::string folder = bxisim::test::temporary_path("pingpong-trace-ppn2");
  auto result = run_bxisim("run -n 2 --ppn 2 --platform single-switch --no-cpu-simulation --trace-csv " + folder + " " +
                           kProgram + " 8 3");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto lines = bxisim::test::run_command("grep -c '^PUT,0,0,' " + folder + "/operations.csv");
  EXPECT_EQ(lines.output, "6\n"); // three round trips, node 0 to node 0
  auto elsewhere =
      bxisim::test::run_command("grep -c -v '^[A-Z_]*,0,0,\\|^operation_type' " + folder + "/operations.csv");
  EXPECT_EQ(elsewhere.output, "0\n"); // nothing leaves node 0
}

TEST(PortalsPingpong, SmpiLevelHasNoNicAndSaysSo)
{
  // --level smpi runs MPI over SimGrid's SMPI: there is no NIC model, so Portals calls are refused.
  auto result = run_bxisim("run -n 2 --level smpi " + kProgram);
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.output, testing::HasSubstr("called a Portals function, but --level smpi has no NIC model"));
}

// The cycle NIC adds its pipeline's cycles (tens of ns) to the message model's times: within 10%.
TEST(PortalsPingpong, CycleLevelAcrossNodes)
{
  auto result = run_bxisim("run -n 2 --ppn 1 --platform single-switch --no-cpu-simulation --level cycle " + kProgram +
                           " 8 " + std::to_string(kIterations));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  double expected = expected_half_round_trip(8) * 1e6;
  EXPECT_NEAR(half_round_trip_us(result.output), expected, 0.1 * expected);
}

TEST(PortalsPingpong, CycleLevelInsideANode)
{
  // Inside a node the NIC loops the Put back: no wire, so no link latency (two links each way).
  auto result = run_bxisim("run -n 2 --ppn 2 --platform single-switch --no-cpu-simulation --level cycle " + kProgram +
                           " 8 " + std::to_string(kIterations));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto p          = bxisim::config::Parameters::defaults();
  double expected = (expected_half_round_trip(8) - 2 * p.real("bxi.link_latency")) * 1e6;
  EXPECT_NEAR(half_round_trip_us(result.output), expected, 0.1 * expected);
}

TEST(PortalsPingpong, PollingLoopLetsSimulatedTimeAdvance)
{
  // A PtlEQGet loop must not stall the simulation; it sees each event at most one poll delay late.
  auto result = run_bxisim("run -n 2 --ppn 1 --platform single-switch --no-cpu-simulation " + kProgram + " 8 " +
                           std::to_string(kIterations) + " poll");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  double measured = half_round_trip_us(result.output);
  double exact    = expected_half_round_trip(8) * 1e6;
  EXPECT_GE(measured, exact - kResolutionUs);
  EXPECT_LE(measured, exact + 1.0); // the polling delay doubles up to 1 us
}

TEST(PortalsPingpong, E2eOffGivesTheSameTimesWithoutLosses)
{
  auto result = run_bxisim("run -n 2 --ppn 1 --platform single-switch --no-cpu-simulation --e2e off " + kProgram +
                           " 8 " + std::to_string(kIterations));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NEAR(half_round_trip_us(result.output), expected_half_round_trip(8) * 1e6, kResolutionUs);
}

TEST(PortalsPingpong, PollingLoopInsideANode)
{
  auto result = run_bxisim("run -n 2 --ppn 2 --platform single-switch --no-cpu-simulation " + kProgram + " 8 " +
                           std::to_string(kIterations) + " poll");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  double measured = half_round_trip_us(result.output);
  double exact    = expected_half_round_trip(8, Path::Loopback) * 1e6;
  EXPECT_GE(measured, exact - kResolutionUs);
  EXPECT_LE(measured, exact + 1.0); // the polling delay doubles up to 1 us
}

TEST(PortalsPingpong, E2eOffInsideANode)
{
  auto result = run_bxisim("run -n 2 --ppn 2 --platform single-switch --no-cpu-simulation --e2e off " + kProgram +
                           " 8 " + std::to_string(kIterations));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NEAR(half_round_trip_us(result.output), expected_half_round_trip(8, Path::Loopback) * 1e6, kResolutionUs);
}

// Each NIC model logs under its own category; the cycle model's lives in a plugin loaded for the run, and its
// category can still be named on the command line.
TEST(PortalsPingpong, EachNicModelLogsUnderItsOwnCategory)
{
  for (const char* level : {"message", "cycle"}) {
    for (int ppn : {1, 2}) {
      std::string category = std::string("bxisim_nic_") + level;
      auto result = run_bxisim("run -n 2 --ppn " + std::to_string(ppn) + " --level " + level + " --log=" + category +
                               ".thres:debug --no-cpu-simulation " + kProgram + " 8 1");
      ASSERT_EQ(result.exit_code, 0) << result.output;
      EXPECT_THAT(result.output, testing::HasSubstr("[" + category + "/DEBUG] submit Put")) << level << " ppn " << ppn;
    }
  }
}
