#pragma once
// Actors waiting in simulated time for another actor to wake them: a Portals process's blocking calls (both NIC
// models), and the condition variables, semaphores and barriers of ranks' threads (runtime/os).

#include <simgrid/s4u/Semaphore.hpp>

#include <algorithm>
#include <limits>

namespace bxisim::hw
{

class WaitQueue
{
 public:
  /** Sleeps until wake() or `timeout` seconds (infinity: no limit); true when it timed out. */
  bool wait(double timeout)
  {
    // A semaphore, not a mutex and a condition variable: locking a SimGrid mutex yields, and a wake-up sent in
    // that window would be lost. Nothing yields between counting in and acquiring.
    ++waiting_;
    if (timeout == std::numeric_limits<double>::infinity()) {
      wakeup_->acquire();
      return false;
    }
    if (not wakeup_->acquire_timeout(timeout))
      return false;
    if (waiting_ > 0) // not already counted out by a wake-up that came at the same date
      --waiting_;
    return true;
  }

  /** Wakes `count` of the waiters at most. */
  void wake(unsigned count)
  {
    // Counted out before the first release: a release lets the woken actors run, and they may wait again.
    unsigned woken = std::min(count, waiting_);
    waiting_ -= woken;
    for (; woken > 0; --woken)
      wakeup_->release();
  }
  void wake_all() { wake(waiting_); }

  unsigned waiting() const { return waiting_; }

 private:
  unsigned waiting_                  = 0;
  simgrid::s4u::SemaphorePtr wakeup_ = simgrid::s4u::Semaphore::create(0);
};

} // namespace bxisim::hw
