// pthread_once (and so C++'s std::call_once) from a rank's code: a caller that finds the initialization under way
// waits in simulated time.
//
// The C library's waiter sleeps in the kernel (a futex) until the initializing thread is done; when that one is another
// thread of the rank, or another rank (a library the ranks share), whose init routine made a simulator call (a sleep,
// an MPI call), it could only be done once the waiter let the simulator's one thread go: the run hung until the
// watchdog. Here the waiter polls as for a mutex (LockInterposition.hpp). The word keeps the C library's states
// (nptl's pthread_once.c: bit 0 in progress, bit 1 done, the fork generation above, which stays 0 here: ranks do not
// fork), so that real threads, which keep the C library's pthread_once, agree with ranks on one word.

#include "LockInterposition.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include <fmt/format.h>

#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

namespace
{
constexpr int kInProgress = 1;
constexpr int kDone       = 2;

/** Done (or given up, back to 0): the real threads the C library put to sleep on the word wake. */
void publish(pthread_once_t* once, int state)
{
  __atomic_store_n(once, state, __ATOMIC_RELEASE);
  BXISIM_REAL(syscall)(SYS_futex, once, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

/** The word back to "not done" if the init routine is left by an exception (a kill of the rank unwinding it). */
class InitInProgress
{
 public:
  explicit InitInProgress(pthread_once_t* once) : once_(once) {}
  InitInProgress(const InitInProgress&)            = delete;
  InitInProgress& operator=(const InitInProgress&) = delete;
  ~InitInProgress()
  {
    if (once_ != nullptr)
      publish(once_, 0);
  }
  void done()
  {
    publish(once_, kDone);
    once_ = nullptr;
  }

 private:
  pthread_once_t* once_;
};
} // namespace

extern "C" int pthread_once(pthread_once_t* once, void (*init)(void))
{
  bxisim::runtime::Rank* rank = bxisim::os::running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(pthread_once)(once, init);
  double delay  = bxisim::os::kFirstLockPoll;
  double waited = 0;
  for (;;) {
    int state = __atomic_load_n(once, __ATOMIC_ACQUIRE);
    if ((state & kDone) != 0)
      return 0;
    if ((state & kInProgress) == 0) {
      if (not __atomic_compare_exchange_n(once, &state, kInProgress, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        continue;
      InitInProgress in_progress(once);
      init();
      in_progress.done();
      return 0;
    }
    if (waited >= bxisim::os::kLongestLockWait)
      bxisim::os::report_endless_lock_wait(
          fmt::format("bxisim: rank {} has waited a simulated second in pthread_once (or std::call_once) for an "
                      "initialization that another thread or rank (or the init routine itself, calling it again) has "
                      "under way: the initializing thread most likely waits for this one. Make the init routine "
                      "independent of the threads that call it.\n",
                      rank->index())
              .c_str());
    bxisim::os::sleep_lock_poll(delay, waited);
  }
}
