#include "config/ConfigError.hpp"
#include "config/Parameters.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using bxisim::config::ConfigError;
using bxisim::config::Parameters;
using testing::HasSubstr;
using testing::Not;

namespace
{
std::string error_of(const std::function<void()>& action)
{
  try {
    action();
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "no error";
}
} // namespace

TEST(Parameters, DefaultsComeFromTheTableWithUnits)
{
  Parameters parameters = Parameters::defaults();
  EXPECT_EQ(parameters.text("platform.topology"), "fat-tree");
  EXPECT_EQ(parameters.integer("node.cores"), 8);
  EXPECT_DOUBLE_EQ(parameters.real("pcie.bus_bandwidth"), 15.75e9);
  EXPECT_DOUBLE_EQ(parameters.real("pcie.transfer_bandwidth"), 12.5e9);
  EXPECT_DOUBLE_EQ(parameters.real("bxi.link_bandwidth"), 12.5e9);
  EXPECT_DOUBLE_EQ(parameters.real("bxi.link_latency"), 500e-9);
  EXPECT_DOUBLE_EQ(parameters.real("node.core_speed"), 10e9);
}

TEST(Parameters, SetAcceptsSimGridUnits)
{
  Parameters parameters = Parameters::defaults();
  parameters.apply_assignment("bxi.link_bandwidth=100Gbps");
  parameters.apply_assignment("bxi.link_latency=1.5us");
  parameters.apply_assignment("node.cores=64");
  EXPECT_DOUBLE_EQ(parameters.real("bxi.link_bandwidth"), 12.5e9);
  EXPECT_DOUBLE_EQ(parameters.real("bxi.link_latency"), 1.5e-6);
  EXPECT_EQ(parameters.integer("node.cores"), 64);
}

TEST(Parameters, TomlTablesNestKeysAndLaterSourcesWin)
{
  Parameters parameters = Parameters::defaults();
  parameters.load_toml_text("[platform]\ntopology = \"two-switches\"\nnodes_per_switch = 5\n"
                            "[pcie]\nbus_latency = \"100ns\"\n",
                            "test.toml");
  EXPECT_EQ(parameters.text("platform.topology"), "two-switches");
  EXPECT_EQ(parameters.integer("platform.nodes_per_switch"), 5);
  EXPECT_DOUBLE_EQ(parameters.real("pcie.bus_latency"), 100e-9);
  parameters.apply_assignment("pcie.bus_latency=0ns");
  EXPECT_DOUBLE_EQ(parameters.real("pcie.bus_latency"), 0.0);
}

TEST(Parameters, UnknownKeySuggestsTheClosest)
{
  Parameters parameters = Parameters::defaults();
  auto message          = error_of([&] { parameters.apply_assignment("bxi.link_latncy=1us"); });
  EXPECT_THAT(message, HasSubstr("unknown parameter 'bxi.link_latncy'"));
  EXPECT_THAT(message, HasSubstr("Did you mean 'bxi.link_latency'?"));
}

TEST(Parameters, WrongTypeNamesKeyAndExpectation)
{
  Parameters parameters = Parameters::defaults();
  auto message          = error_of([&] { parameters.apply_assignment("node.cores=many"); });
  EXPECT_THAT(message, HasSubstr("'node.cores'"));
  EXPECT_THAT(message, HasSubstr("not an integer"));
  message = error_of([&] { parameters.load_toml_text("node.cores = [1, 2]\n", "bad.toml"); });
  EXPECT_THAT(message, HasSubstr("bad.toml:1"));
  EXPECT_THAT(message, HasSubstr("node.cores"));
}

TEST(Parameters, NegativeBandwidthAndZeroCoresAreRejected)
{
  Parameters parameters = Parameters::defaults();
  auto message          = error_of([&] { parameters.apply_assignment("pcie.bus_bandwidth=-1GBps"); });
  EXPECT_THAT(message, HasSubstr("'pcie.bus_bandwidth'"));
  EXPECT_THAT(message, HasSubstr("greater than 0"));
  message = error_of([&] { parameters.apply_assignment("node.cores=0"); });
  EXPECT_THAT(message, HasSubstr("at least 1"));
}

TEST(Parameters, ChoiceListsTheAllowedValues)
{
  Parameters parameters = Parameters::defaults();
  auto message          = error_of([&] { parameters.apply_assignment("platform.topology=fat-tre"); });
  EXPECT_THAT(message,
              HasSubstr("Expected one of fat-tree, single-switch, two-switches, xml. Did you mean 'fat-tree'?"));
  EXPECT_THAT(message, Not(HasSubstr("a text"))); // a choice is not any text
  EXPECT_THAT(message, Not(HasSubstr("..")));
}

TEST(Parameters, BadUnitIsNamed)
{
  Parameters parameters = Parameters::defaults();
  auto message          = error_of([&] { parameters.apply_assignment("bxi.link_latency=3parsecs"); });
  EXPECT_THAT(message, HasSubstr("unknown unit"));
  EXPECT_THAT(message, HasSubstr("500ns"));
}

TEST(Parameters, InvalidTomlGivesLineAndColumn)
{
  Parameters parameters = Parameters::defaults();
  auto message          = error_of([&] { parameters.load_toml_text("[pcie\nbus_latency = 1\n", "broken.toml"); });
  EXPECT_THAT(message, HasSubstr("broken.toml:1:"));
  EXPECT_THAT(message, HasSubstr("not valid TOML"));
}
