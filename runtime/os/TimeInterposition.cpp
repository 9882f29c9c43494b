// Simulated time for ranks: the clocks programs time themselves with, and the ways they sleep.
// These definitions in the bxisim executable come before libc's in every lookup, so calls from the
// ranks' copies of the program and from the libraries they use (std::chrono in libstdc++, say)
// land here. Calls from the simulator and from threads that are not ranks go on to libc.

#include "Preemption.hpp"
#include "RankCpuClock.hpp"
#include "RankEnd.hpp"
#include "RankTimedWork.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"

#include "runtime/launch/Rank.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <bits/types/struct_timeb.h> // not <sys/timeb.h>, which marks ftime deprecated: it is defined here
#include <cerrno>
#include <cmath>
#include <ctime>
#include <sched.h>
#include <sys/time.h>
#include <unistd.h>
#include <unordered_map>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_runtime);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_time, bxisim_runtime, "Simulated clocks and sleeps of the ranks");

namespace
{
using bxisim::os::running_rank;
using bxisim::os::SimulatorCall;

using bxisim::os::to_timespec;

/** CPU-time clocks: the rank's own (RankCpuClock.hpp) from its code, the real ones from the simulator. */
bool is_cpu_time_clock(clockid_t clock)
{
  return clock == CLOCK_PROCESS_CPUTIME_ID || clock == CLOCK_THREAD_CPUTIME_ID || clock < 0;
}

double to_seconds(const timespec& time)
{
  return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_nsec) * 1e-9;
}

// A rank that waits for time to pass by reading the clock, `while (MPI_Wtime() - start < t) work();`
// (OSU's overlap benchmarks), or for memory to change by calling sched_yield, `while (!flag)
// sched_yield();`, never ends when its work is not simulated (--no-cpu-simulation, or bursts under
// cpu.threshold): nothing advances simulated time, and the NIC that would write the flag never runs.
// After kSpinCalls such calls at one simulated time, each further one costs kSpinStep, as every clock
// read does in SMPI (its smpi/wtime, 10 ns). Any other advance of time ends this. A program that only times
// its computation (MPI_Wtime around each kernel: ELPA, 20,000 reads in a solve) pays that and no more; after
// kSteadyCalls more, the step doubles after every kCallsPerDoubling calls up to kMaxSpinStep, and bxisim
// says so once per rank: a wait of seconds (MPICH's bsendpending waits 2 s) then takes millions of reads, not
// hundreds of millions, and the loop still ends at most one step late. (SMPI's level has its own rule.)
constexpr unsigned long kSpinCalls        = 1000;
constexpr unsigned long kSteadyCalls      = 100000;
constexpr unsigned long kCallsPerDoubling = 10000;
constexpr double kSpinStep                = 1e-8;
constexpr double kMaxSpinStep             = 1e-6;

struct SpinAtOneTime {
  double time         = -1;
  unsigned long calls = 0;
  bool warned         = false;
};
std::unordered_map<const bxisim::runtime::Rank*, SpinAtOneTime> spins; // ranks run one at a time

/** The simulated time a clock read or a yield of `rank` at simulated time `now` costs: 0 unless it spins. */
double spin_cost(const bxisim::runtime::Rank* rank, double now)
{
  SpinAtOneTime& spin = spins[rank];
  if (now != spin.time) {
    spin.time  = now;
    spin.calls = 0;
    return 0;
  }
  if (++spin.calls < kSpinCalls)
    return 0;
  unsigned long beyond = spin.calls - kSpinCalls;
  int doublings =
      beyond < kSteadyCalls ? 0 : static_cast<int>(std::min((beyond - kSteadyCalls) / kCallsPerDoubling + 1, 16UL));
  if (doublings > 0 && not spin.warned) {
    spin.warned = true;
    XBT_WARN("rank %d read the clock or called sched_yield %lu times with nothing else advancing simulated time "
             "(now %g s): a loop that waits for time to pass, or for memory to change, cannot end when its work is not "
             "simulated (--no-cpu-simulation, or bursts shorter than cpu.threshold). Since the %luth each read and "
             "yield has taken %g s of simulated time (as SMPI charges every clock read); from now on that doubles "
             "after every %lu up to %g s, while this lasts.",
             rank->index(), spin.calls, now, kSpinCalls, kSpinStep, kCallsPerDoubling, kMaxSpinStep);
  }
  double step = std::min(std::ldexp(kSpinStep, doublings), kMaxSpinStep);
  spin.time   = now + step;
  return step;
}

// At --level smpi the clock is SMPI's, whose reads each cost smpi/wtime (10 ns, as under smpirun, kept for
// parity): a loop waiting for a simulated second takes 1e8 reads, hours of wall time, and said nothing (ScaLAPACK's
// BLACS tester waits 2 s so). After kSmpiSpinReads reads in a row that only their cost advanced, bxisim says so.
constexpr unsigned long kSmpiSpinReads = 100000;
constexpr double kSmpiSpinAdvance      = 1e-6; // more than smpi/wtime's default, less than any real work

