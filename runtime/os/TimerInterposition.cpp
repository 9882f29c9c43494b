// Wall-clock timers of ranks: alarm, ualarm, setitimer. They signal the process, which is the whole simulator, and
// a rank's signal handlers are its own (SignalInterposition.cpp), never the process's: the real SIGALRM, SIGVTALRM
// or SIGPROF killed the simulator with no report (HDF5's tests arm alarm(1200) as a watchdog, and a run at cycle
// passes 20 minutes). A rank's timer is not armed: bxisim says so once per rank and function, and --wall-limit
// bounds a run's wall time with a report of where each rank is.

#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include <xbt/log.h>

#include <sys/time.h>
#include <unistd.h>

#include <cstring>
#include <set>
#include <string>
#include <utility>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(bxisim_process);

using bxisim::os::running_rank;

namespace
{
/** Says once per rank and function that `call` is not armed. */
void not_armed(const bxisim::runtime::Rank& rank, const char* call)
{
  static std::set<std::pair<int, std::string>> said;
  if (not said.insert({rank.index(), call}).second)
    return;
  XBT_WARN("rank %d called %s: timers count wall time and signal the whole simulator (their signal would end the run "
           "with no report), so bxisim does not arm it; the call succeeds and no signal comes. Bound a run's wall "
           "time with `bxisim run --wall-limit SECONDS`.",
           rank.index(), call);
}
} // namespace

extern "C" {

unsigned int alarm(unsigned int seconds) noexcept
{
  bxisim::runtime::Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(alarm)(seconds);
  if (seconds != 0)
    not_armed(*rank, "alarm");
  return 0;
}

useconds_t ualarm(useconds_t microseconds, useconds_t interval) noexcept
{
  bxisim::runtime::Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(ualarm)(microseconds, interval);
  if (microseconds != 0)
    not_armed(*rank, "ualarm");
  return 0;
}

int setitimer(__itimer_which_t which, const itimerval* value, itimerval* old_value) noexcept
{
  bxisim::runtime::Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(setitimer)(which, value, old_value);
  if (old_value != nullptr)
    std::memset(old_value, 0, sizeof *old_value);
  if (value != nullptr && (value->it_value.tv_sec != 0 || value->it_value.tv_usec != 0))
    not_armed(*rank, "setitimer");
  return 0;
}

int getitimer(__itimer_which_t which, itimerval* value) noexcept
{
  if (running_rank() == nullptr)
    return BXISIM_REAL(getitimer)(which, value);
  std::memset(value, 0, sizeof *value); // never armed
  return 0;
}

} // extern "C"
