// The summary's time per level and per region, and the timeline's region markers, for
// tests/middleware/programs/regions.c (nested): "setup" holds a 1 ms sleep and "exchange" (2 ms and
// a barrier), then "solve" (5 ms and a barrier) twice. The same barrier everywhere, so the regions'
// times follow from the sleeps and one barrier's time, across nodes and inside a node.

#include "tests/support/CommandRunner.hpp"

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

using bxisim::test::run_bxisim;
using bxisim::test::run_command;
using bxisim::test::temporary_path;

namespace
{
const std::string& regions_program()
{
  static const std::string path = [] {
    std::string binary = temporary_path("regions");
    auto build =
        run_command(BXISIM_BIN_DIR "/bxicc -O1 " BXISIM_SOURCE_DIR "/tests/middleware/programs/regions.c -o " + binary);
    EXPECT_EQ(build.exit_code, 0) << build.output;
    return binary;
  }();
  return path;
}

nlohmann::json read_json(const std::string& path)
{
  std::ifstream file(path);
  return nlohmann::json::parse(file, nullptr, false);
}

void check_regions(int ppn)
{
  std::string summary_path = temporary_path("regions-summary.json");
  std::string trace        = temporary_path("regions-trace");
  auto result =
      run_bxisim("run -n 2 --ppn " + std::to_string(ppn) + " --level smpi --no-cpu-simulation --region " +
                 "solve=smpi --summary " + summary_path + " --trace " + trace + " " + regions_program() + " nested");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto s = read_json(summary_path);
  ASSERT_TRUE(s.is_object());
  std::map<std::string, nlohmann::json> regions;
  for (const auto& region : s["regions"])
    regions[region["name"]] = region;
  ASSERT_EQ(regions.size(), 3U) << s["regions"].dump();
  EXPECT_EQ(regions["setup"]["entries"], 1);
  EXPECT_EQ(regions["exchange"]["entries"], 1);
  EXPECT_EQ(regions["solve"]["entries"], 2);
  for (const auto& [name, region] : regions)
    EXPECT_EQ(region["level"], "smpi") << name; // one back end per run: every region runs at the run's level
  double exchange = regions["exchange"]["simulated_max"].get<double>();
  double barrier  = exchange - 0.002;
  EXPECT_GT(barrier, 0.0);
  EXPECT_NEAR(regions["setup"]["simulated_max"].get<double>(), 0.001 + exchange, 1e-9);
  EXPECT_NEAR(regions["solve"]["simulated_max"].get<double>(), 2 * (0.005 + barrier), 1e-9);
  // The whole of each rank's life is at the run's level.
  ASSERT_EQ(s["levels"].size(), 1U);
  for (int r = 0; r < 2; ++r)
    EXPECT_NEAR(s["levels"]["smpi"]["simulated_per_rank"][r].get<double>(), s["ranks"][r]["end_time"].get<double>(),
                1e-12);
  EXPECT_THAT(result.output, testing::HasSubstr("region solve"));

  // The timeline marks every boundary on every rank: 2 per region entry.
  auto timeline = read_json(trace + "/trace.json");
  std::map<int, int> markers;
  for (const auto& event : timeline["traceEvents"])
    if (event["ph"] == "i" && event["cat"] == "region")
      ++markers[event["tid"].get<int>()];
  EXPECT_EQ(markers[0], 2 * (1 + 1 + 2));
  EXPECT_EQ(markers[1], 2 * (1 + 1 + 2));
}
} // namespace

TEST(RegionSummary, TimePerRegionAndLevelAcrossNodes)
{
  check_regions(1);
}

TEST(RegionSummary, TimePerRegionAndLevelInsideANode)
{
  check_regions(2);
}
