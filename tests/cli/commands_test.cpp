// The commands a new user runs first.

#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <sstream>

using bxisim::test::run_bxisim;
using testing::HasSubstr;

TEST(Commands, VersionNamesTheDependencies)
{
  auto result = run_bxisim("--version");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.output, HasSubstr("bxisim "));
  EXPECT_THAT(result.output, HasSubstr("SimGrid 3."));
}

TEST(Commands, HelpListsSubCommands)
{
  auto result = run_bxisim("--help");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.output, HasSubstr("platform"));
  EXPECT_THAT(result.output, HasSubstr("params"));
  EXPECT_EQ(run_bxisim("platform show --help").exit_code, 0);
}

TEST(Commands, ShowDefaultFatTreeRoute)
{
  auto result = run_bxisim("platform show --no-links");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("fat-tree 2;4,4;1,2;1,2"));
  EXPECT_THAT(result.output, HasSubstr("node0-core0 -> node15-core0"));
  // 2 x 250 ns of PCIe bus + 4 x 500 ns of BXI links (defaults of the parameter table).
  EXPECT_THAT(result.output, HasSubstr("total: 8 links, latency 2500 ns, bottleneck 12.5 GB/s"));
}

TEST(Commands, ShowNicLoopbackRoute)
{
  auto result = run_bxisim("platform show --no-links --route node3-nic node3-nic --set bxi.loopback_latency=20ns");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("node3-nic -> node3-nic\n    node3-nic-loopback "));
  EXPECT_THAT(result.output, HasSubstr("total: 1 links, latency 20 ns, bottleneck 12.5 GB/s"));
  // The default report shows it too, for node 0.
  EXPECT_THAT(run_bxisim("platform show --no-links").output, HasSubstr("node0-nic -> node0-nic"));
}

TEST(Commands, ParamsShowsValuesAfterOverrides)
{
  auto result = run_bxisim("params --set bxi.link_latency=400ns");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("bxi.link_latency"));
  EXPECT_THAT(result.output, HasSubstr("4e-07s"));
  EXPECT_THAT(result.output, HasSubstr("S4BXI examples/platform.xml"));
}

TEST(Commands, ExportWritesSimGridXml)
{
  auto result = run_bxisim("--platform single-switch platform export --xml");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">"));
  EXPECT_THAT(result.output, HasSubstr("<zoneRoute src=\"node0\" dst=\"node1\" gw_src=\"node0-nic\""));
}

TEST(Commands, FlowControlStudyExampleRoutesAcrossTheSharedLink)
{
  auto result =
      run_bxisim(std::string("--config '") + BXISIM_SOURCE_DIR +
                 "/examples/flow-control-study.toml' platform show --no-links --route node0-core0 node3-core0");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("two switches joined by one link, 3 nodes of 8 cores on each"));
  EXPECT_THAT(result.output, HasSubstr("interswitch_UP"));
  // PCIe bus twice (250 ns each), three BXI links (node, inter-switch, node) of 500 ns.
  EXPECT_THAT(result.output, HasSubstr("total: 7 links, latency 2000 ns, bottleneck 12.5 GB/s"));
}

// One log root: every module's category is under `bxisim` (DESIGN.md section 8), so that
// --log=bxisim.thres:debug turns on all of bxisim's messages, and none of SimGrid's.
TEST(Commands, EveryModulesLogCategoryIsUnderBxisim)
{
  auto result = run_bxisim("--help-log-categories");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::istringstream lines(result.output);
  std::string line;
  std::set<std::string> roots, under_bxisim, elsewhere;
  bool in_bxisim = false;
  while (std::getline(lines, line)) {
    std::string name = line.substr(0, line.find(':'));
    bool root        = name.rfind(' ', 0) != 0;
    name.erase(0, name.find_first_not_of(' '));
    if (root) {
      roots.insert(name);
      in_bxisim = name == "bxisim";
    } else {
      (in_bxisim ? under_bxisim : elsewhere).insert(name);
    }
  }
  EXPECT_EQ(roots.count("bxisim"), 1u) << result.output;
  EXPECT_EQ(roots.count("kernel"), 1u) << result.output; // SimGrid's, beside it
  for (const char* module : {"bxisim_runtime", "bxisim_portals", "bxisim_portals_target", "bxisim_mpi",
                             "bxisim_mpi_openmpi", "bxisim_nic_message", "bxisim_nic_cycle"})
    EXPECT_EQ(under_bxisim.count(module), 1u) << module << "\n" << result.output;
  for (const auto& name : roots)
    EXPECT_TRUE(name == "bxisim" || name.rfind("bxisim", 0) != 0) << name;
  for (const auto& name : elsewhere)
    EXPECT_NE(name.rfind("bxisim", 0), 0u) << name << " is not under bxisim";
  for (const char* old_root : {"portals", "mpi", "nic_message", "nic_cycle"})
    EXPECT_EQ(roots.count(old_root), 0u) << old_root;
}
