// A program that polls an EQ in a loop (PtlEQGet, or OpenMPI's MPI_Test loops) sees a Portals event
// when it comes, as one blocked in PtlEQWait does: the polling rank's growing sleep (cpu.poll_delay_min
// to cpu.poll_delay_max, 10 ns to 1 us by default, which lets simulated time advance) ends at the event. polled_event:
// rank 1 Puts 8 B to rank 0 after 50 us of computation, rank 0 polls from the start, so its sleeps have grown to 1 us;
// before, it saw the event 0.76 us late at both levels.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

using namespace bxisim::test;

namespace
{
Fields rank0(const std::string& level, int ppn, const std::string& how, const std::string& options = "")
{
  auto result = run_bxisim(fmt::format("run -n 2 --ppn {} --no-cpu-simulation --level {} {} {} 50e-6 {}", ppn, level,
                                       options, test_program("polled_event"), how));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return fields_by_rank(result.output)[0];
}

double seen(const std::string& level, int ppn, const std::string& how)
{
  return number(rank0(level, ppn, how), "seen");
}

// With a fixed sleep per empty poll, a loop that polls until an event coming after 50 us polls once
// per sleep: the sleep is what an empty poll costs, and it never makes the event late.
void expect_empty_polls_to_sleep_the_configured_delay(const std::string& level, int ppn)
{
  Fields slow  = rank0(level, ppn, "poll", "--set cpu.poll_delay_min=1us --set cpu.poll_delay_max=1us");
  Fields fast  = rank0(level, ppn, "poll", "--set cpu.poll_delay_min=100ns --set cpu.poll_delay_max=100ns");
  double event = seen(level, ppn, "wait");
  EXPECT_DOUBLE_EQ(number(slow, "seen"), event);
  EXPECT_DOUBLE_EQ(number(fast, "seen"), event);
  // The loop starts after the ranks' set-up (a few us), so it polls for a little less than the event's date.
  EXPECT_LE(number(slow, "empty_polls"), std::ceil(event / 1e-6));
  EXPECT_GE(number(slow, "empty_polls"), std::floor((event - 10e-6) / 1e-6));
  EXPECT_LE(number(fast, "empty_polls"), std::ceil(event / 100e-9));
  EXPECT_GE(number(fast, "empty_polls"), std::floor((event - 10e-6) / 100e-9));
}

void expect_the_poll_to_see_the_event_when_it_comes(const std::string& level, int ppn)
{
  double blocked = seen(level, ppn, "wait");
  EXPECT_GT(blocked, 50e-6);
  EXPECT_DOUBLE_EQ(seen(level, ppn, "poll"), blocked);
}
} // namespace

TEST(Polling, MessageLevelLoopSeesAnEventWhenItComesAcrossNodes)
{
  expect_the_poll_to_see_the_event_when_it_comes("message", 1);
}

TEST(Polling, MessageLevelLoopSeesAnEventWhenItComesInsideANode)
{
  expect_the_poll_to_see_the_event_when_it_comes("message", 2);
}

TEST(Polling, CycleLevelLoopSeesAnEventWhenItComesAcrossNodes)
{
  expect_the_poll_to_see_the_event_when_it_comes("cycle", 1);
}

TEST(Polling, CycleLevelLoopSeesAnEventWhenItComesInsideANode)
{
  expect_the_poll_to_see_the_event_when_it_comes("cycle", 2);
}

TEST(Polling, MessageLevelEmptyPollsSleepTheConfiguredDelayAcrossNodes)
{
  expect_empty_polls_to_sleep_the_configured_delay("message", 1);
}

TEST(Polling, MessageLevelEmptyPollsSleepTheConfiguredDelayInsideANode)
{
  expect_empty_polls_to_sleep_the_configured_delay("message", 2);
}

TEST(Polling, CycleLevelEmptyPollsSleepTheConfiguredDelayAcrossNodes)
{
  expect_empty_polls_to_sleep_the_configured_delay("cycle", 1);
}

TEST(Polling, CycleLevelEmptyPollsSleepTheConfiguredDelayInsideANode)
{
  expect_empty_polls_to_sleep_the_configured_delay("cycle", 2);
}

TEST(Polling, AMinimumAboveTheMaximumIsRefused)
{
  auto result = run_bxisim(fmt::format("run -n 2 --no-cpu-simulation --set cpu.poll_delay_min=2us --set "
                                       "cpu.poll_delay_max=1us {}",
                                       test_program("polled_event")));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("cpu.poll_delay_min (2e-06 s) exceeds cpu.poll_delay_max (1e-06 s)"), std::string::npos)
      << result.output;
}
