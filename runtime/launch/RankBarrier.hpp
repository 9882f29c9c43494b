#pragma once
// A barrier of all the ranks of a run, in simulated time (bxisim_barrier, OpenMPI's start-up fence).
//
// Ranks run one at a time (SimGrid's actors): nothing runs between the count and the releases. The
// waits are on a SimGrid semaphore, which a killed rank leaves cleanly (the job ends: MPI_Abort,
// PMI_Abort, a limit); a condition variable's wait re-locks its mutex while the kill unwinds, which
// aborted the simulator.

#include "Rank.hpp"

#include <simgrid/s4u/Semaphore.hpp>

#include <functional>
#include <string>

namespace bxisim::runtime
{

class RankBarrier
{
 public:
  /** Returns when `ranks` ranks have arrived in this round; `waiting_for(arrived)` says, in a deadlock
   * report, what a rank waits for. */
  void arrive_and_wait(Rank& rank, int ranks, const std::function<std::string(int arrived)>& waiting_for)
  {
    if (++arrived_ == ranks) {
      arrived_ = 0;
      for (int waiting = 1; waiting < ranks; ++waiting)
        released_->release(); // each to a rank already waiting in acquire
      return;
    }
    rank.set_waiting_for([this, waiting_for] { return waiting_for(arrived_); });
    released_->acquire();
    rank.set_waiting_for(nullptr);
  }

 private:
  simgrid::s4u::SemaphorePtr released_ = simgrid::s4u::Semaphore::create(0);
  int arrived_                         = 0;
};

} // namespace bxisim::runtime
