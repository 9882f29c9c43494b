#include "RankCpuClock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace bxisim::os
{
namespace
{
struct ThreadAccount {
  const runtime::Rank* rank = nullptr;
  double started            = 0;  // simulated time
  double off_cpu            = 0;  // seconds asleep or blocked, ended spells
  double off_since          = -1; // start of the spell under way, or -1
};

struct ProcessAccount {
  double ended_threads = 0; // CPU seconds of its threads that ended
  std::vector<long> live;   // actor pids of its threads
};

// Ranks run one at a time, on the simulator's thread.
std::unordered_map<long, ThreadAccount> threads; // by actor pid
std::unordered_map<const runtime::Rank*, ProcessAccount> processes;

long calling_pid()
{
  return simgrid::s4u::Actor::self() != nullptr ? simgrid::s4u::this_actor::get_pid() : -1;
}

double cpu_seconds(const ThreadAccount& thread, double now)
{
  double off = thread.off_cpu + (thread.off_since >= 0 ? std::max(now - thread.off_since, 0.0) : 0.0);
  return std::max(now - thread.started - off, 0.0);
}
} // namespace

void start_cpu_clock(const runtime::Rank& rank)
{
  long pid     = calling_pid();
  threads[pid] = ThreadAccount{&rank, simgrid::s4u::Engine::get_clock(), 0, -1};
  processes[&rank].live.push_back(pid);
}

void stop_cpu_clock()
{
  auto it = threads.find(calling_pid());
  if (it == threads.end())
    return;
  ProcessAccount& process = processes[it->second.rank];
  process.ended_threads += cpu_seconds(it->second, simgrid::s4u::Engine::get_clock());
  process.live.erase(std::remove(process.live.begin(), process.live.end(), it->first), process.live.end());
  threads.erase(it);
}

bool has_cpu_clock()
{
  return threads.count(calling_pid()) != 0;
}

double thread_cpu_seconds(double now)
{
  auto it = threads.find(calling_pid());
  return it == threads.end() ? 0.0 : cpu_seconds(it->second, now);
}

double process_cpu_seconds(double now)
{
  long self = calling_pid();
  auto it   = threads.find(self);
  if (it == threads.end())
    return 0.0;
  const ProcessAccount& process = processes[it->second.rank];
  double sum                    = process.ended_threads;
  double others_now             = simgrid::s4u::Engine::get_clock(); // the others wait in the simulator
  for (long pid : process.live)
    sum += cpu_seconds(threads.at(pid), pid == self ? now : others_now);
  return sum;
}

void count_off_cpu(double seconds)
{
  if (auto it = threads.find(calling_pid()); it != threads.end() && it->second.off_since < 0)
    it->second.off_cpu += seconds;
}

OffCpu::OffCpu() : pid_(calling_pid()), since_(simgrid::s4u::Engine::get_clock())
{
  if (auto it = threads.find(pid_); it != threads.end() && it->second.off_since < 0)
    it->second.off_since = since_;
  else
    pid_ = -2; // not kept, or already off (a sleep inside a wait): the outer spell counts
}

OffCpu::~OffCpu()
{
  if (pid_ == -2)
    return;
  if (auto it = threads.find(pid_); it != threads.end()) {
    it->second.off_cpu += std::max(simgrid::s4u::Engine::get_clock() - since_, 0.0);
    it->second.off_since = -1;
  }
}

} // namespace bxisim::os
