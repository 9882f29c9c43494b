// pthread_mutex_lock, interposed for the ranks' own code: a lock that another rank holds is waited for in
// simulated time instead of on the thread all ranks share.
//
// A shared library's lock (libgfortran's I/O units, locked for a whole statement whose output list may
// call MPI_Wtime or MPI_Allreduce) may be held by a rank that switched out inside a simulator call. The
// real pthread_mutex_lock of the next rank would then put the simulator's only thread to sleep on a lock
// that only that thread could release: the whole run hung. Here the waiting rank sleeps in simulated
// time, polling as a spinning CPU would (10 ns doubling to 1 us), until the holder has released it. Locks
// are tracked per holder, a rank's main thread or one of its simulated threads (the thread id is the same
// for all of them, so the C library cannot tell them apart): a holder locking a mutex it holds itself gets
// the C library's answer.

#include "LockInterposition.hpp"
#include "HeldLockTable.hpp"
#include "RankCpuClock.hpp"
#include "RankEnd.hpp"
#include "RankTimedWork.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "ThreadInterposition.hpp"
#include "runtime/launch/Rank.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <algorithm>
#include <cerrno>
#include <fmt/format.h>
#include <pthread.h>

namespace
{
using bxisim::os::running_rank;
using bxisim::runtime::Rank;

struct Owner {
  Rank* rank;
  const void* holder; // the rank's main thread or simulated thread that took it (os::current_lock_holder)
  int depth;          // recursive mutexes: taken this many times by the holder
};
// The mutexes ranks hold, with their owners. Ranks run on the simulator's thread only: the other threads' tables
// stay empty.
using OwnerTable = bxisim::os::HeldLockTable<pthread_mutex_t, Owner>;
thread_local OwnerTable owners; // zero-initialised, trivially destroyed: no set-up at a thread's first touch

constexpr double kLongestPoll = 1e-6;

const Owner* owner_of(pthread_mutex_t* mutex)
{
  OwnerTable::Entry* entry = owners.find(mutex);
  if (entry == nullptr)
    return nullptr;
  if (mutex->__data.__lock == 0) { // free: released behind the table's back (a condition wait, a rank that ended)
    owners.erase(entry);
    return nullptr;
  }
  return &entry->tracked;
}

// Called past kLongestLockWait (a collective in a Fortran print's list, which every rank reaches with the same unit
// locked).
void (*endless_wait_handler)(const char* message) = nullptr;

void note_taken(pthread_mutex_t* mutex, Rank* rank, const void* holder)
{
  OwnerTable::Entry* entry = owners.find(mutex);
  if (entry == nullptr) {
    entry = owners.add(mutex, Owner{rank, holder, 0});
    if (entry == nullptr)
      return; // untracked: waited for on the thread, as without this interposition
  }
  if (entry->tracked.holder != holder) // the entry of a mutex freed or destroyed while held: it is free now
    entry->tracked = Owner{rank, holder, 0};
  ++entry->tracked.depth;
}

// Every rank has the same thread id, so the C library takes a recursive mutex that another rank holds
// for this rank's own: there, the table decides.
bool is_recursive(const pthread_mutex_t* mutex)
{
  return (mutex->__data.__kind & 3) == PTHREAD_MUTEX_RECURSIVE_NP;
}

} // namespace

/** Sleeps the next poll of a lock wait, `waited` seconds long so far; both grow. */
void bxisim::os::sleep_lock_poll(double& delay, double& waited)
{
  bool first = waited == 0;
  waited += delay;
  bxisim::os::surviving_kill("killed while waiting for a lock another rank holds", [delay, first] {
    bxisim::os::SimulatorCall call;
    if (first && call.rank() != nullptr)
      bxisim::os::notify_sibling_wait(*call.rank()); // the holder may be another thread of it, blocked in a poll
    bxisim::os::OffCpu blocked;
    bxisim::os::sleep_rank(delay);
  });
  delay = std::min(2 * delay, kLongestPoll);
}

void bxisim::os::report_endless_lock_wait(const char* message)
{
  if (endless_wait_handler != nullptr)
    endless_wait_handler(message);
}

void bxisim::os::set_endless_lock_wait_handler(void (*handler)(const char* message))
{
  endless_wait_handler = handler;
}

extern "C" int pthread_mutex_lock(pthread_mutex_t* mutex)
{
  Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(pthread_mutex_lock)(mutex);
  const void* me = bxisim::os::current_lock_holder(rank);
  double waited  = 0;
  for (double delay = bxisim::os::kFirstLockPoll;; bxisim::os::sleep_lock_poll(delay, waited)) {
    const Owner* held = owner_of(mutex);
    Rank* owner       = held != nullptr && held->holder != me ? held->rank : nullptr; // another holder
    if (waited >= bxisim::os::kLongestLockWait && owner != nullptr && owner != rank && endless_wait_handler != nullptr)
      endless_wait_handler(
          fmt::format(
              "bxisim: rank {} has waited {} s of simulated time for a lock of a shared library that rank {} holds "
              "across a simulator call, and rank {} still holds it: it probably waits for rank {} in turn (all ranks "
              "share the library, and so its lock, where each process would have its own). Give each rank its own "
              "copy of the library (--privatize-lib NAME), or make the call outside the library's lock.\n",
              rank->index(), bxisim::os::kLongestLockWait, owner->index(), owner->index(), rank->index())
              .c_str());
    if (owner != nullptr && is_recursive(mutex))
      continue;
    int code = BXISIM_REAL(pthread_mutex_trylock)(mutex);
    if (code == EBUSY && owner == nullptr && held != nullptr) // a deadlock of its own
      code = BXISIM_REAL(pthread_mutex_lock)(mutex);
    if (code == EBUSY && held == nullptr) // not a rank's lock: a real thread's, which will release it
      code = BXISIM_REAL(pthread_mutex_lock)(mutex);
    if (code == EBUSY) // another rank, or another thread of this one, holds it inside a simulator call
      continue;
    if (code == 0)
      note_taken(mutex, rank, me);
    return code;
  }
}

