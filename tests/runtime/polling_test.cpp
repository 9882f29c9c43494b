// A program that polls an EQ in a loop (PtlEQGet, or OpenMPI's MPI_Test loops) sees a Portals event
// when it comes, as one blocked in PtlEQWait does: the polling rank's growing sleep (10 ns to 1 us,
// which lets simulated time advance) ends at the event. polled_event: rank 1 Puts 8 B to rank 0 after
// 50 us of computation, rank 0 polls from the start, so its sleeps have grown to 1 us; before, it saw
// the event 0.76 us late at both levels.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

using namespace bxisim::test;

namespace
{
double seen(const std::string& level, int ppn, const std::string& how)
{
  auto result = run_bxisim(fmt::format("run -n 2 --ppn {} --no-cpu-simulation --level {} {} 50e-6 {}", ppn, level,
                                       test_program("polled_event"), how));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return number(fields_by_rank(result.output)[0], "seen");
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