struct SmpiClockReads {
  double last         = -1;
  unsigned long reads = 0;
  bool warned         = false;
};
std::unordered_map<const bxisim::runtime::Rank*, SmpiClockReads> smpi_clock_reads; // ranks run one at a time

void note_smpi_clock_read(const bxisim::runtime::Rank* rank, double now)
{
  SmpiClockReads& reads = smpi_clock_reads[rank];
  reads.reads           = now - reads.last <= kSmpiSpinAdvance ? reads.reads + 1 : 0;
  reads.last            = now;
  if (reads.reads < kSmpiSpinReads || reads.warned)
    return;
  reads.warned = true;
  XBT_WARN("rank %d read the clock %lu times in a row with only the reads advancing simulated time (at --level smpi "
           "each read costs smpi/wtime, 10 ns by default, as under smpirun): a loop waiting for time to pass takes "
           "1e8 reads per simulated second. Shorten such waits with --cfg smpi/wtime:1e-6 (or more).",
           rank->index(), kSmpiSpinReads);
}

constexpr unsigned kTimeReadsWithoutSwitch = 64;

struct QuietTimeReads {
  unsigned long transitions = 0; // os::simulator_transitions() at the last read
  unsigned count            = 0; // time() reads since, none of them a simulator call
};
std::unordered_map<const bxisim::runtime::Rank*, QuietTimeReads> quiet_time_reads;

/** The simulated clock; reading it is a simulator call, so the CPU burst before is simulated first. */
double simulated_now()
{
  SimulatorCall call;
  if (const auto* hooks = bxisim::os::clock_hooks()) {
    double now = hooks->now();
    if (call.rank() != nullptr)
      note_smpi_clock_read(call.rank(), now);
    return now;
  }
  double now = simgrid::s4u::Engine::get_clock();
  if (call.rank() != nullptr) {
    if (double cost = spin_cost(call.rank(), now); cost > 0) {
      bxisim::os::sleep_rank(cost);
      now = simgrid::s4u::Engine::get_clock();
    }
  }
  return now;
}

double simulated_now_in_noexcept()
{
  return bxisim::os::surviving_kill("killed while reading the clock", simulated_now);
}

/** sched_yield of a rank: the others run; a kill leaves as in simulated_now_in_noexcept. */
void simulated_yield()
{
  bxisim::os::surviving_kill("killed while yielding", [] {
    SimulatorCall call;
    if (double cost = call.rank() != nullptr ? spin_cost(call.rank(), simgrid::s4u::Engine::get_clock()) : 0; cost > 0)
      bxisim::os::sleep_rank(cost);
    else
      simgrid::s4u::this_actor::yield();
  });
}

void simulated_sleep(double seconds)
{
  SimulatorCall call;
  if (const auto* hooks = bxisim::os::clock_hooks()) {
    hooks->sleep(seconds); // simulates the burst before first: only the sleep itself is off the CPU
    bxisim::os::count_off_cpu(std::max(seconds, 0.0));
  } else if (seconds > 0) {
    bxisim::os::OffCpu asleep;
    bxisim::os::sleep_rank(seconds);
  }
}
} // namespace

double bxisim::os::rank_clock()
{
  return simulated_now();
}

double bxisim::os::rank_clock_in_call_edges()
{
  return simulated_now_in_noexcept();
}

double bxisim::os::rank_clock_exact()
{
  SimulatorCall call;
  if (const auto* hooks = bxisim::os::clock_hooks())
    return hooks->flush();
  return simgrid::s4u::Engine::get_clock();
}

