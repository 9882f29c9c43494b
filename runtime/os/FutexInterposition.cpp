// Futex system calls that a rank's code makes through the C library's syscall(): libstdc++'s std::future,
// std::promise and std::async (their shared state's wait), C++20's std::atomic::wait, std::counting_semaphore and
// std::latch, and programs' own futex-based locks. A rank's threads all run on the simulator's thread, so a real
// FUTEX_WAIT would put that thread to sleep until a wake that only it could make. Here a wait sleeps in simulated
// time, per futex word, until a FUTEX_WAKE from rank code or its timeout on the simulated clock. glibc's
// own futexes (its mutexes, conditions, semaphores) are system calls made inline, never through syscall(): those
// objects are simulated by the other *Interposition.cpp files. Calls from the simulator and real threads (no rank
// code running) go to the kernel. While threads a library made for the rank run (an OpenMP team), a word may be
// shared with them: a rank's wait also polls the word, and a rank's wake also goes to the kernel.

#include "LockInterposition.hpp"
#include "RankCpuClock.hpp"
#include "RankEnd.hpp"
#include "RankTimedWork.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "ThreadInterposition.hpp"
#include "hw/actors/WaitQueue.hpp"
#include "runtime/launch/CrashReport.hpp"
#include "runtime/launch/Rank.hpp"

#include <fmt/format.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <ctime>
#include <limits>
#include <list>
#include <unordered_map>

namespace
{
struct Waiter;
// The waiters by futex word, in the order they came (FUTEX_WAKE wakes the oldest first, as Linux does for waiters of
// equal priority); used inside simulator calls only. By address alone: what a rank has to itself (its globals, heap
// and stacks) is at addresses of its own, and a word of a library the ranks share (not privatized) is one word, as
// its lock is one lock for all of them.
std::unordered_map<const uint32_t*, std::list<Waiter*>> waiters;

/** A thread in FUTEX_WAIT; it leaves its word's queue when woken, or itself when it times out or its rank is killed. */
struct Waiter {
  const uint32_t* key;
  uint32_t bitset;
  bool woken = false;
  bxisim::hw::WaitQueue wakeup;

