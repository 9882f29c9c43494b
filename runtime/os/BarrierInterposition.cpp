// Barriers and semaphores that a rank's code uses (its main thread and its simulated threads,
// ThreadInterposition.hpp; named semaphores, which ranks of a node share): waited for in simulated time. All of
// a rank's threads run on the simulator's thread, so the C library's waits would put that thread to sleep until
// a post that only it could make. A barrier or semaphore a rank's code initializes (or opens) is kept here, its waits
// on a SimGrid semaphore; those of the simulator and of real threads (made outside rank code) are the C library's.
// glibc declares most of these noexcept: their simulator calls survive a kill of the rank (RankEnd.hpp).

#include "InSimulatorHeap.hpp"
#include "RankCpuClock.hpp"
#include "RankEnd.hpp"
#include "RankHeap.hpp"
#include "RankTimedWork.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include "hw/actors/WaitQueue.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <ctime>
#include <limits>
#include <unordered_map>

namespace
{
struct Barrier {
  unsigned count = 0; // threads that must arrive
  bxisim::hw::WaitQueue arrived;
};
struct Semaphore {
  unsigned value = 0;
  bxisim::hw::WaitQueue waiting; // threads blocked in sem_wait, not yet posted to
};
// Used inside simulator calls only (the simulator's heap).
std::unordered_map<const pthread_barrier_t*, Barrier> barriers;
std::unordered_map<const sem_t*, Semaphore> semaphores;
std::unordered_map<const sem_t*, unsigned> named_openings; // named semaphores rank code opened, not yet closed as often

using bxisim::os::InSimulatorHeap;

/** Takes the semaphore, waiting `timeout` seconds at most (infinity: no limit); true when it timed out. */
bool take(Semaphore& semaphore, double timeout)
{
  if (semaphore.value > 0) {
    --semaphore.value;
    return false;
  }
  bxisim::os::OffCpu blocked;
  return semaphore.waiting.wait(timeout);
}
/** sem_timedwait and sem_clockwait of a semaphore rank code made: 0, or -1 and ETIMEDOUT at `deadline` on `clock`. */
int take_before(sem_t* semaphore, clockid_t clock, const timespec& deadline)
{
  double timeout = bxisim::os::seconds_until(clock, deadline);
  bxisim::os::SimulatorCall call;
  if (take(semaphores[semaphore], std::max(timeout, 0.0))) {
    errno = ETIMEDOUT;
    return -1;
  }
  return 0;
}
} // namespace

