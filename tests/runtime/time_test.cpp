// Ranks live in simulated time: every clock a program reads and every way it sleeps.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

using namespace bxisim::test;

namespace
{
Fields sleep_and_read_clocks(const std::string& how, double seconds, const std::string& options = "--no-cpu-simulation")
{
  auto result =
      run_bxisim("run -n 1 " + options + " " + test_program("clocks") + " " + how + " " + std::to_string(seconds));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return fields_by_rank(result.output)[0];
}

void expect_every_clock_advanced_by(const Fields& clocks, double seconds)
{
  // Exactly: the simulated clock starts at 0 and nothing else takes simulated time.
  for (const char* clock : {"monotonic", "realtime", "steady_clock", "system_clock", "bxisim_time"})
    EXPECT_EQ(number(clocks, clock), seconds) << clock;
  EXPECT_EQ(number(clocks, "gettimeofday"), seconds);
  EXPECT_EQ(number(clocks, "time"), std::floor(seconds)); // time() counts whole seconds from 0
}
} // namespace

TEST(SimulatedTime, NanosleepAdvancesEveryClockByExactlyTheSleep)
{
  expect_every_clock_advanced_by(sleep_and_read_clocks("nanosleep", 1.5), 1.5);
}

TEST(SimulatedTime, UsleepAdvancesEveryClockByExactlyTheSleep)
{
  expect_every_clock_advanced_by(sleep_and_read_clocks("usleep", 1.5), 1.5);
}

TEST(SimulatedTime, ChronoSleepAdvancesEveryClockByExactlyTheSleep)
{
  expect_every_clock_advanced_by(sleep_and_read_clocks("chrono", 1.5), 1.5);
}

TEST(SimulatedTime, SleepAdvancesEveryClockByExactlyTheSleep)
{
  expect_every_clock_advanced_by(sleep_and_read_clocks("sleep", 2), 2);
}

TEST(SimulatedTime, ALongSleepIsSimulatedNotWaited)
{
  // An hour of simulated sleep: the test's own timeout (minutes) would catch a real one.
  expect_every_clock_advanced_by(sleep_and_read_clocks("sleep", 3600), 3600);
}

TEST(SimulatedTime, WithComputationSimulatedTheSleepIsStillThere)
{
  // The rank's own CPU time is added to the sleep, so the clock moves at least by the sleep.
  Fields clocks = sleep_and_read_clocks("nanosleep", 1.5, "");
  EXPECT_GE(number(clocks, "monotonic"), 1.5);
  EXPECT_LT(number(clocks, "monotonic"), 1.6);
}
