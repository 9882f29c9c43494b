// SMPI's sampling and shared-memory macros (bxisim/sampling.h): bxisim's own implementation.
//
// A sampled loop measures the CPU time of its body while the statistics of its location ask for more
// measures, then skips the body and simulates the mean measured time for each skipped iteration.
// The body's time is measured as the CPU burst between two calls of bxisim_sample_run, which the
// SimulatorCall of each call reports: a measured iteration is simulated exactly once (by that call,
// even when below the CPU threshold), a skipped one once (by bxisim_sample_leave).

#include "Rank.hpp"
#include "runtime/os/SimulatorCall.hpp"
#include <bxisim/sampling.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>

namespace
{
using bxisim::os::SimulatorCall;
using bxisim::runtime::Rank;

struct SampleStatistics {
  int iterations;   // measure at least this many
  double threshold; // then go on while the relative standard error of the mean is above this
  int count          = 0;
  double sum         = 0.0;
  double sum_squares = 0.0;

  void add(double seconds)
  {
    ++count;
    sum += seconds;
    sum_squares += seconds * seconds;
  }
  double mean() const { return count > 0 ? sum / count : 0.0; }
  bool needs_more() const
  {
    if (count < iterations || count == 0)
      return true;
    if (threshold <= 0.0)
      return false;
    if (count < 2)
      return true;
    double variance = std::max(0.0, sum_squares / count - mean() * mean());
    return mean() > 0.0 && std::sqrt(variance / count) / mean() > threshold;
  }
};

// Key: rank (-1 for GLOBAL loops, shared by every rank), file, line, tag.
using SampleKey = std::tuple<int, std::string, int, std::string>;
std::map<SampleKey, SampleStatistics> statistics;

struct SharedBlock {
  void* pointer;
  int users;
};
std::map<std::tuple<std::string, int, size_t>, SharedBlock> shared_blocks;
std::map<void*, std::tuple<std::string, int, size_t>> shared_block_keys;
} // namespace

struct bxisim_sample {
  Rank* rank;
  SampleStatistics* statistics;
  bool measuring = false;
  long skipped   = 0;

  /** Records the burst that ended with `call` as one measured iteration. */
  void end_measure(const SimulatorCall& call)
  {
    if (not measuring)
      return;
    measuring = false;
    statistics->add(call.burst());
    if (not call.burst_simulated() && Rank::cpu_settings().simulate)
      rank->simulate_cpu_seconds(call.burst());
  }
};

extern "C" {

bxisim_sample* bxisim_sample_enter(int global, const char* file, int line, const char* tag, int iters, double threshold)
{
  SimulatorCall call;
  SampleStatistics* entry = nullptr;
  if (call.rank() != nullptr) {
    SampleKey key{global != 0 ? -1 : call.rank()->index(), file, line, tag != nullptr ? tag : ""};
    entry = &statistics.try_emplace(key, SampleStatistics{iters, threshold}).first->second;
  }
  return new bxisim_sample{call.rank(), entry};
}

int bxisim_sample_run(bxisim_sample* sample)
{
  SimulatorCall call;
  if (sample->rank == nullptr) // not a rank: run every iteration
    return 1;
  sample->end_measure(call);
  if (sample->statistics->needs_more()) {
    sample->measuring = true;
    return 1;
  }
  ++sample->skipped;
  return 0;
}

bxisim_sample* bxisim_sample_leave(bxisim_sample* sample)
{
  {
    SimulatorCall call;
    if (sample->rank != nullptr) {
      sample->end_measure(call);
      if (sample->skipped > 0 && Rank::cpu_settings().simulate)
        sample->rank->simulate_cpu_seconds(sample->statistics->mean() * static_cast<double>(sample->skipped));
    }
  }
  delete sample;
  return nullptr;
}

void* bxisim_shared_malloc(size_t size, const char* file, int line)
{
  SimulatorCall call;
  auto key            = std::make_tuple(std::string(file), line, size);
  auto [block, added] = shared_blocks.try_emplace(key, SharedBlock{nullptr, 0});
  if (added) {
    block->second.pointer = std::calloc(1, size > 0 ? size : 1);
    shared_block_keys.emplace(block->second.pointer, key);
  }
  ++block->second.users;
  return block->second.pointer;
}

void bxisim_shared_free(void* pointer)
{
  SimulatorCall call;
  auto key = shared_block_keys.find(pointer);
  if (key == shared_block_keys.end()) {
    std::free(pointer);
    return;
  }
  auto block = shared_blocks.find(key->second);
  if (--block->second.users == 0) {
    std::free(pointer);
    shared_blocks.erase(block);
    shared_block_keys.erase(key);
  }
}

} // extern "C"
