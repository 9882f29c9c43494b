#include "Rank.hpp"

#include "runtime/os/RealFunctions.hpp"

#include <simgrid/s4u/Actor.hpp>

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
} // namespace

Rank::Rank(const RankPlacement& placement, int size, simgrid::s4u::Host* host, std::string node_name)
    : placement_(placement), size_(size), host_(host), node_name_(std::move(node_name))
{
}

void Rank::start_burst()
{
  burst_start_ = thread_cpu_seconds();
}

double Rank::end_burst()
{
  return thread_cpu_seconds() - burst_start_;
}

bool Rank::simulate_burst(double seconds)
{
  if (not settings.simulate || seconds < settings.threshold)
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

void Rank::set_cpu_settings(const CpuSettings& new_settings)
{
  settings = new_settings;
}

const CpuSettings& Rank::cpu_settings()
{
  return settings;
}

} // namespace bxisim::runtime
