#include "Rank.hpp"

#include "runtime/os/CodePages.hpp"
#include "runtime/os/RankTimedWork.hpp"
#include "runtime/os/RealFunctions.hpp"
#include "runtime/os/ThreadInterposition.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <ctime>

namespace bxisim::runtime
{

namespace
{
CpuSettings settings;

double thread_cpu_seconds()
{
  timespec now{};
  BXISIM_REAL(clock_gettime)(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

/** The real monotonic clock: no system call (the vDSO), about 0.1 us even on a virtual machine. */
double wall_seconds()
{
  timespec now{};
  BXISIM_REAL(clock_gettime)(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

/**
 * What a burst measures when the rank does nothing, on each clock: the reads themselves, in the order
 * start_burst() and end_burst() make them. The thread CPU clock is a system call (1.2 to 1.5 us on
 * some virtual machines, above cpu.threshold). The smallest of many back-to-back measures estimates it.
 */
struct ReadCosts {
  double wall     = 0; // start_burst's wall read to end_burst's
  double cpu      = 0; // start_burst's CPU read to end_burst's, through both wall reads
  double cpu_read = 0; // one CPU read to the next, back to back: the end of a read and the start of the next
};

const ReadCosts& read_costs()
{
  static const ReadCosts costs = [] {
    ReadCosts smallest{1.0, 1.0, 1.0};
    for (int i = 0; i < 200; ++i) {
      double cpu_start  = thread_cpu_seconds();
      double wall_start = wall_seconds();
      double wall_end   = wall_seconds();
      double cpu_end    = thread_cpu_seconds();
      double cpu_next   = thread_cpu_seconds();
      smallest.wall     = std::min(smallest.wall, wall_end - wall_start);
      smallest.cpu      = std::min(smallest.cpu, cpu_end - cpu_start);
      smallest.cpu_read = std::min(smallest.cpu_read, cpu_next - cpu_end);
    }
    return smallest;
  }();
  return costs;
}

/**
 * A stretch of the program's or of the library's code inside a burst at least this long gets its own CPU reading as it
 * ends: the burst's CPU time is otherwise shared between them in proportion of their wall times, which gives the
 * library's computation to the program when the program's stretch was preempted (a loaded host: 3 ms of MPI_SUM
 * charged to a program whose own code took 1 us). Shorter stretches cannot carry more than their length into the
 * other share, and need no system call (a ping-pong's program code between two calls takes well under this).
 */
constexpr double kStretchReadFrom = 10e-6;
} // namespace

Rank::Rank(const RankPlacement& placement, int size, simgrid::s4u::Host* host, std::string node_name)
    : placement_(placement), size_(size), host_(host), node_name_(std::move(node_name)),
      heap_(os::rank_heap(placement.rank))
{
  process_state_.reads_stdin = placement.rank == 0; // as under mpirun
}

// Without CPU simulation (or when SMPI measures CPU time itself) nothing uses the bursts: no clock is
// read, so a simulator call costs no system call at all. With it, one: the thread CPU clock as the call
// returns to the rank (inside an MPI call, only if the program's own code runs before the next call). The burst is
// first timed on the wall clock, read without a system call: a burst shorter than cpu.threshold on that clock is
// shorter on the CPU clock too (one thread), and the CPU clock is read again only for the others. So the variable cost
// of a system call (and the interrupts that land during it) stays out of the short bursts between two calls, which the
// threshold then drops; the CPU clock leaves out the time the thread was not running in the long ones. Inside an MPI
// call, a stretch of the program's or the library's code longer than kStretchReadFrom is read as it ends too.
void Rank::start_burst()
{
  if (not settings.simulate || not settings.measure)
    return;
  in_library_   = running_thread_in_library(); // the thread that resumes may not be the one that stopped
  library_wall_ = 0.0;
  program_cpu_  = 0.0;
  library_cpu_  = 0.0;
  // Inside the library, whose share is not simulated, the CPU clock is read only if the program's code runs
  // (leave_library): a blocking MPI call polls many times, each poll a burst of the library alone.
  cpu_started_ = not in_library_ || settings.mpi_library;
  if (cpu_started_)
    cpu_mark_ = thread_cpu_seconds();
  burst_wall_start_     = wall_seconds(); // last: the burst starts as the simulator returns to the rank
  library_start_        = burst_wall_start_;
  program_start_        = burst_wall_start_;
  wall_mark_            = burst_wall_start_;
  library_wall_at_mark_ = 0.0;
}

bool Rank::enter_library()
{
  if (not settings.simulate || not settings.measure || in_library_)
    return true;
  double now = wall_seconds();
  if (cpu_started_ && now - program_start_ >= kStretchReadFrom) {
    // The read's start goes to the library's share, where the wall clock puts it.
    double cpu = thread_cpu_seconds() - read_costs().cpu_read / 2;
    mark_cpu(cpu, now);
  }
  in_library_    = true;
  library_start_ = now;
  return false;
}

void Rank::leave_library()
{
  if (not settings.simulate || not settings.measure || not in_library_)
    return;
  double now  = wall_seconds();
  bool marked = not cpu_started_ || now - library_start_ >= kStretchReadFrom;
  if (not cpu_started_) { // the reads count in the library's share, which is not simulated
    cpu_started_ = true;
    cpu_mark_    = thread_cpu_seconds();
    now          = wall_seconds();
    wall_mark_   = now;
  } else if (marked) { // the read's end goes to the library, as on the wall clock
    double cpu = thread_cpu_seconds() + read_costs().cpu_read / 2;
    now        = wall_seconds();
    mark_cpu(cpu, now);
  }
  library_wall_ += now - library_start_;
  in_library_    = false;
  program_start_ = now;
  if (marked)
    library_wall_at_mark_ = library_wall_;
}

double Rank::library_wall_until(double now) const
{
  return library_wall_ + (in_library_ ? now - library_start_ : 0.0);
}

std::pair<double, double> Rank::cpu_since_mark(double cpu, double now) const
{
  double used    = std::max(0.0, cpu - cpu_mark_);
  double span    = now - wall_mark_;
  double library = library_wall_until(now) - library_wall_at_mark_;
  double share   = span > 0 ? std::clamp(library / span, 0.0, 1.0) : 0.0;
  return {used * (1.0 - share), used * share};
}

void Rank::mark_cpu(double cpu, double now)
{
  auto [program, library] = cpu_since_mark(cpu, now);
  program_cpu_ += program;
  library_cpu_ += library;
  cpu_mark_             = cpu;
  wall_mark_            = now;
  library_wall_at_mark_ = library_wall_until(now);
}

bool Rank::running_thread_in_library() const
{
  const void* thread = os::running_simulated_thread();
  return std::find(threads_in_library_.begin(), threads_in_library_.end(), thread) != threads_in_library_.end();
}

void Rank::keep_running_thread_in_library(bool inside)
{
  const void* thread = os::running_simulated_thread();
  auto found         = std::find(threads_in_library_.begin(), threads_in_library_.end(), thread);
  if (inside && found == threads_in_library_.end())
    threads_in_library_.push_back(thread);
  else if (not inside && found != threads_in_library_.end())
    threads_in_library_.erase(found); // only threads inside are kept: a program that makes many threads keeps few
}

double Rank::end_burst()
{
  if (not settings.simulate || not settings.measure)
    return 0.0;
  double wall_end        = wall_seconds(); // first: what comes after is the simulator's
  const ReadCosts& costs = read_costs();
  keep_running_thread_in_library(in_library_);
  double wall = wall_end - burst_wall_start_ - costs.wall;
  if (wall < settings.threshold)
    return std::max(0.0, wall);
  // The library's share and the program's are kept or dropped by their wall times; what is kept is their CPU time.
  double library    = std::min(wall, library_wall_until(wall_end));
  double program    = wall - library;
  bool program_kept = program >= settings.threshold;
  bool library_kept = settings.mpi_library && library >= std::max(settings.threshold, settings.mpi_threshold);
  double kept       = (program_kept ? program : 0.0) + (library_kept ? library : 0.0);
  if (kept <= 0.0)
    return 0.0;
  if (not cpu_started_) // cannot be: what is kept ran after the CPU clock was read
    return kept;
  auto [program_cpu, library_cpu] = cpu_since_mark(thread_cpu_seconds() - costs.cpu, wall_end - costs.wall);
  double cpu = (program_kept ? program_cpu_ + program_cpu : 0.0) + (library_kept ? library_cpu_ + library_cpu : 0.0);
  return std::max(0.0, std::min(kept, cpu));
}

double Rank::burst_so_far()
{
  if (not settings.simulate || not settings.measure)
    return 0.0;
  double seconds = end_burst(); // reads the clocks only: the burst goes on
  return seconds < settings.threshold ? 0.0 : seconds * settings.factor;
}

bool Rank::simulate_burst(double seconds)
{
  if (not settings.simulate || not settings.measure || seconds < settings.threshold)
    return false;
  simulate_cpu_seconds(seconds);
  return true;
}

void Rank::simulate_cpu_seconds(double seconds)
{
  if (seconds > 0)
    os::execute_rank(seconds * settings.factor * host_->get_speed());
}

void Rank::mark_ended(int exit_code)
{
  state_     = RankState::Ended;
  exit_code_ = exit_code;
  if (end_time_ < 0)
    end_time_ = simgrid::s4u::Engine::get_clock();
}

void Rank::mark_killed_by(int signal_number)
{
  if (end_time_ < 0)
    end_time_ = simgrid::s4u::Engine::get_clock();
  state_      = RankState::Ended;
  exit_code_  = 128 + signal_number;
  end_signal_ = signal_number;
}

void Rank::set_cpu_settings(const CpuSettings& new_settings)
{
  settings = new_settings;
  if (settings.simulate && settings.measure)
    read_costs(); // measured now, not in a rank's first burst
}

const CpuSettings& Rank::cpu_settings()
{
  return settings;
}

void Rank::add_own_code_of(const std::vector<std::string>& loaded_copies)
{
  for (const auto& copy : loaded_copies)
    if (void* handle = dlopen(copy.c_str(), RTLD_NOW | RTLD_NOLOAD)) {
      auto ranges = os::code_ranges_of(handle);
      own_code_.insert(own_code_.end(), ranges.begin(), ranges.end());
      dlclose(handle);
    }
}

} // namespace bxisim::runtime
