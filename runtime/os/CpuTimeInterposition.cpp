// The CPU-time clocks of ranks: clock(), times(), getrusage(), clock_gettime's CPU-time clocks (through
// TimeInterposition.cpp), clock_getcpuclockid and pthread_getcpuclockid. From a rank's code they read its process's or
// thread's CPU time in simulated time (RankCpuClock.hpp); from the simulator (SimGrid's and bxisim's own measures of
// real work), and for other processes' clocks, the real ones.

#include "RankCpuClock.hpp"
#include "RankTimedWork.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include <xbt/log.h>

#include <cerrno>
#include <cmath>
#include <ctime>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <unistd.h>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_time);

namespace
{
enum class CpuClock { None, Process, Thread };

// Linux's dynamic CPU-time clock ids (clock_getcpuclockid, pthread_getcpuclockid): ~pid << 3 | kind, where kind 2 is
// a process's scheduler time and 6 a thread's. Pid 0 is the caller's own.
constexpr clockid_t kClockKindMask    = 7;
constexpr clockid_t kProcessSchedKind = 2;
constexpr clockid_t kThreadSchedKind  = 6;

CpuClock own_cpu_clock(clockid_t clock)
{
  if (clock == CLOCK_PROCESS_CPUTIME_ID)
    return CpuClock::Process;
  if (clock == CLOCK_THREAD_CPUTIME_ID)
    return CpuClock::Thread;
  if (clock >= 0)
    return CpuClock::None;
  auto pid = static_cast<pid_t>(~(clock >> 3));
  if ((clock & kClockKindMask) == kProcessSchedKind && (pid == 0 || pid == getpid()))
    return CpuClock::Process;
  if ((clock & kClockKindMask) == kThreadSchedKind && pid == 0)
    return CpuClock::Thread;
  return CpuClock::None;
}

bool is_rank_code()
{
  return bxisim::os::running_rank() != nullptr && bxisim::os::has_cpu_clock();
}

/** The calling rank's CPU seconds on `clock` at simulated time `now`. */
double cpu_at(CpuClock clock, double now)
{
  return clock == CpuClock::Process ? bxisim::os::process_cpu_seconds(now) : bxisim::os::thread_cpu_seconds(now);
}

/** The calling rank's CPU seconds on `clock` now; inside a CallEdges scope. */
double read_now(CpuClock clock)
{
  return cpu_at(clock, bxisim::os::rank_clock_in_call_edges());
}

timeval to_timeval(double seconds)
{
  timespec time = bxisim::os::to_timespec(seconds);
  return timeval{time.tv_sec, static_cast<suseconds_t>(time.tv_nsec / 1000)};
}

clock_t to_ticks(double seconds)
{
  static const long ticks_per_second = sysconf(_SC_CLK_TCK);
  return static_cast<clock_t>(std::floor(seconds * static_cast<double>(ticks_per_second)));
}
} // namespace

bool bxisim::os::read_cpu_time_clock(clockid_t clock, timespec* time)
{
  CpuClock which = own_cpu_clock(clock);
  if (which == CpuClock::None || not is_rank_code())
    return false;
  bxisim::os::CallEdges edges;
  *time = to_timespec(read_now(which));
  return true;
}

extern "C" {

clock_t clock() noexcept
{
  if (not is_rank_code())
    return BXISIM_REAL(clock)();
  bxisim::os::CallEdges edges;
  return static_cast<clock_t>(std::floor(read_now(CpuClock::Process) * CLOCKS_PER_SEC));
}

clock_t times(struct tms* buffer) noexcept
{
  if (not is_rank_code())
    return BXISIM_REAL(times)(buffer);
  bxisim::os::CallEdges edges;
  double now = bxisim::os::rank_clock_in_call_edges();
  if (buffer != nullptr) // no child processes; the system's share is in the computation
    *buffer = tms{to_ticks(cpu_at(CpuClock::Process, now)), 0, 0, 0};
  return to_ticks(now);
}

int getrusage(int who, struct rusage* usage) noexcept
{
  if (not is_rank_code())
    return BXISIM_REAL(getrusage)(who, usage);
  bxisim::os::CallEdges edges;
  int code = BXISIM_REAL(getrusage)(who, usage); // the simulator's memory and counters (one process for all ranks)
  if (code != 0)
    return code;
  double cpu = 0;
  if (who == RUSAGE_SELF)
    cpu = read_now(CpuClock::Process);
  else if (who == RUSAGE_THREAD)
    cpu = read_now(CpuClock::Thread);
  usage->ru_utime = to_timeval(cpu);
  usage->ru_stime = timeval{0, 0};
  return 0;
}

// Ranks have simulated process ids (ProcessInterposition.cpp): the C library would make a clock of another process.
int clock_getcpuclockid(pid_t pid, clockid_t* clock) noexcept
{
  if (not is_rank_code())
    return BXISIM_REAL(clock_getcpuclockid)(pid, clock);
  auto* rank = bxisim::os::running_rank();
  if (pid != 0 && pid != getpid()) {
    // another rank's pid would be a host process's to the C library: its CPU time is not simulated
    if (pid >= bxisim::runtime::Rank::kFirstSimulatedPid &&
        pid < bxisim::runtime::Rank::kFirstSimulatedPid + rank->size())
      return EPERM;
    return BXISIM_REAL(clock_getcpuclockid)(pid, clock);
  }
  *clock = CLOCK_PROCESS_CPUTIME_ID;
  return 0;
}

int pthread_getcpuclockid(pthread_t thread, clockid_t* clock) noexcept
{
  if (not is_rank_code())
    return BXISIM_REAL(pthread_getcpuclockid)(thread, clock);
  if (pthread_equal(thread, pthread_self()) == 0) {
    static bool said = false;
    if (not said)
      XBT_CWARN(bxisim_time,
                "pthread_getcpuclockid of another thread than the caller is not simulated: a rank reads "
                "the CPU time of its own thread (CLOCK_THREAD_CPUTIME_ID) or of its process only (ENOENT).");
    said = true;
    return ENOENT;
  }
  *clock = CLOCK_THREAD_CPUTIME_ID;
  return 0;
}

} // extern "C"
