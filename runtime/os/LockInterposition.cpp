// pthread_mutex_lock, interposed for the ranks' own code: a lock that another rank holds is waited for in
// simulated time instead of on the thread all ranks share.
//
// A shared library's lock (libgfortran's I/O units, locked for a whole statement whose output list may
// call MPI_Wtime or MPI_Allreduce) may be held by a rank that switched out inside a simulator call. The
// real pthread_mutex_lock of the next rank would then put the simulator's only thread to sleep on a lock
// that only that thread could release: the whole run hung. Here the waiting rank sleeps in simulated
// time, polling as a spinning CPU would (10 ns doubling to 1 us), until the holder has released it. Locks
// are tracked per owner rank (the thread id is the same for all ranks, so the C library cannot tell
// them apart for recursive mutexes): a rank locking a mutex it holds itself gets the C library's answer.

#include "RankEnd.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <algorithm>
#include <cerrno>
#include <pthread.h>
#include <unordered_map>

namespace
{
using bxisim::os::running_rank;
using bxisim::runtime::Rank;

struct Owner {
  Rank* rank;
  int depth; // recursive mutexes: taken this many times by the owner
};
// Ranks run on the simulator's thread only: the table of the others is empty.
thread_local std::unordered_map<pthread_mutex_t*, Owner> owners;

constexpr double kFirstPoll   = 10e-9;
constexpr double kLongestPoll = 1e-6;

Rank* owner_of(pthread_mutex_t* mutex)
{
  auto it = owners.find(mutex);
  return it == owners.end() ? nullptr : it->second.rank;
}

void note_taken(pthread_mutex_t* mutex, Rank* rank)
{
  auto [it, added] = owners.try_emplace(mutex, Owner{rank, 0});
  if (it->second.rank != rank) // the entry of a mutex freed or destroyed while held: it is free now
    it->second = Owner{rank, 0};
  ++it->second.depth;
}

// Every rank has the same thread id, so the C library takes a recursive mutex that another rank holds
// for this rank's own: there, the table decides.
bool is_recursive(const pthread_mutex_t* mutex)
{
  return (mutex->__data.__kind & 3) == PTHREAD_MUTEX_RECURSIVE_NP;
}

void sleep_a_poll(double& delay)
{
  bxisim::os::surviving_kill("killed while waiting for a lock another rank holds", [delay] {
    bxisim::os::SimulatorCall call;
    simgrid::s4u::this_actor::sleep_for(delay);
  });
  delay = std::min(2 * delay, kLongestPoll);
}
} // namespace

extern "C" int pthread_mutex_lock(pthread_mutex_t* mutex)
{
  Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(pthread_mutex_lock)(mutex);
  for (double delay = kFirstPoll;; sleep_a_poll(delay)) {
    Rank* owner = owner_of(mutex);
    if (owner != nullptr && owner != rank && is_recursive(mutex))
      continue;
    int code = BXISIM_REAL(pthread_mutex_trylock)(mutex);
    if (code == EBUSY && (owner == nullptr || owner == rank)) // a deadlock of its own, or not a rank's lock
      code = BXISIM_REAL(pthread_mutex_lock)(mutex);
    if (code == EBUSY) // another rank holds it, inside a simulator call
      continue;
    if (code == 0)
      note_taken(mutex, rank);
    return code;
  }
}

extern "C" int pthread_mutex_trylock(pthread_mutex_t* mutex)
{
  Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(pthread_mutex_trylock)(mutex);
  if (Rank* owner = owner_of(mutex); owner != nullptr && owner != rank && is_recursive(mutex))
    return EBUSY;
  int code = BXISIM_REAL(pthread_mutex_trylock)(mutex);
  if (code == 0)
    note_taken(mutex, rank);
  return code;
}

extern "C" int pthread_mutex_unlock(pthread_mutex_t* mutex)
{
  if (not owners.empty())
    if (auto it = owners.find(mutex); it != owners.end() && --it->second.depth == 0)
      owners.erase(it);
  return BXISIM_REAL(pthread_mutex_unlock)(mutex);
}

extern "C" int pthread_mutex_destroy(pthread_mutex_t* mutex)
{
  if (not owners.empty())
    owners.erase(mutex);
  return BXISIM_REAL(pthread_mutex_destroy)(mutex);
}
