#pragma once
// Passive-target locks of windows at the smpi level (MPI_Win_lock, _lock_all), kept by bxisim. SMPI 3.32 keeps one
// lock mode per target window: an exclusive lock asked while shared ones are held is granted at once, and the first
// unlock resets the other holders' mode, so its mutex is then never released (a later lock waits for ever) or released
// by a rank that does not hold it (SimGrid aborts). MPI-3.1 11.5.3: an exclusive lock excludes every other lock of the
// target, shared ones exclude exclusive ones only.
//
// One table for the run: the ranks at smpi are SimGrid actors of this one process, so a lock is a plain record. A rank
// whose lock conflicts waits on a semaphore of SimGrid's, in the order the ranks asked (an exclusive lock is not
// starved by a stream of shared ones), and is handed the lock by the rank that releases it, at that rank's simulated
// time; as SMPI's own lock, taking one costs no simulated time.

#include <simgrid/s4u/Semaphore.hpp>

#include <deque>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace bxisim::mw
{

/** One window as each of its ranks names it: its group's ranks in MPI_COMM_WORLD, and how many windows over that group
 *  the rank had made before (windows are made collectively, in the same order by every rank of the group). */
struct WindowIdentity {
  std::vector<int> world_ranks;
  int made_before = 0;
  bool operator<(const WindowIdentity& other) const
  {
    return std::tie(made_before, world_ranks) < std::tie(other.made_before, other.world_ranks);
  }
};

class WindowLocks
{
 public:
  /** The table of the run. */
  static WindowLocks& of_the_run();

  /** Returns once the calling rank holds the lock of `target` in `window`, exclusive or shared. */
  void acquire(const WindowIdentity& window, int target, bool exclusive);
  /** Gives the lock up and hands it to the ranks waiting first that can hold it together. */
  void release(const WindowIdentity& window, int target, bool exclusive);

 private:
  struct Waiter {
    bool exclusive;
    simgrid::s4u::SemaphorePtr granted;
  };
  struct Lock {
    int shared_holders    = 0;
    bool exclusive_holder = false;
    std::deque<Waiter> waiting;
    bool allows(bool exclusive) const { return not exclusive_holder && (not exclusive || shared_holders == 0); }
    void take(bool exclusive) { exclusive ? void(exclusive_holder = true) : void(++shared_holders); }
  };
  std::map<std::pair<WindowIdentity, int>, Lock> locks_; // only those held or awaited
};

} // namespace bxisim::mw
