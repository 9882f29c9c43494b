// summary.json: every `bxisim run` writes it; it follows docs/summary.schema.json (checked with
// python3-jsonschema), and its figures are those of the run: parameters with their origin, the
// ranks' ends, time per level, frames per link class derived from the parameters.

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
constexpr int kIterations = 5;
constexpr int kPayload    = 1000;

nlohmann::json read_json(const std::string& path)
{
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << path;
  return nlohmann::json::parse(file, nullptr, false);
}

/** Validates `path` against the schema with python3-jsonschema; returns its verdict ("" when valid). */
std::string schema_errors(const std::string& path)
{
  auto result = run_command(std::string(BXISIM_PYTHON) +
                            " -c 'import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), "
                            "json.load(open(sys.argv[2])))' " +
                            path + " " + BXISIM_SOURCE_DIR "/docs/summary.schema.json");
  return result.exit_code == 0 ? "" : result.output;
}

void check_pingpong_summary(Path path, const std::string& level = "message")
{
  std::string folder = temporary_path("summary");
  std::filesystem::create_directories(folder);
  std::string config = folder + "/study.toml";
  std::ofstream(config) << "[nic]\nflow_control_nic_limit = 4\n";
  std::string summary_path = folder + "/run.json";
  auto result = run_bxisim(std::string("run -n 2 ") + (path == Path::Wire ? "--ppn 1" : "--ppn 2") + " --level " +
                           level + " --platform single-switch --no-cpu-simulation --config " + config +
                           " --set bxi.link_latency=300ns --summary " + summary_path + " " + kPingpong + " " +
                           std::to_string(kPayload) + " " + std::to_string(kIterations));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(schema_errors(summary_path), "");
  auto s = read_json(summary_path);
  ASSERT_TRUE(s.is_object()) << result.output;
  // The table on stderr names the file.
  EXPECT_THAT(result.output, testing::HasSubstr("bxisim: summary of the run (" + summary_path + ")"));

  EXPECT_EQ(s["schema_version"], 1);
  EXPECT_EQ(s["level"], level);
  EXPECT_EQ(s["exit_code"], 0);
  EXPECT_EQ(s["platform"]["topology"], "single-switch");
  EXPECT_EQ(s["platform"]["nodes_used"], path == Path::Wire ? 2 : 1);
  EXPECT_EQ(s["command_line"].back(), std::to_string(kIterations));

  std::map<std::string, nlohmann::json> parameters;
  for (const auto& p : s["parameters"])
    parameters[p["name"]] = p;
  EXPECT_EQ(parameters.size(), bxisim::config::parameter_table().size());
  EXPECT_EQ(parameters["nic.flow_control_nic_limit"]["origin"], "file");
  EXPECT_EQ(parameters["nic.flow_control_nic_limit"]["set_by"], config + ":2");
  EXPECT_EQ(parameters["nic.flow_control_nic_limit"]["value"], "4");
  EXPECT_EQ(parameters["bxi.link_latency"]["origin"], "command line");
  EXPECT_EQ(parameters["bxi.link_latency"]["set_by"], "--set");
  EXPECT_EQ(parameters["platform.topology"]["set_by"], "--platform");
  EXPECT_EQ(parameters["cpu.simulate"]["set_by"], "--no-cpu-simulation");
  EXPECT_EQ(parameters["nic.e2e"]["origin"], "default");

  // Ranks: both exited with 0; the run ends with the last one; without regions every second is at the run's level.
  ASSERT_EQ(s["ranks"].size(), 2U);
  double last = 0;
  for (int r = 0; r < 2; ++r) {
    const auto& rank = s["ranks"][r];
    EXPECT_EQ(rank["status"], "exited");
    EXPECT_EQ(rank["exit_code"], 0);
    last = std::max(last, rank["end_time"].get<double>());
    EXPECT_DOUBLE_EQ(s["levels"][level]["simulated_per_rank"][r].get<double>(), rank["end_time"].get<double>());
  }
  EXPECT_DOUBLE_EQ(s["simulated_time"].get<double>(), last);
  EXPECT_EQ(s["levels"].size(), 1U);
  EXPECT_TRUE(s["regions"].empty());

  // Each iteration: two Puts (no ACK requested) and the BXI ACK of each, all between the two NICs.
  PingpongFigures f;
  f.p.set("bxi.link_latency", "300ns");
  double frames      = 4.0 * kIterations;
  double bytes       = 2.0 * kIterations * (f.frame_bytes(kPayload) + f.frame_bytes(0));
  const char* used   = path == Path::Wire ? "wire" : "loopback";
  const char* unused = path == Path::Wire ? "loopback" : "wire";
  EXPECT_EQ(s["traffic"][used]["messages"].get<double>(), frames);
  EXPECT_EQ(s["traffic"][used]["bytes"].get<double>(), bytes);
  EXPECT_EQ(s["traffic"][unused]["messages"], 0);
  EXPECT_GT(s["traffic"]["pcie"]["messages"].get<double>(), 2.0 * kIterations); // commands, DMA, events
  EXPECT_EQ(s["nic"][level]["frames_sent"].get<double>(), frames);
  EXPECT_EQ(s["nic"][level]["retransmissions"], 0);
  EXPECT_EQ(s["nic"][level]["frames_dropped"], 0);
  // Simulated time: at least the iterations' half round trips, each a command, a frame and its deposit.
  EXPECT_GT(s["simulated_time"].get<double>(),
            2 * kIterations * (f.command_time(kPayload) + f.frame_time(kPayload, path)));
  EXPECT_GT(s["simgrid"]["communications"].get<double>(), frames);
  EXPECT_GT(s["peak_memory_bytes"].get<double>(), 0);
  EXPECT_GT(s["memory_in_use_bytes"].get<double>(), 0);
}
} // namespace

