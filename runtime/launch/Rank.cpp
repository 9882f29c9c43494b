#include "Rank.hpp"

#include "runtime/os/RealFunctions.hpp"

#include <simgrid/s4u/Actor.hpp>

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

/**
 * CPU time a burst measures when the rank does nothing: the clock reads themselves. Where the thread
 * CPU clock is a system call (1.4 us on some virtual machines) it is above cpu.threshold and would
 * turn every call into simulated computation. The smallest of many back-to-back reads estimates it.
 */
double clock_read_cost()
{
  static const double cost = [] {
    double smallest = 1.0;
    for (int i = 0; i < 200; ++i) {
      double first = thread_cpu_seconds();
      smallest     = std::min(smallest, thread_cpu_seconds() - first);
    }
    return smallest;
  }();
  return cost;
}
} // namespace

Rank::Rank(const RankPlacement& placement, int size, simgrid::s4u::Host* host, std::string node_name)
    : placement_(placement), size_(size), host_(host), node_name_(std::move(node_name))
{
}

// Without CPU simulation (or when SMPI measures CPU time itself) nothing uses the bursts: the thread CPU clock (a
// system call) is not read, so a simulator call costs no system call at all.
void Rank::start_burst()
{
  if (settings.simulate && settings.measure)
    burst_start_ = thread_cpu_seconds();
}

double Rank::end_burst()
{
  if (not settings.simulate || not settings.measure)
    return 0.0;
  return std::max(0.0, thread_cpu_seconds() - burst_start_ - clock_read_cost());
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
    simgrid::s4u::this_actor::execute(seconds * settings.factor * host_->get_speed());
}

void Rank::mark_ended(int exit_code)
{
  state_     = RankState::Ended;
  exit_code_ = exit_code;
}

void Rank::mark_killed_by(int signal_number)
{
  state_      = RankState::Ended;
  exit_code_  = 128 + signal_number;
  end_signal_ = signal_number;
}

void Rank::set_cpu_settings(const CpuSettings& new_settings)
{
  settings = new_settings;
}

const CpuSettings& Rank::cpu_settings()
{
  return settings;
}

} // namespace bxisim::runtime