extern "C" {

// The clock reads end the rank's burst as they start and start the next as they return (CallEdges, see
// SimulatorCall.hpp), so that their conversions are not the rank's computation.
int clock_gettime(clockid_t clock, timespec* time) noexcept
{
  if (running_rank() == nullptr)
    return BXISIM_REAL(clock_gettime)(clock, time);
  if (is_cpu_time_clock(clock)) {
    if (bxisim::os::read_cpu_time_clock(clock, time))
      return 0;
    bxisim::os::pause_if_preempted_in_call(__builtin_return_address(0));
    return BXISIM_REAL(clock_gettime)(clock, time);
  }
  bxisim::os::CallEdges edges;
  *time = to_timespec(simulated_now_in_noexcept());
  return 0;
}

int gettimeofday(timeval* time, void* zone) noexcept
{
  if (running_rank() == nullptr)
    return BXISIM_REAL(gettimeofday)(time, zone);
  bxisim::os::CallEdges edges;
  timespec now  = to_timespec(simulated_now_in_noexcept());
  time->tv_sec  = now.tv_sec;
  time->tv_usec = static_cast<suseconds_t>(now.tv_nsec / 1000);
  if (zone != nullptr) // UTC, as on most clusters
    *static_cast<struct timezone*>(zone) = {0, 0};
  return 0;
}

// C11's calendar clock (and C++17's std::timespec_get): glibc reads the real clock inside, not through clock_gettime.
int timespec_get(timespec* time, int base) noexcept
{
  if (running_rank() == nullptr || base != TIME_UTC)
    return BXISIM_REAL(timespec_get)(time, base);
  bxisim::os::CallEdges edges;
  *time = to_timespec(simulated_now_in_noexcept());
  return base;
}

// The obsolete ftime (old Fortran and C timing code): the same simulated calendar, in milliseconds.
int ftime(struct timeb* time);
int ftime(struct timeb* time)
{
  if (running_rank() == nullptr)
    return BXISIM_REAL(ftime)(time);
  bxisim::os::CallEdges edges;
  timespec now   = to_timespec(simulated_now_in_noexcept());
  time->time     = now.tv_sec;
  time->millitm  = static_cast<unsigned short>(now.tv_nsec / 1'000'000);
  time->timezone = 0; // UTC, as gettimeofday's zone
  time->dstflag  = 0;
  return 0;
}

// Shared libraries call time() for seeds and time stamps, sometimes holding a lock of theirs
// (libxml2's xmlInitParser): a clock read that switched ranks there let the next rank block on that
// lock on the same thread for ever. So time() reads the simulated clock plus the rank's burst so far
// without ending the burst, and switches only where a spin at one simulated time must be charged.
// At --level smpi, SMPI keeps the account of CPU time and offers no way to read it without charging
// it (a switch): there time() reads the simulated clock as of the rank's last MPI call.
// A loop that calls time() while it waits for memory to change must still let the others run (the NIC
// that writes it): every kTimeReadsWithoutSwitch-th read in a row without a simulator call is a full
// read, which switches, as every read did before.
time_t time(time_t* result) noexcept
{
  bxisim::runtime::Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(time)(result);
  QuietTimeReads& reads     = quiet_time_reads[rank];
  unsigned long transitions = bxisim::os::simulator_transitions();
  if (transitions != reads.transitions) {
    reads.transitions = transitions;
    reads.count       = 0;
  }
  double seconds = 0;
  if (++reads.count >= kTimeReadsWithoutSwitch) {
    bxisim::os::CallEdges edges;
    seconds = simulated_now_in_noexcept();
  } else {
    seconds = simgrid::s4u::Engine::get_clock() + rank->burst_so_far();
    if (double cost = spin_cost(rank, seconds); cost > 0) {
      bxisim::os::CallEdges edges;
      seconds = bxisim::os::surviving_kill("killed while reading the clock", [cost] {
        SimulatorCall call;
        bxisim::os::sleep_rank(cost);
        return simgrid::s4u::Engine::get_clock();
      });
    }
  }
  auto now = static_cast<time_t>(std::floor(seconds));
  if (result != nullptr)
    *result = now;
  return now;
}

int nanosleep(const timespec* duration, timespec* remaining)
{
  if (running_rank() == nullptr)
    return BXISIM_REAL(nanosleep)(duration, remaining);
  if (duration == nullptr || duration->tv_nsec < 0 || duration->tv_nsec >= 1'000'000'000 || duration->tv_sec < 0) {
    errno = EINVAL;
    return -1;
  }
  simulated_sleep(to_seconds(*duration));
  if (remaining != nullptr)
    *remaining = {0, 0};
  return 0;
}

int clock_nanosleep(clockid_t clock, int flags, const timespec* request, timespec* remaining)
{
  if (running_rank() == nullptr || is_cpu_time_clock(clock))
    return BXISIM_REAL(clock_nanosleep)(clock, flags, request, remaining);
  if (request == nullptr || request->tv_nsec < 0 || request->tv_nsec >= 1'000'000'000)
    return EINVAL;
  double seconds = to_seconds(*request);
  if ((flags & TIMER_ABSTIME) != 0)
    seconds -= simulated_now();
  simulated_sleep(seconds);
  if (remaining != nullptr && (flags & TIMER_ABSTIME) == 0)
    *remaining = {0, 0};
  return 0;
}

int usleep(useconds_t microseconds)
{
  if (running_rank() == nullptr)
    return BXISIM_REAL(usleep)(microseconds);
  simulated_sleep(static_cast<double>(microseconds) * 1e-6);
  return 0;
}

unsigned int sleep(unsigned int seconds)
{
  if (running_rank() == nullptr)
    return BXISIM_REAL(sleep)(seconds);
  simulated_sleep(seconds);
  return 0;
}

int sched_yield() noexcept
{
  if (running_rank() == nullptr)
    return BXISIM_REAL(sched_yield)();
  simulated_yield();
  return 0;
}

} // extern "C"
