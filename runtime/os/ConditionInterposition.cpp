// Condition variables of a rank that has simulated threads (ThreadInterposition.hpp): waited for in
// simulated time. A rank's threads all run on the simulator's thread, so a real pthread_cond_wait would put
// that thread to sleep until a signal that only it could send. Here the waiter releases the mutex, sleeps on
// a SimGrid semaphore until a signal or broadcast of a thread of its rank (or the timeout, in simulated
// time), then takes the mutex again (LockInterposition). Ranks without simulated threads, and real threads,
// use the C library's as before.

#include "RankCpuClock.hpp"
#include "RankEnd.hpp"
#include "RankTimedWork.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "ThreadInterposition.hpp"
#include "hw/actors/WaitQueue.hpp"
#include "runtime/launch/Rank.hpp"

#include <pthread.h>

#include <cerrno>
#include <ctime>
#include <limits>
#include <unordered_map>

namespace
{
std::unordered_map<const pthread_cond_t*, bxisim::hw::WaitQueue> conditions; // used inside simulator calls only

bool simulated_for(const bxisim::runtime::Rank* rank)
{
  return rank != nullptr && bxisim::os::has_simulated_threads(*rank);
}

/**
 * A timed wait of a rank without threads of its own is simulated too when no library thread of it runs either: no
 * thread can signal it, so it is a sleep to its deadline (the C library's waited that long in real time, the
 * simulated clock standing still, and C++'s wait_for then polled the simulated clock until the deadline).
 */
bool timed_wait_simulated_for(const bxisim::runtime::Rank* rank)
{
  return simulated_for(rank) || (rank != nullptr && not rank->has_library_threads());
}

/** Waits `timeout` seconds at most (infinity: no limit); returns 0 or ETIMEDOUT. */
int wait_in_simulated_time(pthread_cond_t* condition, pthread_mutex_t* mutex, double timeout)
{
  bool timed_out = false;
  {
    bxisim::os::SimulatorCall call;
    // Before the mutex is released: the threads this lets run (a progress loop that finishes what the waiter posted)
    // signal only once they hold it, so after this thread waits.
    if (call.rank() != nullptr)
      bxisim::os::notify_sibling_wait(*call.rank());
    bxisim::hw::WaitQueue& waiters = conditions[condition];
    pthread_mutex_unlock(mutex); // nothing can signal between this and the wait: no other thread runs
    bxisim::os::OffCpu blocked;
    timed_out = timeout <= 0 || waiters.wait(timeout);
  }
  pthread_mutex_lock(mutex); // as the rank's code: another of its threads may hold it
  return timed_out ? ETIMEDOUT : 0;
}

void wake_in_call(const pthread_cond_t* condition, bool all)
{
  bxisim::os::SimulatorCall call;
  auto it = conditions.find(condition);
  if (it == conditions.end())
    return;
  if (all)
    it->second.wake_all();
  else
    it->second.wake(1);
}

void wake(const pthread_cond_t* condition, bool all)
{
  // From pthread_cond_signal and _broadcast, which glibc declares noexcept: the call survives a kill.
  bxisim::os::surviving_kill("killed in pthread_cond_signal", [&] { wake_in_call(condition, all); });
}
} // namespace

extern "C" {

int pthread_cond_wait(pthread_cond_t* condition, pthread_mutex_t* mutex)
{
  if (not simulated_for(bxisim::os::running_rank()))
    return BXISIM_REAL(pthread_cond_wait)(condition, mutex);
  return wait_in_simulated_time(condition, mutex, std::numeric_limits<double>::infinity());
}

int pthread_cond_timedwait(pthread_cond_t* condition, pthread_mutex_t* mutex, const struct timespec* deadline)
{
  if (not timed_wait_simulated_for(bxisim::os::running_rank()))
    return BXISIM_REAL(pthread_cond_timedwait)(condition, mutex, deadline);
  // The deadline is on the condition's clock: CLOCK_REALTIME unless pthread_condattr_setclock chose the
  // monotonic one, which glibc keeps in bit 1 of __wrefs (nptl's __PTHREAD_COND_CLOCK_MONOTONIC_MASK).
  clockid_t clock = (condition->__data.__wrefs & 2) != 0 ? CLOCK_MONOTONIC : CLOCK_REALTIME;
  return wait_in_simulated_time(condition, mutex, bxisim::os::seconds_until(clock, *deadline));
}

// The deadline on a clock the caller names: std::condition_variable's wait_for and wait_until on steady_clock.
int pthread_cond_clockwait(pthread_cond_t* condition, pthread_mutex_t* mutex, clockid_t clock,
                           const struct timespec* deadline)
{
  if (not timed_wait_simulated_for(bxisim::os::running_rank()))
    return BXISIM_REAL(pthread_cond_clockwait)(condition, mutex, clock, deadline);
  if (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME)
    return EINVAL;
  return wait_in_simulated_time(condition, mutex, bxisim::os::seconds_until(clock, *deadline));
}

int pthread_cond_signal(pthread_cond_t* condition)
{
  if (simulated_for(bxisim::os::running_rank()))
    wake(condition, false);
  return BXISIM_REAL(pthread_cond_signal)(condition);
}

int pthread_cond_broadcast(pthread_cond_t* condition)
{
  if (simulated_for(bxisim::os::running_rank()))
    wake(condition, true);
  return BXISIM_REAL(pthread_cond_broadcast)(condition);
}

int pthread_cond_destroy(pthread_cond_t* condition)
{
  if (simulated_for(bxisim::os::running_rank()))
    bxisim::os::surviving_kill("killed in pthread_cond_destroy", [&] {
      bxisim::os::SimulatorCall call;
      if (auto it = conditions.find(condition); it != conditions.end() && it->second.waiting() == 0)
        conditions.erase(it);
    });
  return BXISIM_REAL(pthread_cond_destroy)(condition);
}

} // extern "C"