TEST(RunSummary, PingpongAcrossNodesFollowsTheSchemaAndCountsWireFrames)
{
  check_pingpong_summary(Path::Wire);
}

TEST(RunSummary, PingpongInsideANodeFollowsTheSchemaAndCountsLoopbackFrames)
{
  check_pingpong_summary(Path::Loopback);
}

TEST(RunSummary, CycleLevelCountsTheSameFramesAcrossNodes)
{
  check_pingpong_summary(Path::Wire, "cycle");
}

TEST(RunSummary, CycleLevelCountsTheSameFramesInsideANode)
{
  check_pingpong_summary(Path::Loopback, "cycle");
}

TEST(RunSummary, DropsAndRetransmissionsAreCounted)
{
  // The network loses the first frame (a Put): E2E sends it again after its timeout. Across nodes and inside one.
  for (const char* placement : {"--ppn 1", "--ppn 2"}) {
    std::string summary = temporary_path("drops.json");
    auto result         = run_bxisim(std::string("run -n 2 ") + placement +
                                     " --platform single-switch --no-cpu-simulation --set nic.drop_frames=1 -q --summary " +
                                     summary + " " + kPingpong + " 8 2");
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_THAT(result.output, testing::Not(testing::HasSubstr("summary of the run"))); // --quiet
    auto s = read_json(summary);
    EXPECT_EQ(s["nic"]["message"]["frames_dropped"], 1) << placement;
    EXPECT_EQ(s["nic"]["message"]["retransmissions"], 1) << placement;
    EXPECT_EQ(s["nic"]["message"]["frames_sent"], 4 * 2 + 1) << placement;
  }
}

TEST(RunSummary, GoesToTheOutputFolderByDefaultAndCanBeTurnedOff)
{
  std::string folder = temporary_path("outputs");
  std::filesystem::create_directories(folder);
  auto result = run_bxisim("run -n 1 --no-cpu-simulation --output-dir " + folder + " " + kPingpong + " 8 1");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto s = read_json(folder + "/summary.json");
  EXPECT_EQ(s["ranks"].size(), 1U);
  EXPECT_EQ(schema_errors(folder + "/summary.json"), "");

  std::string other = temporary_path("none");
  std::filesystem::create_directories(other);
  result = run_bxisim("run -n 1 --no-cpu-simulation --no-summary --output-dir " + other + " " + kPingpong + " 8 1");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_FALSE(std::filesystem::exists(other + "/summary.json"));
}

TEST(RunSummary, AnUnwritableSummaryIsAnError)
{
  auto result =
      run_bxisim("run -n 1 --no-cpu-simulation --summary /nonexistent-folder/summary.json " + kPingpong + " 8 1");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, testing::HasSubstr("cannot write the run summary to /nonexistent-folder/summary.json"));
}