extern "C" {

int pthread_barrier_init(pthread_barrier_t* barrier, const pthread_barrierattr_t* attributes, unsigned count)
{
  if (bxisim::os::running_rank() == nullptr)
    return BXISIM_REAL(pthread_barrier_init)(barrier, attributes, count);
  if (count == 0)
    return EINVAL;
  InSimulatorHeap heap;
  barriers.insert_or_assign(barrier, Barrier{count, {}});
  return BXISIM_REAL(pthread_barrier_init)(barrier, attributes, count); // a valid object for the C library too
}

int pthread_barrier_wait(pthread_barrier_t* barrier)
{
  if (bxisim::os::running_rank() == nullptr || barriers.count(barrier) == 0)
    return BXISIM_REAL(pthread_barrier_wait)(barrier);
  return bxisim::os::surviving_kill("killed in pthread_barrier_wait", [&] {
    bxisim::os::SimulatorCall call;
    Barrier& meeting = barriers[barrier];
    if (meeting.arrived.waiting() + 1 < meeting.count) {
      bxisim::os::OffCpu blocked;
      meeting.arrived.wait(std::numeric_limits<double>::infinity());
      return 0;
    }
    meeting.arrived.wake_all();
    return PTHREAD_BARRIER_SERIAL_THREAD;
  });
}

int pthread_barrier_destroy(pthread_barrier_t* barrier)
{
  if (bxisim::os::running_rank() == nullptr || barriers.count(barrier) == 0)
    return BXISIM_REAL(pthread_barrier_destroy)(barrier);
  InSimulatorHeap heap;
  barriers.erase(barrier);
  return BXISIM_REAL(pthread_barrier_destroy)(barrier);
}

int sem_init(sem_t* semaphore, int shared, unsigned value)
{
  if (bxisim::os::running_rank() == nullptr)
    return BXISIM_REAL(sem_init)(semaphore, shared, value);
  InSimulatorHeap heap;
  semaphores.insert_or_assign(semaphore, Semaphore{value, {}});
  return BXISIM_REAL(sem_init)(semaphore, shared, value); // a valid object for the C library too
}

int sem_destroy(sem_t* semaphore)
{
  if (bxisim::os::running_rank() == nullptr || semaphores.count(semaphore) == 0)
    return BXISIM_REAL(sem_destroy)(semaphore);
  InSimulatorHeap heap;
  semaphores.erase(semaphore);
  return BXISIM_REAL(sem_destroy)(semaphore);
}

int sem_post(sem_t* semaphore)
{
  if (bxisim::os::running_rank() == nullptr || semaphores.count(semaphore) == 0)
    return BXISIM_REAL(sem_post)(semaphore);
  return bxisim::os::surviving_kill("killed in sem_post", [&] {
    bxisim::os::SimulatorCall call;
    Semaphore& posted = semaphores[semaphore];
    if (posted.waiting.waiting() > 0)
      posted.waiting.wake(1);
    else
      ++posted.value;
    return 0;
  });
}

int sem_wait(sem_t* semaphore)
{
  if (bxisim::os::running_rank() == nullptr || semaphores.count(semaphore) == 0)
    return BXISIM_REAL(sem_wait)(semaphore);
  bxisim::os::SimulatorCall call;
  take(semaphores[semaphore], std::numeric_limits<double>::infinity());
  return 0;
}

int sem_trywait(sem_t* semaphore)
{
  if (bxisim::os::running_rank() == nullptr || semaphores.count(semaphore) == 0)
    return BXISIM_REAL(sem_trywait)(semaphore);
  Semaphore& tried = semaphores.at(semaphore); // no simulator call: nothing waits, nothing allocates
  if (tried.value == 0) {
    errno = EAGAIN;
    return -1;
  }
  --tried.value;
  return 0;
}

int sem_timedwait(sem_t* semaphore, const struct timespec* deadline)
{
  if (bxisim::os::running_rank() == nullptr || semaphores.count(semaphore) == 0)
    return BXISIM_REAL(sem_timedwait)(semaphore, deadline);
  return take_before(semaphore, CLOCK_REALTIME, *deadline);
}

// A named semaphore is shared by the ranks that open it (processes of one node, in a real run): the C library maps
// one name once per process and gives every opening the same address, so the ranks share it here too; it is
// simulated from the first opening by rank code (with the value it then has) to the last closing.
sem_t* sem_open(const char* name, int flags, ...)
{
  mode_t mode    = 0;
  unsigned value = 0;
  if ((flags & O_CREAT) != 0) {
    va_list arguments;
    va_start(arguments, flags);
    mode  = static_cast<mode_t>(va_arg(arguments, unsigned));
    value = va_arg(arguments, unsigned);
    va_end(arguments);
  }
  sem_t* semaphore = BXISIM_REAL(sem_open)(name, flags, mode, value);
  if (semaphore == SEM_FAILED || bxisim::os::running_rank() == nullptr)
    return semaphore;
  InSimulatorHeap heap;
  if (auto opened = named_openings.find(semaphore); opened != named_openings.end()) {
    ++opened->second;
    return semaphore;
  }
  int current = 0;
  BXISIM_REAL(sem_getvalue)(semaphore, &current);
  semaphores.insert_or_assign(semaphore, Semaphore{static_cast<unsigned>(std::max(current, 0)), {}});
  named_openings[semaphore] = 1;
  return semaphore;
}

int sem_close(sem_t* semaphore)
{
  if (bxisim::os::running_rank() != nullptr)
    if (auto opened = named_openings.find(semaphore); opened != named_openings.end() && --opened->second == 0) {
      InSimulatorHeap heap;
      named_openings.erase(opened);
      semaphores.erase(semaphore); // its address may be another name's after the C library unmaps it
    }
  return BXISIM_REAL(sem_close)(semaphore);
}

int sem_clockwait(sem_t* semaphore, clockid_t clock, const struct timespec* deadline)
{
  if (bxisim::os::running_rank() == nullptr || semaphores.count(semaphore) == 0)
    return BXISIM_REAL(sem_clockwait)(semaphore, clock, deadline);
  if (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME) {
    errno = EINVAL;
    return -1;
  }
  return take_before(semaphore, clock, *deadline);
}

int sem_getvalue(sem_t* semaphore, int* value)
{
  if (bxisim::os::running_rank() == nullptr || semaphores.count(semaphore) == 0)
    return BXISIM_REAL(sem_getvalue)(semaphore, value);
  *value = static_cast<int>(semaphores.at(semaphore).value);
  return 0;
}

} // extern "C"
