// Each class of bad input gives a message naming the problem and the way out, and exit code 2.

#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

using bxisim::test::run_bxisim;
using testing::HasSubstr;

namespace
{
constexpr int kUsage = 2;

std::string write_file(const std::string& name, const std::string& content)
{
  std::string path = bxisim::test::temporary_path(name);
  std::ofstream(path) << content;
  return path;
}
} // namespace

TEST(BadInput, UnknownKeySuggestsTheClosest)
{
  auto result = run_bxisim("platform show --set node.core=4");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("unknown parameter 'node.core'"));
  EXPECT_THAT(result.output, HasSubstr("Did you mean 'node.cores'?"));
}

TEST(BadInput, UnknownKeyInTomlNamesFileAndLine)
{
  auto path   = write_file("typo.toml", "[pcie]\nbus_latency = \"100ns\"\nbus_bandwith = \"1GBps\"\n");
  auto result = run_bxisim("--config " + path + " platform show");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr(path + ":3"));
  EXPECT_THAT(result.output, HasSubstr("Did you mean 'pcie.bus_bandwidth'?"));
}

TEST(BadInput, WrongType)
{
  auto result = run_bxisim("platform show --set platform.nodes=two --platform single-switch");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("'platform.nodes'"));
  EXPECT_THAT(result.output, HasSubstr("an integer"));
}

// A size only another topology reads changed nothing (the run went on with the 16-node fat-tree).
TEST(BadInput, AnotherTopologysSizeIsRefusedWithThisOnesKey)
{
  auto result = run_bxisim("platform show --set platform.nodes=2");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("--set: platform.nodes sizes the single-switch topology, but the platform is "
                                       "fat-tree, which it would leave unchanged. Size the fat-tree with "
                                       "platform.fat_tree, give --platform single-switch, or drop platform.nodes."));
  result = run_bxisim("platform show --platform two-switches --set platform.nodes=8");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("Size the two-switches with platform.nodes_per_switch"));
  EXPECT_EQ(run_bxisim("platform show --platform single-switch --set platform.nodes=2").exit_code, 0);
}

TEST(BadInput, NegativeBandwidth)
{
  auto result = run_bxisim("platform show --set bxi.link_bandwidth=-12.5GBps");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("'bxi.link_bandwidth'"));
  EXPECT_THAT(result.output, HasSubstr("greater than 0"));
}

TEST(BadInput, ZeroCores)
{
  auto result = run_bxisim("platform show --set node.cores=0");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("'node.cores'"));
  EXPECT_THAT(result.output, HasSubstr("at least 1"));
}

TEST(BadInput, MalformedFatTree)
{
  auto result = run_bxisim("platform show --set 'platform.fat_tree=2;4,4;1;1,2'");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("platform.fat_tree"));
  EXPECT_THAT(result.output, HasSubstr("one value per level"));
}

TEST(BadInput, MissingConfigFile)
{
  auto result = run_bxisim("--config /nonexistent/bxisim.toml platform show");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("cannot read this file (No such file or directory)"));
  EXPECT_THAT(result.output, testing::Not(HasSubstr(".toml."))); // suggests no file, which may not exist
}

TEST(BadInput, ConfigIsADirectory)
{
  auto result = run_bxisim("--config / platform show");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("--config '/': is a directory"));
}

TEST(BadInput, InvalidToml)
{
  auto path   = write_file("broken.toml", "[pcie\n");
  auto result = run_bxisim("--config " + path + " platform show");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("not valid TOML"));
}

TEST(BadInput, MissingXmlPlatform)
{
  auto result = run_bxisim("--platform /nonexistent/platform.xml platform show");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("cannot read this file"));
}

TEST(BadInput, BrokenXmlPlatform)
{
  auto path   = write_file("broken.xml", "<?xml version='1.0'?>\n<platform version=\"4.1\">\n<zone id=\"z\"");
  auto result = run_bxisim("--platform " + path + " platform show");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("SimGrid cannot load this platform"));
}

TEST(BadInput, NegativeHostSpeedInXml)
{
  auto path   = write_file("negative-speed.xml", R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="slow" speed="-1Gf"/>
  </zone>
</platform>
)");
  auto result = run_bxisim("--platform " + path + " platform show");
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr("host 'slow' has speed -1000000000 flop/s; give each host a positive speed"));
}

TEST(BadInput, XmlPlatformWithoutRoutes)
{
  auto path   = write_file("no-routes.xml", R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" speed="1Gf"/>
    <host id="b" speed="1Gf"/>
  </zone>
</platform>
)");
  auto result = run_bxisim("--platform " + path + " platform show");
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr("the platform has no route from a to b"));
}

// --platform takes a topology or a SimGrid XML file: a value that is neither says both.
TEST(BadInput, UnknownTopologyListsTheChoices)
{
  auto result = run_bxisim("--platform dragonfly platform show");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("--platform dragonfly: neither a topology (fat-tree, single-switch, "
                                       "two-switches) nor a SimGrid XML platform file (no such file)."));
  result = run_bxisim("--platform fat-tre platform show");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("Did you mean 'fat-tree'?"));
}

TEST(BadInput, UnknownSubCommand)
{
  auto result = run_bxisim("platfrom show");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("Did you mean 'platform'?"));
}

TEST(BadInput, UnknownOption)
{
  auto result = run_bxisim("platform show --colour");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("--colour"));
}

TEST(BadInput, UnknownHostInRoute)
{
  auto result = run_bxisim("--platform single-switch platform show --route node0-core0 node9-core0");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("no host named 'node9-core0'"));
}

TEST(BadInput, BadSimGridSetting)
{
  auto result = run_bxisim("--cfg network/modle:CM02 platform show");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("Bad config key: network/modle"));
  EXPECT_THAT(result.output, HasSubstr("Did you mean 'network/model'?"));
}

TEST(BadInput, UnknownLogCategory)
{
  auto misspelt = run_bxisim("--log=bxisim_lanch.thres:debug platform show");
  EXPECT_EQ(misspelt.exit_code, kUsage);
  EXPECT_THAT(misspelt.output, HasSubstr("there is no log category 'bxisim_lanch'. Did you mean 'bxisim_launch'?"));
  // The Portals, MPI and NIC categories had no bxisim_ prefix before 2026-11-28: the old name gets the new one.
  auto unprefixed = run_bxisim("--log=portals_target.thres:debug platform show");
  EXPECT_EQ(unprefixed.exit_code, kUsage);
  EXPECT_THAT(unprefixed.output, HasSubstr("Did you mean 'bxisim_portals_target'?"));
  // The cycle NIC's category exists before its plugin is loaded.
  EXPECT_EQ(run_bxisim("--log=bxisim_nic_cycle.thres:debug platform show").exit_code, 0);
  auto malformed = run_bxisim("--log=bxisim platform show");
  EXPECT_EQ(malformed.exit_code, kUsage);
  EXPECT_THAT(malformed.output, HasSubstr("expected CATEGORY.thres:LEVEL"));
  // Categories of bxisim and of SimGrid, several in one setting, and no_loc are all accepted.
  EXPECT_EQ(run_bxisim("--log='bxisim.thres:warning ker_engine.thres:info' --log=no_loc platform show").exit_code, 0);
}

TEST(BadInput, SimGridAbortOnBadModelIsAUsageError)
{
  auto result = run_bxisim("--cfg network/model:FOO platform show");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("Model 'FOO' is invalid"));
  EXPECT_THAT(result.output, HasSubstr("fix the --cfg/--log option"));
}
