// pthread_rwlock_*, interposed for the ranks' own code: a read-write lock that another thread of the rank (or
// another rank) holds is waited for in simulated time, as mutexes are (LockInterposition.cpp).
//
// A rank's simulated threads all run on the simulator's one thread, with one thread id. The C library's blocking
// rdlock and wrlock would put that thread to sleep on a lock only it could release (the whole run hung), and they
// take a lock whose writer has the caller's thread id for the caller's own: a second thread asking while the first
// holds the write lock got EDEADLK at once. Here the lock is tried, and a waiter sleeps in simulated time, polling
// as a spinning CPU would, until the holder releases it. Holders are tracked per rank thread (os::current_lock_holder):
// a thread asking again for a write lock it holds gets EDEADLK, as from the C library.

#include "HeldLockTable.hpp"
#include "LockInterposition.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "ThreadInterposition.hpp"
#include "runtime/launch/Rank.hpp"

#include <cerrno>
#include <ctime>
#include <fmt/format.h>
#include <pthread.h>

namespace
{
using bxisim::os::running_rank;
using bxisim::runtime::Rank;

// The read-write locks the ranks hold: who holds them for writing, how many read holds.
struct Holds {
  Rank* writer_rank;  // nullptr: no rank thread holds it for writing
  const void* writer; // the rank thread that does
  Rank* reader_rank;  // a rank holding it for reading (the last one that took it), for messages
  unsigned readers;   // read holds taken by rank threads
};
using HeldTable = bxisim::os::HeldLockTable<pthread_rwlock_t, Holds>;
thread_local HeldTable held;

enum class Mode { Read, Write };

/** The deadline of a timed wait, on the simulated clock `clock`, or nullptr: none. */
struct Deadline {
  clockid_t clock;
  const timespec* at;
  bool passed() const
  {
    if (at == nullptr)
      return false;
    timespec now{};
    clock_gettime(clock, &now); // the rank's simulated clock
    return now.tv_sec > at->tv_sec || (now.tv_sec == at->tv_sec && now.tv_nsec >= at->tv_nsec);
  }
};

int real_try(pthread_rwlock_t* lock, Mode mode)
{
  return mode == Mode::Read ? BXISIM_REAL(pthread_rwlock_tryrdlock)(lock) : BXISIM_REAL(pthread_rwlock_trywrlock)(lock);
}

int real_wait(pthread_rwlock_t* lock, Mode mode, const Deadline& deadline)
{
  if (deadline.at == nullptr)
    return mode == Mode::Read ? BXISIM_REAL(pthread_rwlock_rdlock)(lock) : BXISIM_REAL(pthread_rwlock_wrlock)(lock);
  return mode == Mode::Read ? BXISIM_REAL(pthread_rwlock_clockrdlock)(lock, deadline.clock, deadline.at)
                            : BXISIM_REAL(pthread_rwlock_clockwrlock)(lock, deadline.clock, deadline.at);
}

void note_taken(pthread_rwlock_t* lock, Mode mode, Rank* rank, const void* me)
{
  HeldTable::Entry* entry = held.find(lock);
  if (entry == nullptr && (entry = held.add(lock, Holds{nullptr, nullptr, nullptr, 0})) == nullptr)
    return; // untracked
  Holds& holds = entry->tracked;
  if (mode == Mode::Write) {
    holds.writer_rank = rank;
    holds.writer      = me;
  } else {
    holds.reader_rank = rank;
    ++holds.readers;
  }
}

int take(pthread_rwlock_t* lock, Mode mode, const Deadline& deadline)
{
  Rank* rank = running_rank();
  if (rank == nullptr)
    return real_wait(lock, mode, deadline);
  const void* me = bxisim::os::current_lock_holder(rank);
  double waited  = 0;
  for (double delay = bxisim::os::kFirstLockPoll;; bxisim::os::sleep_lock_poll(delay, waited)) {
    const HeldTable::Entry* found = held.find(lock);
    const Holds* entry            = found != nullptr ? &found->tracked : nullptr;
    if (entry != nullptr && entry->writer_rank != nullptr && entry->writer == me)
      return EDEADLK; // it holds the write lock itself
    int code = real_try(lock, mode);
    if (code == 0) {
      note_taken(lock, mode, rank, me);
      return 0;
    }
    if (code != EBUSY)
      return code; // EAGAIN (too many readers), EINVAL
    bool ranks_hold = entry != nullptr && (entry->writer_rank != nullptr || entry->readers > 0);
    if (not ranks_hold) { // a real thread's (or an untracked hold): it will release it on its own
      code = real_wait(lock, mode, deadline);
      if (code == 0)
        note_taken(lock, mode, rank, me);
      return code;
    }
    if (deadline.passed())
      return ETIMEDOUT;
    if (waited >= bxisim::os::kLongestLockWait) {
      Rank* holder = entry->writer_rank != nullptr ? entry->writer_rank : entry->reader_rank;
      bxisim::os::report_endless_lock_wait(
          fmt::format("bxisim: rank {} has waited {} s of simulated time to take a read-write lock for {} that rank {} "
                      "holds for {}: a thread probably waits for itself (a thread holding it for reading asks for it "
                      "for writing) or for the waiter. Release the lock before waiting for another thread.\n",
                      rank->index(), bxisim::os::kLongestLockWait, mode == Mode::Read ? "reading" : "writing",
                      holder->index(), entry->writer_rank != nullptr ? "writing" : "reading")
              .c_str());
    }
  }
}
} // namespace

