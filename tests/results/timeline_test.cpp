// --trace DIR: the Chrome trace-event timeline holds the ranks' Portals calls (with sizes and
// peers), each NIC's frames and PCIe transfers at the simulated times the model gives (derived from
// the parameters), link occupancy counters, and agrees with the S4BXI CSV written beside it.

#include "RunFigures.hpp"

#include "tests/support/CommandRunner.hpp"

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using bxisim::test::kPingpong;
using bxisim::test::Path;
using bxisim::test::PingpongFigures;
using bxisim::test::run_bxisim;
using bxisim::test::run_command;
using bxisim::test::temporary_path;

namespace
{
constexpr int kIterations   = 3;
constexpr int kPayload      = 4096;
constexpr double kUs        = 1e6;
constexpr double kTolerance = 1e-6; // microseconds: a picosecond

std::vector<nlohmann::json> events_of(const nlohmann::json& trace, const std::string& phase,
                                      const std::string& category)
{
  std::vector<nlohmann::json> found;
  for (const auto& event : trace["traceEvents"])
    if (event["ph"] == phase && (category.empty() || event.value("cat", "") == category))
      found.push_back(event);
  return found;
}

void check_timeline(Path path)
{
  std::string folder = temporary_path("timeline");
  auto result =
      run_bxisim(std::string("run -n 2 ") + (path == Path::Wire ? "--ppn 1" : "--ppn 2") +
                 " --platform single-switch --no-cpu-simulation -q --no-summary --trace " + folder + " --trace-csv " +
                 folder + " " + kPingpong + " " + std::to_string(kPayload) + " " + std::to_string(kIterations));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::ifstream file(folder + "/trace.json");
  auto trace = nlohmann::json::parse(file, nullptr, false);
  ASSERT_TRUE(trace.is_object()) << "trace.json is not JSON";
  PingpongFigures f;
  int nid1 = path == Path::Wire ? 1 : 0;

  // Rank lanes: each rank Puts kIterations times to its peer, the size and the peer in the arguments
  // (a rank's pid is 1 + its local rank, docs/running.md).
  auto calls = events_of(trace, "X", "portals");
  for (int rank = 0; rank < 2; ++rank) {
    int puts = 0;
    for (const auto& call : calls)
      if (call["name"] == "PtlPut" && call["tid"] == rank) {
        ++puts;
        EXPECT_EQ(call["args"]["arguments"], "length=" + std::to_string(kPayload) + ", target=nid " +
                                                 std::to_string(rank == 0 ? nid1 : 0) + " pid " +
                                                 std::to_string(1 + (path == Path::Wire ? 0 : 1 - rank)));
      }
    EXPECT_EQ(puts, kIterations) << "rank " << rank;
  }
  // The first PtlPut starts the run's first PCIe command, which takes the command's time.
  auto pcie = events_of(trace, "X", "pcie");
  ASSERT_FALSE(pcie.empty());
  EXPECT_EQ(pcie.front()["name"], "PCI_COMMAND");
  EXPECT_NEAR(pcie.front()["dur"].get<double>(), f.command_time(kPayload) * kUs, kTolerance);

  // NIC lanes: every Put frame on the sender's TX lane and the receiver's RX lane, for its time on the links.
  auto sent     = events_of(trace, "X", "tx");
  auto received = events_of(trace, "X", "rx");
  ASSERT_EQ(sent.size(), 2U * kIterations);
  ASSERT_EQ(received.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) {
    EXPECT_THAT(sent[i]["name"].get<std::string>(), testing::StartsWith("PUT to nid "));
    EXPECT_NEAR(sent[i]["dur"].get<double>(), f.frame_time(kPayload, path) * kUs, kTolerance);
    EXPECT_EQ(received[i]["ts"], sent[i]["ts"]);
  }
  // Ranks alternate: frame i+1 starts after frame i ended.
  for (size_t i = 0; i + 1 < sent.size(); ++i)
    EXPECT_GT(sent[i + 1]["ts"].get<double>(), sent[i]["ts"].get<double>() + sent[i]["dur"].get<double>());
  EXPECT_EQ(events_of(trace, "X", "e2e").size(), 2 * sent.size()); // each BXI ACK, on both NICs' E2E lanes
  // The matching lane: each Put from its arrival until the semantics delivered it, which waits for the
  // payload's last PCIe packet in memory (one PCIe packet after arrival, pipelined with the wire).
  auto matched = events_of(trace, "X", "match");
  ASSERT_EQ(matched.size(), sent.size());
  double pcie_bandwidth = std::min(f.p.real("pcie.transfer_bandwidth"), f.p.real("pcie.bus_bandwidth"));
  double deposit        = f.p.real("pcie.transfer_latency") + f.p.real("pcie.bus_latency") +
                   std::min<double>(kPayload, f.p.real("nic.pcie_packet")) / pcie_bandwidth;
  for (size_t i = 0; i < matched.size(); ++i) {
    EXPECT_THAT(matched[i]["name"].get<std::string>(), testing::StartsWith("PUT from nid "));
    EXPECT_NEAR(matched[i]["ts"].get<double>(), received[i]["ts"].get<double>() + received[i]["dur"].get<double>(),
                kTolerance);
    EXPECT_NEAR(matched[i]["dur"].get<double>(), deposit * kUs, kTolerance);
  }

  // Link occupancy counters: on the link class used, at most a Put and a BXI ACK at a time (two virtual
  // networks), back to 0 at the end.
  std::string link = path == Path::Wire ? "wire" : "loopback";
  double peak = 0, last = -1;
  for (const auto& counter : events_of(trace, "C", ""))
    if (counter["name"] == link + " transfers in flight") {
      peak = std::max(peak, counter["args"][link].get<double>());
      last = counter["args"][link].get<double>();
    }
  EXPECT_GE(peak, 1);
  EXPECT_LE(peak, 2);
  EXPECT_EQ(last, 0);

  // The CSV lists the same frames at the same times.
  std::ifstream csv(folder + "/operations.csv");
  std::string line;
  std::vector<double> csv_starts;
  while (std::getline(csv, line))
    if (line.rfind("PUT,", 0) == 0)
      csv_starts.push_back(std::stod(line.substr(line.find(',', line.find(',', 4) + 1) + 1)));
  ASSERT_EQ(csv_starts.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i)
    EXPECT_NEAR(sent[i]["ts"].get<double>(), csv_starts[i] * kUs, kTolerance);
}
} // namespace

TEST(Timeline, PingpongAcrossNodes)
{
  check_timeline(Path::Wire);
}

TEST(Timeline, PingpongInsideANode)
{
  check_timeline(Path::Loopback);
}

TEST(Timeline, AnUnwritableFolderIsAnError)
{
  auto result = run_bxisim("run -n 1 --no-cpu-simulation --trace /proc/no-such-folder " + kPingpong + " 8 1");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, testing::HasSubstr("--trace '/proc/no-such-folder': cannot write"));
}
