#include "RankTimedWork.hpp"

#include <simgrid/s4u/Actor.hpp>

namespace bxisim::os
{
namespace
{
unsigned in_timed_work = 0;

template <typename Work>
void counted(Work work)
{
  ++in_timed_work;
  try {
    work();
  } catch (...) { // a kill ends the run's ranks through here
    --in_timed_work;
    throw;
  }
  --in_timed_work;
}
} // namespace

void sleep_rank(double seconds)
{
  counted([seconds] { simgrid::s4u::this_actor::sleep_for(seconds); });
}

void execute_rank(double flops)
{
  counted([flops] { simgrid::s4u::this_actor::execute(flops); });
}

unsigned ranks_in_timed_work()
{
  return in_timed_work;
}

} // namespace bxisim::os