extern "C" {

int pthread_rwlock_rdlock(pthread_rwlock_t* lock)
{
  return take(lock, Mode::Read, {CLOCK_REALTIME, nullptr});
}

int pthread_rwlock_wrlock(pthread_rwlock_t* lock)
{
  return take(lock, Mode::Write, {CLOCK_REALTIME, nullptr});
}

int pthread_rwlock_timedrdlock(pthread_rwlock_t* lock, const timespec* deadline)
{
  return take(lock, Mode::Read, {CLOCK_REALTIME, deadline});
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t* lock, const timespec* deadline)
{
  return take(lock, Mode::Write, {CLOCK_REALTIME, deadline});
}

int pthread_rwlock_clockrdlock(pthread_rwlock_t* lock, clockid_t clock, const timespec* deadline)
{
  return take(lock, Mode::Read, {clock, deadline});
}

int pthread_rwlock_clockwrlock(pthread_rwlock_t* lock, clockid_t clock, const timespec* deadline)
{
  return take(lock, Mode::Write, {clock, deadline});
}

int pthread_rwlock_tryrdlock(pthread_rwlock_t* lock)
{
  int code = BXISIM_REAL(pthread_rwlock_tryrdlock)(lock);
  if (Rank* rank = running_rank(); rank != nullptr && code == 0)
    note_taken(lock, Mode::Read, rank, bxisim::os::current_lock_holder(rank));
  return code;
}

int pthread_rwlock_trywrlock(pthread_rwlock_t* lock)
{
  int code = BXISIM_REAL(pthread_rwlock_trywrlock)(lock);
  if (Rank* rank = running_rank(); rank != nullptr && code == 0)
    note_taken(lock, Mode::Write, rank, bxisim::os::current_lock_holder(rank));
  return code;
}

int pthread_rwlock_unlock(pthread_rwlock_t* lock)
{
  if (held.used != 0)
    if (HeldTable::Entry* entry = held.find(lock)) {
      Holds& holds = entry->tracked;
      if (holds.writer_rank != nullptr)
        holds.writer_rank = nullptr; // a write hold excludes read holds: this unlock is the writer's
      else if (holds.readers > 0)
        --holds.readers;
      if (holds.writer_rank == nullptr && holds.readers == 0)
        held.erase(entry);
    }
  return BXISIM_REAL(pthread_rwlock_unlock)(lock);
}

int pthread_rwlock_destroy(pthread_rwlock_t* lock)
{
  if (held.used != 0)
    if (HeldTable::Entry* entry = held.find(lock))
      held.erase(entry);
  return BXISIM_REAL(pthread_rwlock_destroy)(lock);
}

} // extern "C"
