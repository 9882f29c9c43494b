// The runtime C API of bxisim/rank.h: who am I, a key/value store and a barrier for start-up code
// (OpenMPI's PMIx hooks use them), and explicit computation.

#include "RankServices.hpp"

#include "Rank.hpp"
#include "RankBarrier.hpp"
#include "runtime/os/RankTimedWork.hpp"
#include "runtime/os/SimulatorCall.hpp"
#include <bxisim/rank.h>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <xbt/log.h>

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <memory>
#include <vector>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_services, bxisim_runtime, "bxisim/rank.h: key/value store and barrier");

namespace
{
using bxisim::os::running_rank;
using bxisim::os::SimulatorCall;
using bxisim::runtime::Rank;

/** The calling rank; outside a rank's main thread, says so once per function and returns nullptr. */
Rank* calling_rank(const SimulatorCall& call, const char* function)
{
  if (call.rank() == nullptr)
    XBT_WARN("%s called outside the main thread of a rank launched by `bxisim run`: ignored", function);
  return call.rank();
}

// Ranks run one at a time (SimGrid's actors): nothing runs between reading and updating this state.
// A get of an absent key waits on a semaphore of its own, for the reason given in RankBarrier.hpp.
struct KeyValueStore {
  std::map<std::string, std::vector<char>, std::less<>> values;
  std::multimap<std::string, simgrid::s4u::SemaphorePtr, std::less<>> waiting; // bxisim_kv_get of absent keys

  void wake_waiters_of(const std::string& key)
  {
    // Taken out of the map before the first release: a release is a simcall, other ranks run during
    // it and may add or remove waiters (the end of an equal_range may be another key's entry, which
    // its own put erases: iterating across the releases read a freed node).
    auto [first, last] = waiting.equal_range(key);
    std::vector<simgrid::s4u::SemaphorePtr> woken;
    for (auto waiter = first; waiter != last; ++waiter)
      woken.push_back(std::move(waiter->second));
    waiting.erase(first, last);
    for (const auto& semaphore : woken)
      semaphore->release();
  }
};

std::unique_ptr<KeyValueStore> the_store;

std::unique_ptr<bxisim::runtime::RankBarrier> the_barrier;
} // namespace

void bxisim::runtime::prepare_rank_services()
{
  the_store   = std::make_unique<KeyValueStore>();
  the_barrier = std::make_unique<bxisim::runtime::RankBarrier>();
}

void bxisim::runtime::kv_store_set(const std::string& key, std::vector<char> value)
{
  auto& kv = *the_store;
  kv.values.insert_or_assign(key, std::move(value));
  kv.wake_waiters_of(key);
}

const std::vector<char>* bxisim::runtime::kv_store_find(const std::string& key)
{
  auto found = the_store->values.find(key);
  return found != the_store->values.end() ? &found->second : nullptr;
}

extern "C" {

int bxisim_rank(void)
{
  Rank* rank = running_rank();
  return rank != nullptr ? rank->index() : -1;
}

int bxisim_size(void)
{
  Rank* rank = running_rank();
  return rank != nullptr ? rank->size() : -1;
}

int bxisim_node_id(void)
{
  Rank* rank = running_rank();
  return rank != nullptr ? rank->placement().node : -1;
}

int bxisim_local_rank(void)
{
  Rank* rank = running_rank();
  return rank != nullptr ? rank->placement().local_rank : -1;
}

int bxisim_local_size(void)
{
  Rank* rank = running_rank();
  return rank != nullptr ? rank->placement().local_size : -1;
}

int bxisim_kv_put(const char* key, const void* value, size_t size)
{
  SimulatorCall call;
  Rank* rank = calling_rank(call, "bxisim_kv_put");
  if (rank == nullptr || key == nullptr || (value == nullptr && size > 0))
    return BXISIM_ERR_ARG;
  auto& kv                  = *the_store;
  const auto* bytes         = static_cast<const char*>(value);
  auto [position, inserted] = kv.values.try_emplace(key, bytes, bytes + size);
  if (not inserted)
    return BXISIM_ERR_EXIST;
  XBT_DEBUG("rank %d put '%s' (%zu bytes)", rank->index(), key, size);
  kv.wake_waiters_of(key);
  return BXISIM_SUCCESS;
}

int bxisim_kv_get(const char* key, void* buffer, size_t capacity, size_t* size)
{
  SimulatorCall call;
  Rank* rank = calling_rank(call, "bxisim_kv_get");
  if (rank == nullptr || key == nullptr || (buffer == nullptr && capacity > 0))
    return BXISIM_ERR_ARG;
  auto& kv           = *the_store;
  std::string wanted = key;
  auto found         = kv.values.find(wanted);
  if (found == kv.values.end()) {
    rank->set_waiting_for([wanted] { return fmt::format("bxisim_kv_get of key '{}', which no rank put", wanted); });
    auto put = simgrid::s4u::Semaphore::create(0);
    kv.waiting.emplace(wanted, put);
    put->acquire();
    rank->set_waiting_for(nullptr);
    found = kv.values.find(wanted);
  }
  const std::vector<char>& value = found->second;
  if (size != nullptr)
    *size = value.size();
  std::memcpy(buffer, value.data(), std::min(capacity, value.size()));
  return value.size() > capacity ? BXISIM_ERR_TRUNC : BXISIM_SUCCESS;
}

void bxisim_barrier(void)
{
  SimulatorCall call;
  Rank* rank = calling_rank(call, "bxisim_barrier");
  if (rank == nullptr)
    return;
  int size = rank->size();
  the_barrier->arrive_and_wait(*rank, size, [size](int arrived) {
    return fmt::format("bxisim_barrier ({} of {} ranks arrived)", arrived, size);
  });
}

void bxisim_compute(double seconds)
{
  SimulatorCall call;
  if (Rank* rank = calling_rank(call, "bxisim_compute"); rank != nullptr && seconds > 0)
    bxisim::os::execute_rank(seconds * rank->host()->get_speed());
}

void bxisim_compute_flops(double flops)
{
  SimulatorCall call;
  if (calling_rank(call, "bxisim_compute_flops") != nullptr && flops > 0)
    bxisim::os::execute_rank(flops);
}

double bxisim_time(void)
{
  SimulatorCall call;
  return simgrid::s4u::Engine::get_clock();
}

} // extern "C"
