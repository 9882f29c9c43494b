// pthread_spin_lock from a rank's code: a spin lock another thread of the rank (or another rank) holds is waited for
// in simulated time.
//
// The C library spins in its own code, where bxisim never pauses a rank (os/Preemption.hpp: only the rank's own code
// is a safe place): a holder that made a simulator call (a sleep, an MPI call) while holding it never ran again, and
// the run hung with the waiter spinning. Here the waiter tries the lock and polls as for a mutex
// (LockInterposition.hpp); trylock and unlock stay the C library's.

#include "LockInterposition.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include <fmt/format.h>
#include <pthread.h>

#include <cerrno>

extern "C" int pthread_spin_lock(pthread_spinlock_t* lock)
{
  bxisim::runtime::Rank* rank = bxisim::os::running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(pthread_spin_lock)(lock);
  double delay  = bxisim::os::kFirstLockPoll;
  double waited = 0;
  for (;;) {
    int code = BXISIM_REAL(pthread_spin_trylock)(lock);
    if (code != EBUSY)
      return code;
    if (waited >= bxisim::os::kLongestLockWait)
      bxisim::os::report_endless_lock_wait(
          fmt::format("bxisim: rank {} has waited a simulated second for a spin lock that another thread or rank (or "
                      "the same thread) holds: its holder most likely waits for this one. Release the lock before "
                      "waiting for another thread, or use a mutex.\n",
                      rank->index())
              .c_str());
    bxisim::os::sleep_lock_poll(delay, waited);
  }
}
