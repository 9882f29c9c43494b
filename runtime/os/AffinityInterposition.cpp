// CPU affinity of a rank's threads. All ranks run on one real thread, so a rank pinning its main thread
// (sched_setaffinity, pthread_setaffinity_np: PT-Scotch's threadContextInit pins each thread to one core) pinned the
// simulator, and the next ranks read that one core and sized their thread pools from it (PT-Scotch then assumed equal
// pools across processes and its distributed code went wrong). Each thread of a rank has its own mask here, as each
// thread of a process has: it starts as the process's, is changed and read by these calls, and never reaches the real
// thread. Real threads (those libraries create, the simulator's) keep the system's calls.

#include "AffinityInterposition.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "ThreadInterposition.hpp"
#include "runtime/launch/Rank.hpp"

#include <pthread.h>
#include <sched.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

namespace
{
using bxisim::runtime::Rank;

/** The process's mask as it started: what every rank's thread has until it changes its own. */
const cpu_set_t& process_mask()
{
  static const cpu_set_t mask = [] {
    cpu_set_t found;
    CPU_ZERO(&found);
    if (BXISIM_REAL(sched_getaffinity)(0, sizeof(found), &found) != 0)
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        CPU_SET(cpu, &found);
    return found;
  }();
  return mask;
}

std::map<const void*, cpu_set_t> masks; // by thread (a rank for its main thread, or a simulated thread)

/** The rank thread `id` names (pthread_self's value for the running one), if it is one. */
std::optional<const void*> rank_thread_of_id(pthread_t id)
{
  Rank* rank = bxisim::os::running_rank();
  if (rank == nullptr)
    return std::nullopt;
  if (const void* thread = bxisim::os::simulated_thread_of_id(id))
    return thread;
  if (pthread_equal(id, BXISIM_REAL(pthread_self)())) // the real thread: the rank's main thread, as it sees it
    return static_cast<const void*>(rank);
  return std::nullopt;
}

/** The rank thread a pid names: 0, the caller's own pid (getpid(), its main thread's), or none. */
std::optional<const void*> rank_thread_of_pid(pid_t pid)
{
  Rank* rank = bxisim::os::running_rank();
  if (rank == nullptr)
    return std::nullopt;
  if (pid == 0)
    return bxisim::os::current_lock_holder(rank);
  if (pid == rank->simulated_pid())
    return static_cast<const void*>(rank);
  return std::nullopt;
}

int get_mask(const void* thread, size_t size, cpu_set_t* mask)
{
  if (mask == nullptr)
    return EFAULT;
  auto found             = masks.find(thread);
  const cpu_set_t& known = found != masks.end() ? found->second : process_mask();
  std::memset(mask, 0, size);
  std::memcpy(mask, &known, std::min(size, sizeof(cpu_set_t)));
  return 0;
}

int set_mask(const void* thread, size_t size, const cpu_set_t* mask)
{
  if (mask == nullptr)
    return EFAULT;
  cpu_set_t wanted;
  CPU_ZERO(&wanted);
  std::memcpy(&wanted, mask, std::min(size, sizeof(cpu_set_t)));
  cpu_set_t allowed;
  CPU_AND(&allowed, &wanted, &process_mask());
  if (CPU_COUNT(&allowed) == 0)
    return EINVAL; // as the kernel answers a mask of no CPU the process may use
  masks[thread] = allowed;
  return 0;
}

/** The system call's convention: -1 and errno. */
int as_system_call(int error)
{
  if (error == 0)
    return 0;
  errno = error;
  return -1;
}
} // namespace

void bxisim::os::note_thread_created(const void* creator, const void* thread, const pthread_attr_t* attributes)
{
  cpu_set_t mask;
  if (attributes != nullptr && pthread_attr_getaffinity_np(attributes, sizeof(mask), &mask) == 0 &&
      CPU_COUNT(&mask) > 0) {
    if (set_mask(thread, sizeof(mask), &mask) == 0)
      return;
  }
  auto found = masks.find(creator);
  if (found != masks.end())
    masks[thread] = found->second;
  else
    masks.erase(thread);
}

void bxisim::os::forget_thread_affinity(const void* thread)
{
  masks.erase(thread);
}

extern "C" {

int sched_getaffinity(pid_t pid, size_t size, cpu_set_t* mask)
{
  if (auto thread = rank_thread_of_pid(pid)) {
    return as_system_call(get_mask(*thread, size, mask));
  }
  return BXISIM_REAL(sched_getaffinity)(pid, size, mask);
}

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* mask)
{
  if (auto thread = rank_thread_of_pid(pid)) {
    return as_system_call(set_mask(*thread, size, mask));
  }
  return BXISIM_REAL(sched_setaffinity)(pid, size, mask);
}

int pthread_getaffinity_np(pthread_t id, size_t size, cpu_set_t* mask)
{
  if (auto thread = rank_thread_of_id(id)) {
    return get_mask(*thread, size, mask);
  }
  return BXISIM_REAL(pthread_getaffinity_np)(id, size, mask);
}

int pthread_setaffinity_np(pthread_t id, size_t size, const cpu_set_t* mask)
{
  if (auto thread = rank_thread_of_id(id)) {
    return set_mask(*thread, size, mask);
  }
  return BXISIM_REAL(pthread_setaffinity_np)(id, size, mask);
}

} // extern "C"
