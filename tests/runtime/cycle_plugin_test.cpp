// The cycle NIC model is a plugin (hw/cycle/CycleNic.hpp): SystemC is loaded by the runs that use the
// cycle level only, and a plugin that cannot be loaded is named with the fix.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using bxisim::test::fields_by_rank;
using bxisim::test::run_command;
using bxisim::test::test_program;
using testing::HasSubstr;

namespace
{
bxisim::test::CommandResult run_at(const std::string& level, const std::string& environment = "")
{
  return run_command(environment + " '" BXISIM_BINARY "' run -n 2 --ppn 1 --level " + level + " " +
                     test_program("loaded_libraries") + " 2>&1");
}

std::string systemc_of_rank(const bxisim::test::CommandResult& result, int rank)
{
  return fields_by_rank(result.output)[rank]["systemc"];
}
} // namespace

TEST(CyclePlugin, SystemCIsLoadedByRunsAtTheCycleLevelOnly)
{
  for (const char* level : {"message", "smpi"}) {
    auto result = run_at(level);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(systemc_of_rank(result, 0), "0") << level << "\n" << result.output;
    EXPECT_EQ(systemc_of_rank(result, 1), "0") << level << "\n" << result.output;
  }
  auto cycle = run_at("cycle");
  ASSERT_EQ(cycle.exit_code, 0) << cycle.output;
  EXPECT_EQ(systemc_of_rank(cycle, 0), "1") << cycle.output;
  EXPECT_EQ(systemc_of_rank(cycle, 1), "1") << cycle.output;
}

TEST(CyclePlugin, AMissingPluginIsNamedWithTheFix)
{
  auto result = run_at("cycle", "BXISIM_CYCLE_PLUGIN=/nonexistent/libbxisim-nic-cycle.so");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr("the cycle NIC model cannot be loaded"));
  EXPECT_THAT(result.output, HasSubstr("/nonexistent/libbxisim-nic-cycle.so"));
  EXPECT_THAT(result.output, HasSubstr("BXISIM_CYCLE_PLUGIN"));
  // Runs at the other levels do not need it.
  auto message = run_at("message", "BXISIM_CYCLE_PLUGIN=/nonexistent/libbxisim-nic-cycle.so");
  EXPECT_EQ(message.exit_code, 0) << message.output;
}

TEST(CyclePlugin, ALibraryThatIsNotThePluginIsNamed)
{
  auto result = run_at("cycle", "BXISIM_CYCLE_PLUGIN=libm.so.6");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr("libm.so.6 is not bxisim's cycle NIC plugin"));
}
