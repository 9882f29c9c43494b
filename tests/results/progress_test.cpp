// The progress line of long runs: shown on a terminal (a pseudo-terminal made by script(1)) once the
// run has lasted two wall seconds (BXISIM_PROGRESS_AFTER=0 here: at once, whatever the machine's
// speed), refreshed in place; absent when stderr is not a terminal, with --quiet and when CI is set.

#include "RunFigures.hpp"

#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using bxisim::test::kPingpong;
using bxisim::test::run_command;

namespace
{
/** `bxisim run` of a long ping-pong with stderr on a pseudo-terminal; `environment` prefixes the command. */
bxisim::test::CommandResult long_run_on_a_terminal(const std::string& environment, const std::string& options)
{
  std::string run = std::string(BXISIM_BINARY) + " run -n 2 --ppn 1 --no-cpu-simulation --no-summary " + options + " " +
                    kPingpong + " 8 25000";
  return run_command(environment + " script -qec '" + run + "' /dev/null");
}
} // namespace

TEST(Progress, ShownInPlaceOnATerminal)
{
  auto result = long_run_on_a_terminal("env -u CI BXISIM_PROGRESS_AFTER=0", "");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, testing::HasSubstr("\r\033[Kbxisim: simulated "));
  EXPECT_THAT(result.output, testing::HasSubstr("ranks finished 0/2 | "));
  EXPECT_THAT(result.output, testing::HasSubstr(" events/s"));
  EXPECT_THAT(result.output, testing::HasSubstr("sim/wall "));
  // The ranks' output (stdout, the same terminal) is never appended to the line: it is erased first.
  EXPECT_THAT(result.output, testing::Not(testing::HasSubstr("events/s[rank"))) << result.output;
  // The last line drawn is erased before anything else is printed: the summary table, or the ranks' last
  // output when that comes first (which one does depends on when the last redraw happened).
  auto last_draw = result.output.rfind("\r\033[Kbxisim: simulated ");
  ASSERT_NE(last_draw, std::string::npos);
  auto erased  = result.output.find("\r\033[K", last_draw + 1);
  auto summary = result.output.find("bxisim: summary of the run", last_draw);
  ASSERT_NE(summary, std::string::npos) << result.output;
  EXPECT_LT(erased, summary) << result.output;
  EXPECT_EQ(result.output.find('\n', last_draw), result.output.find('\n', erased)) << "erased before any new line";
}

TEST(Progress, OffWithQuietInCiAndWhenStderrIsNotATerminal)
{
  for (const auto& [environment, options] :
       {std::pair{"env -u CI BXISIM_PROGRESS_AFTER=0", "--quiet"}, {"env CI=true BXISIM_PROGRESS_AFTER=0", ""}}) {
    auto result = long_run_on_a_terminal(environment, options);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_THAT(result.output, testing::Not(testing::HasSubstr("sim/wall"))) << environment << " " << options;
  }
  auto piped =
      run_command(std::string("env -u CI BXISIM_PROGRESS_AFTER=0 ") + BXISIM_BINARY +
                  " run -n 2 --ppn 1 --no-cpu-simulation " + "--no-summary " + kPingpong + " 8 25000 2>&1 | cat");
  EXPECT_THAT(piped.output, testing::Not(testing::HasSubstr("sim/wall")));
}
