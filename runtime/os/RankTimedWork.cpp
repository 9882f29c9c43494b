#include "RankTimedWork.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <cmath>

namespace bxisim::os
{
namespace
{
unsigned in_timed_work = 0;

/** Counts the calling rank while it lasts (a kill ends the run's ranks by an exception through here). */
struct Counted {
  Counted() { ++in_timed_work; }
  ~Counted() { --in_timed_work; }
  Counted(const Counted&)            = delete;
  Counted& operator=(const Counted&) = delete;
};
} // namespace

void sleep_rank(double seconds)
{
  Counted counted;
  simgrid::s4u::this_actor::sleep_for(seconds);
}

void execute_rank(double flops)
{
  Counted counted;
  simgrid::s4u::this_actor::execute(flops);
}

timespec to_timespec(double seconds)
{
  double whole     = std::floor(seconds);
  auto nanoseconds = std::llround((seconds - whole) * 1e9);
  timespec result{static_cast<time_t>(whole), static_cast<long>(nanoseconds)};
  if (result.tv_nsec >= 1'000'000'000) {
    result.tv_sec += 1;
    result.tv_nsec -= 1'000'000'000;
  }
  return result;
}

double seconds_until(clockid_t clock, const timespec& deadline)
{
  timespec now{};
  clock_gettime(clock, &now); // the rank's simulated clock (TimeInterposition)
  return static_cast<double>(deadline.tv_sec - now.tv_sec) + static_cast<double>(deadline.tv_nsec - now.tv_nsec) * 1e-9;
}

unsigned ranks_in_timed_work()
{
  return in_timed_work;
}

} // namespace bxisim::os
