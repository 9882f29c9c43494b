// `bxisim trace render` and `bxisim plot`: they write PNGs, say what they drew (lanes, curves,
// columns, all derived from the input here), and refuse bad input with exit code 2.

#include "RunFigures.hpp"

#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using bxisim::test::kPingpong;
using bxisim::test::run_bxisim;
using bxisim::test::temporary_path;

namespace
{
bool is_png(const std::string& path)
{
  std::ifstream file(path, std::ios::binary);
  char magic[8] = {};
  file.read(magic, 8);
  return file && std::string(magic + 1, 3) == "PNG" && std::filesystem::file_size(path) > 10000;
}

void check_render(const char* placement, int lanes)
{
  std::string folder = temporary_path("render");
  auto run = run_bxisim(std::string("run -n 2 ") + placement + " --platform single-switch --no-cpu-simulation -q " +
                        "--no-summary --trace " + folder + " " + kPingpong + " 1000 2");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::string png = folder + "/timeline.png";
  auto result     = run_bxisim("trace render " + folder + " -o " + png);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  // Two rank lanes; per NIC that worked: TX, RX, PCIe, E2E, matching (each NIC receives Puts).
  EXPECT_THAT(result.output, testing::HasSubstr("(" + std::to_string(lanes) + " lanes, 0.000-"));
  EXPECT_TRUE(is_png(png));
}
} // namespace

TEST(Draw, TimelineOfAPingpongAcrossNodes)
{
  check_render("--ppn 1", 2 + 2 * 5);
}

TEST(Draw, TimelineOfAPingpongInsideANode)
{
  check_render("--ppn 2", 2 + 5);
}

TEST(Draw, TimelineOfACyclePingpongHasALanePerBusyStage)
{
  std::string folder = temporary_path("render-cycle");
  auto run = run_bxisim("run -n 2 --ppn 1 --level cycle --platform single-switch --no-cpu-simulation -q --no-summary "
                        "--trace " +
                        folder + " " + kPingpong + " 1000 2");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  // The lanes the renderer must draw: every (group, lane) that holds a span (rank lanes are one kind here).
  std::ifstream file(folder + "/trace.json");
  auto trace = nlohmann::json::parse(file, nullptr, false);
  ASSERT_TRUE(trace.is_object());
  std::set<std::pair<int, int>> busy;
  std::set<std::string> stages;
  std::map<std::pair<int, int>, std::string> names;
  for (const auto& event : trace["traceEvents"])
    if (event["ph"] == "M" && event["name"] == "thread_name")
      names[{event["pid"].get<int>(), event["tid"].get<int>()}] = event["args"]["name"];
  for (const auto& event : trace["traceEvents"])
    if (event["ph"] == "X") {
      busy.insert({event["pid"].get<int>(), event["tid"].get<int>()});
      stages.insert(names[{event["pid"].get<int>(), event["tid"].get<int>()}]);
    }
  for (const char* stage : {"command decoder", "address translation", "packetizer (requests)", "wire arbiter",
                            "link port", "depacketizer", "DMA writer", "event engine", "E2E engine"})
    EXPECT_EQ(stages.count(stage), 1U) << stage;
  std::string png = folder + "/timeline.png";
  auto result     = run_bxisim("trace render " + folder + " -o " + png);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, testing::HasSubstr("(" + std::to_string(busy.size()) + " lanes, 0.000-"));
  EXPECT_TRUE(is_png(png));
}

TEST(Draw, LanesKeepsTheMatchingLanesOnly)
{
  std::string folder = temporary_path("render-lanes");
  auto run = run_bxisim("run -n 2 --ppn 1 --platform single-switch --no-cpu-simulation -q --no-summary --trace " +
                        folder + " " + kPingpong + " 1000 2");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  auto ranks = run_bxisim("trace render " + folder + " -o " + folder + "/ranks.png --lanes '^rank'");
  ASSERT_EQ(ranks.exit_code, 0) << ranks.output;
  EXPECT_THAT(ranks.output, testing::HasSubstr("(2 lanes, ")); // the two ranks' Portals lanes
  auto node1 = run_bxisim("trace render " + folder + " -o " + folder + "/node1.png --lanes '^node1 '");
  ASSERT_EQ(node1.exit_code, 0) << node1.output;
  EXPECT_THAT(node1.output, testing::HasSubstr("(5 lanes, ")); // TX, RX, PCIe, E2E, matching
  auto none = run_bxisim("trace render " + folder + " -o " + folder + "/none.png --lanes nothing-like-this");
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_THAT(none.output, testing::HasSubstr("no lane matches --lanes"));
}

TEST(Draw, RenderWithoutATraceSaysWhatIsMissing)
{
  auto result = run_bxisim("trace render " + temporary_path("nothing-here"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, testing::HasSubstr("give the folder of `bxisim run --trace DIR`"));
}

TEST(Draw, PlotOfABenchmarkCsvHasOneCurvePerLevel)
{
  std::string folder = temporary_path("plot");
  std::filesystem::create_directories(folder);
  std::ofstream csv(folder + "/latency.csv");
  csv << "level,size,time_s,bandwidth_Bps\n";
  for (const char* level : {"message", "cycle", "smpi"})
    for (int size = 1; size <= (1 << 20); size *= 4)
      csv << level << "," << size << "," << 1e-6 + size / 1e10 << "," << size / (1e-6 + size / 1e10) << "\n";
  csv.close();
  auto result = run_bxisim("plot " + folder + "/latency.csv");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, testing::HasSubstr("latency.png (time_s, bandwidth_Bps against size, 3 curve(s))"));
  EXPECT_TRUE(is_png(folder + "/latency.png"));
}

TEST(Draw, PlotOfOneRowIsABarPerMeasure)
{
  std::string path = temporary_path("barrier.csv");
  std::ofstream(path) << "benchmark,ranks,bytes,avg_us,min_us,max_us\nbarrier,8,0,3.1,3.0,3.2\n";
  auto result = run_bxisim("plot " + path);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, testing::HasSubstr("barrier.png (avg_us, min_us, max_us against rows, 1 curve(s))"));
}

TEST(Draw, PlotOfACsvWithNothingToPlotFails)
{
  std::string path = temporary_path("flat.csv");
  std::ofstream(path) << "name,kind\na,b\n"; // no number at all
  auto result = run_bxisim("plot " + path);
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, testing::HasSubstr("cannot plot " + path));
}