  Waiter(const uint32_t* word, uint32_t bits) : key(word), bitset(bits) { waiters[key].push_back(this); }
  ~Waiter()
  {
    if (woken)
      return;
    auto queue = waiters.find(key); // the word it waits on now: FUTEX_REQUEUE may have moved it
    queue->second.remove(this);
    if (queue->second.empty())
      waiters.erase(queue);
  }
  Waiter(const Waiter&)            = delete;
  Waiter& operator=(const Waiter&) = delete;
};

long fail(int error)
{
  errno = error;
  return -1;
}

bool valid(const timespec& time)
{
  return time.tv_sec >= 0 && time.tv_nsec >= 0 && time.tv_nsec < 1000000000L;
}

/** Waits in simulated time until a FUTEX_WAKE from rank code, or `timeout`; 0 or an errno value. */
int wait_for_rank_wake(const uint32_t* word, uint32_t bitset, double timeout)
{
  Waiter waiter(word, bitset);
  waiter.wakeup.wait(timeout);
  return waiter.woken ? 0 : ETIMEDOUT;
}

/**
 * The same while threads a library made for the rank run (an OpenMP team): they may wake the word in real time, with
 * the kernel's FUTEX_WAKE, which bxisim does not see (a function-local static a team thread initializes while the
 * rank's main thread waits for it). The wait polls the word as a spinning CPU would and ends when it has changed, as
 * the kernel would have woken it; after a simulated second of polls it waits for a rank's wake alone.
 */
int wait_for_any_wake(const uint32_t* word, uint32_t expected, uint32_t bitset, double timeout)
{
  constexpr double kLongestPoll = 1e-6;
  double waited                 = 0;
  for (double delay = bxisim::os::kFirstLockPoll; waited < bxisim::os::kLongestLockWait;
       delay        = std::min(2 * delay, kLongestPoll)) {
    double slice = std::min(delay, timeout - waited);
    if (wait_for_rank_wake(word, bitset, slice) == 0)
      return 0;
    waited += slice;
    if (waited >= timeout)
      return ETIMEDOUT;
    if (__atomic_load_n(word, __ATOMIC_SEQ_CST) != expected)
      return 0;
  }
  return wait_for_rank_wake(word, bitset, timeout - waited);
}

long wait(bxisim::runtime::Rank& rank, const uint32_t* word, uint32_t expected, double timeout, uint32_t bitset)
{
  if (bitset == 0)
    return fail(EINVAL);
  // errno is set once the simulator call is over: other actors ran during the wait, on the same thread.
  int error = bxisim::os::surviving_kill("killed in a futex wait", [&]() -> int {
    bxisim::os::SimulatorCall call;
    // Read in the call, as the kernel reads it under its lock: no thread of the rank runs between this and the wait.
    if (__atomic_load_n(word, __ATOMIC_SEQ_CST) != expected)
      return EAGAIN;
    if (timeout <= 0)
      return ETIMEDOUT;
    bxisim::os::notify_sibling_wait(rank); // a sibling's progress loop may have to carry on what this one posted
    rank.set_waiting_for([] { return std::string("a futex wait (std::future, std::atomic::wait, ...)"); });
    bxisim::os::OffCpu blocked;
    int result = rank.has_library_threads() ? wait_for_any_wake(word, expected, bitset, timeout)
                                            : wait_for_rank_wake(word, bitset, timeout);
    rank.set_waiting_for(nullptr);
    return result;
  });
  return error == 0 ? 0 : fail(error);
}

/** Wakes at most `count` waiters of `word` whose bitset meets `bitset`; moves at most `requeued` of the others to
 * `target` (FUTEX_REQUEUE). Returns how many it woke (and moved). */
long wake(const uint32_t* word, long count, uint32_t bitset, const uint32_t* target, long requeued)
{
  if (bitset == 0)
    return fail(EINVAL);
  return bxisim::os::surviving_kill("killed in a futex wake", [&]() -> long {
    bxisim::os::SimulatorCall call;
    auto found = waiters.find(word);
    if (found == waiters.end())
      return 0;
    long done   = 0;
    auto& queue = found->second;
    for (auto it = queue.begin(); it != queue.end() && done < count;) {
      Waiter* waiter = *it;
      if ((waiter->bitset & bitset) == 0) {
        ++it;
        continue;
      }
      it            = queue.erase(it);
      waiter->woken = true;
      waiter->wakeup.wake(1);
      ++done;
    }
    long moved = 0;
    if (target != nullptr && target != word)
      for (; not queue.empty() && moved < requeued; ++moved) {
        Waiter* waiter = queue.front();
        queue.pop_front();
        waiter->key = target;
        waiters[waiter->key].push_back(waiter); // a rehash keeps `queue`: references to elements stay valid
      }
    if (queue.empty())
      waiters.erase(word);
    return done + moved;
  });
}

[[noreturn]] void refuse(const bxisim::runtime::Rank& rank, int operation)
{
  bxisim::runtime::abort_unsupported(
      fmt::format("bxisim: rank {} made a futex system call of operation {} (futex(2)), which bxisim does not simulate "
                  "between a rank's threads: only FUTEX_WAIT, FUTEX_WAIT_BITSET, FUTEX_WAKE, FUTEX_WAKE_BITSET, "
                  "FUTEX_REQUEUE and FUTEX_CMP_REQUEUE are. Use the C library's mutexes, conditions or semaphores, or "
                  "C++'s std::mutex and std::condition_variable, which wait in simulated time.\n",
                  rank.index(), operation)
          .c_str());
}

long simulated_futex(bxisim::runtime::Rank& rank, uint32_t* word, int operation, uint32_t value,
                     const timespec* timeout, uint32_t* word2, uint32_t value3)
{
  constexpr double kNoLimit = std::numeric_limits<double>::infinity();
  int command               = operation & FUTEX_CMD_MASK;
  switch (command) {
  case FUTEX_WAIT: // a relative timeout, measured on the monotonic clock
    if (timeout != nullptr && not valid(*timeout))
      return fail(EINVAL);
    return wait(rank, word, value, timeout == nullptr ? kNoLimit : timeout->tv_sec + timeout->tv_nsec * 1e-9,
                FUTEX_BITSET_MATCH_ANY);
  case FUTEX_WAIT_BITSET: { // an absolute timeout, on the realtime clock if asked
    if (timeout != nullptr && not valid(*timeout))
      return fail(EINVAL);
    clockid_t clock = (operation & FUTEX_CLOCK_REALTIME) != 0 ? CLOCK_REALTIME : CLOCK_MONOTONIC;
    return wait(rank, word, value, timeout == nullptr ? kNoLimit : bxisim::os::seconds_until(clock, *timeout), value3);
  }
  case FUTEX_WAKE:
  case FUTEX_WAKE_BITSET: {
    long woken = wake(word, value, command == FUTEX_WAKE ? FUTEX_BITSET_MATCH_ANY : value3, nullptr, 0);
    if (woken < static_cast<long>(value) && rank.has_library_threads()) { // a library's thread may wait in the kernel
      long real = BXISIM_REAL(syscall)(SYS_futex, word, operation, value - static_cast<uint32_t>(woken), nullptr,
                                       nullptr, value3);
      woken += std::max(real, 0L);
    }
    return woken;
  }
  case FUTEX_CMP_REQUEUE: // no thread of the rank runs between this read and the requeue
    if (__atomic_load_n(word, __ATOMIC_SEQ_CST) != value3)
      return fail(EAGAIN);
    [[fallthrough]];
  case FUTEX_REQUEUE: // the fourth argument is the number to requeue, passed in the timeout's place
    return wake(word, value, FUTEX_BITSET_MATCH_ANY, word2, static_cast<long>(reinterpret_cast<uintptr_t>(timeout)));
  default:
    refuse(rank, command);
  }
}
} // namespace

extern "C" {

long syscall(long number, ...)
{
  // The system call's own arguments: six at most, all in integer registers or their stack slots.
  va_list list;
  va_start(list, number);
  long arguments[6];
  for (long& argument : arguments)
    argument = va_arg(list, long);
  va_end(list);
  bxisim::runtime::Rank* rank = bxisim::os::running_rank();
  if (number == SYS_futex && rank != nullptr)
    return simulated_futex(*rank, reinterpret_cast<uint32_t*>(arguments[0]), static_cast<int>(arguments[1]),
                           static_cast<uint32_t>(arguments[2]), reinterpret_cast<const timespec*>(arguments[3]),
                           reinterpret_cast<uint32_t*>(arguments[4]), static_cast<uint32_t>(arguments[5]));
  return BXISIM_REAL(syscall)(number, arguments[0], arguments[1], arguments[2], arguments[3], arguments[4],
                              arguments[5]);
}

} // extern "C"
