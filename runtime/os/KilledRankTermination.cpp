#include "KilledRankTermination.hpp"

#include "RankEnd.hpp"
#include "SimulatorCall.hpp"
#include "ThreadInterposition.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <cstdlib>
#include <exception>

namespace
{
bool every_actor_killed                 = false;
std::terminate_handler previous_handler = nullptr;

[[noreturn]] void terminate_killed_rank()
{
  bxisim::runtime::Rank* rank = bxisim::os::running_rank();
  if (rank != nullptr && (every_actor_killed || bxisim::os::running_thread_killed()))
    bxisim::os::leave_killed_rank(*rank); // returns only when the rank cannot leave that way (not in its main)
  if (previous_handler != nullptr)
    previous_handler();
  std::abort();
}
} // namespace

namespace bxisim::os
{

void kill_every_actor()
{
  every_actor_killed = true;
  simgrid::s4u::Actor::kill_all();
}

void note_every_actor_killed()
{
  every_actor_killed = true;
}

void install_killed_rank_termination()
{
  std::terminate_handler previous = std::set_terminate(terminate_killed_rank);
  if (previous != terminate_killed_rank)
    previous_handler = previous;
}

} // namespace bxisim::os