extern "C" int pthread_mutex_trylock(pthread_mutex_t* mutex)
{
  Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(pthread_mutex_trylock)(mutex);
  const void* me = bxisim::os::current_lock_holder(rank);
  if (const Owner* held = owner_of(mutex); held != nullptr && held->holder != me && is_recursive(mutex))
    return EBUSY;
  int code = BXISIM_REAL(pthread_mutex_trylock)(mutex);
  if (code == 0)
    note_taken(mutex, rank, me);
  return code;
}

namespace
{
/** Tries the mutex (as the rank's pthread_mutex_trylock) until `timeout` simulated seconds have passed, polling. */
int lock_before(pthread_mutex_t* mutex, double timeout)
{
  double waited = 0;
  for (double delay = bxisim::os::kFirstLockPoll;; bxisim::os::sleep_lock_poll(delay, waited)) {
    int code = pthread_mutex_trylock(mutex);
    if (code != EBUSY)
      return code;
    if (waited >= timeout)
      return ETIMEDOUT;
    delay = std::min(delay, timeout - waited);
  }
}
} // namespace

// std::timed_mutex's try_lock_for and try_lock_until, and C's timed locks: polled in simulated time against the
// deadline (the C library's waited in real time, the simulated clock standing still).
extern "C" int pthread_mutex_timedlock(pthread_mutex_t* mutex, const struct timespec* deadline)
{
  if (running_rank() == nullptr)
    return BXISIM_REAL(pthread_mutex_timedlock)(mutex, deadline);
  return lock_before(mutex, bxisim::os::seconds_until(CLOCK_REALTIME, *deadline));
}

extern "C" int pthread_mutex_clocklock(pthread_mutex_t* mutex, clockid_t clock, const struct timespec* deadline)
{
  if (running_rank() == nullptr)
    return BXISIM_REAL(pthread_mutex_clocklock)(mutex, clock, deadline);
  if (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME)
    return EINVAL;
  return lock_before(mutex, bxisim::os::seconds_until(clock, *deadline));
}

namespace
{
/**
 * A rank's thread that only locks and unlocks, never entering the simulator otherwise, is waiting for another of its
 * threads (PT-Scotch's threadContextExit: "lock; read the counter; unlock" until its worker acknowledges). Natively
 * the other thread runs on another core, or the scheduler gives it the core; here all of them run on one, and no
 * other runs before this one enters the simulator. After kSpinningUnlocks such unlocks in a row it polls as a lock
 * waiter does, sleeping kFirstLockPoll: the rank's other threads run meanwhile. Only in the program's code, with
 * threads of its own: a rank's other locks keep their order.
 */
constexpr unsigned kSpinningUnlocks = 64;

void poll_when_spinning(Rank& rank)
{
  static unsigned long last_transitions = 0;
  static unsigned streak                = 0;
  unsigned long transitions             = bxisim::os::simulator_transitions();
  streak                                = transitions == last_transitions ? streak + 1 : 0;
  last_transitions                      = transitions;
  if (streak < kSpinningUnlocks || rank.in_library() || not bxisim::os::has_simulated_threads(rank))
    return;
  streak = 0;
  // A poll, as a lock waiter's: the thread it waits for may itself wait for a lock in simulated time, which does not
  // pass while this one runs (a yield, or a sleep of no time, would leave it running at the same date).
  bxisim::os::surviving_kill("killed while waiting for its other threads", [] {
    bxisim::os::SimulatorCall call;
    bxisim::os::OffCpu spinning;
    bxisim::os::sleep_rank(bxisim::os::kFirstLockPoll);
  });
  last_transitions = bxisim::os::simulator_transitions();
}
} // namespace

extern "C" int pthread_mutex_unlock(pthread_mutex_t* mutex)
{
  if (owners.used != 0)
    if (OwnerTable::Entry* entry = owners.find(mutex); entry != nullptr && --entry->tracked.depth == 0)
      owners.erase(entry);
  int code = BXISIM_REAL(pthread_mutex_unlock)(mutex);
  if (Rank* rank = running_rank())
    poll_when_spinning(*rank);
  return code;
}

extern "C" int pthread_mutex_destroy(pthread_mutex_t* mutex)
{
  if (owners.used != 0)
    if (OwnerTable::Entry* entry = owners.find(mutex))
      owners.erase(entry);
  return BXISIM_REAL(pthread_mutex_destroy)(mutex);
}
