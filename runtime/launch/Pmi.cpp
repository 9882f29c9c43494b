#include "Pmi.hpp"

#include "OutputRouter.hpp"
#include "Rank.hpp"
#include "RankServices.hpp"
#include "runtime/os/KilledRankTermination.hpp"
#include "runtime/os/RankTimedWork.hpp"
#include "runtime/os/SimulatorCall.hpp"
#include <bxisim/rank.h>
#include <pmi.h>

#include <simgrid/s4u/Actor.hpp>
#include <xbt/log.h>

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_pmi, bxisim_runtime, "PMI-1 over the rank services");

namespace
{
using bxisim::os::SimulatorCall;
using bxisim::runtime::JobAbort;
using bxisim::runtime::Rank;

// Limits are those of MPICH's Hydra, which programs size their buffers after.
constexpr int kNameLengthMax  = 256;
constexpr int kKeyLengthMax   = 256;
constexpr int kValueLengthMax = 1024;
constexpr char kKvsName[]     = "bxisim-job";

const std::vector<std::unique_ptr<Rank>>* job_ranks = nullptr;
std::vector<char> initialized; // per rank: PMI_Init called and PMI_Finalize not yet
JobAbort abort_state;
double barrier_latency = 0; // pmi.barrier_latency

/** The calling rank if it initialized PMI, else nullptr. */
Rank* initialized_rank(const SimulatorCall& call)
{
  Rank* rank = call.rank();
  if (rank == nullptr || initialized.empty() || not initialized[static_cast<size_t>(rank->index())])
    return nullptr;
  return rank;
}

/** Where PMI's keys live in the run's key/value store, apart from bxisim_kv_put's and OpenMPI's. */
std::string store_key(const char* key)
{
  return std::string("pmi/") + key;
}

bool is_our_space(const char* kvsname)
{
  return kvsname != nullptr && std::strcmp(kvsname, kKvsName) == 0;
}

/** What bxisim does not do: says so (a program may fall back on something else), then PMI_FAIL. */
int refuse(const char* function)
{
  SimulatorCall call;
  Rank* rank = call.rank();
  XBT_WARN("rank %d: %s is not supported: `bxisim run -n` starts every rank of the job, none is spawned or "
           "looked up by name; start all processes with -n",
           rank != nullptr ? rank->index() : -1, function);
  return PMI_FAIL;
}

int report(int* out, int value)
{
  if (out == nullptr)
    return PMI_ERR_INVALID_ARG;
  *out = value;
  return PMI_SUCCESS;
}

/** A question about the calling rank, which must have initialized PMI: `*out` = value_of(rank). */
template <typename ValueOf>
int answer(int* out, ValueOf value_of)
{
  SimulatorCall call;
  Rank* rank = initialized_rank(call);
  if (rank == nullptr)
    return PMI_ERR_INIT;
  return report(out, value_of(*rank));
}
} // namespace

void bxisim::runtime::prepare_pmi(const std::vector<std::unique_ptr<Rank>>& ranks, double latency)
{
  job_ranks       = &ranks;
  barrier_latency = latency;
  initialized.assign(ranks.size(), 0);
  abort_state = {};
}

JobAbort bxisim::runtime::pmi_abort_state()
{
  return abort_state;
}

extern "C" {

int PMI_Init(int* spawned)
{
  SimulatorCall call;
  if (spawned == nullptr)
    return PMI_ERR_INVALID_ARG;
  Rank* rank = call.rank();
  if (rank == nullptr || initialized.empty())
    return PMI_FAIL;
  initialized[static_cast<size_t>(rank->index())] = 1;
  *spawned                                        = PMI_FALSE;
  return PMI_SUCCESS;
}

int PMI_Initialized(PMI_BOOL* is_initialized)
{
  SimulatorCall call;
  if (is_initialized == nullptr)
    return PMI_ERR_INVALID_ARG;
  *is_initialized = initialized_rank(call) != nullptr ? PMI_TRUE : PMI_FALSE;
  return PMI_SUCCESS;
}

int PMI_Finalize(void)
{
  SimulatorCall call;
  Rank* rank = initialized_rank(call);
  if (rank == nullptr)
    return PMI_ERR_INIT;
  initialized[static_cast<size_t>(rank->index())] = 0;
  return PMI_SUCCESS;
}

int PMI_Abort(int exit_code, const char error_msg[])
{
  {
    SimulatorCall call;
    Rank* rank = call.rank();
    if (rank != nullptr && abort_state.rank < 0) {
      FILE* out = bxisim::runtime::OutputRouter::original_stderr();
      fmt::print(out, "bxisim: rank {} called PMI_Abort with code {}{}{}; the job ends.\n", rank->index(), exit_code,
                 error_msg != nullptr && *error_msg != '\0' ? ": " : "", error_msg != nullptr ? error_msg : "");
      std::fflush(out);
      abort_state = {rank->index(), exit_code};
      bxisim::os::kill_every_actor(); // every other rank and the NIC actors; this rank ends below
    }
  }
  std::exit(exit_code); // as a process would: the rank ends here, its atexit handlers run
}

int PMI_Get_size(int* size)
{
  return answer(size, [](const Rank& rank) { return rank.size(); });
}

int PMI_Get_rank(int* rank_out)
{
  return answer(rank_out, [](const Rank& rank) { return rank.index(); });
}

int PMI_Get_universe_size(int* size)
{
  return PMI_Get_size(size);
}

int PMI_Get_appnum(int* appnum)
{
  return answer(appnum, [](const Rank&) { return 0; }); // one application
}

int PMI_Get_clique_size(int* size)
{
  return answer(size, [](const Rank& rank) { return rank.placement().local_size; });
}

int PMI_Get_clique_ranks(int ranks[], int length)
{
  SimulatorCall call;
  Rank* rank = initialized_rank(call);
  if (rank == nullptr)
    return PMI_ERR_INIT;
  if (ranks == nullptr || length < rank->placement().local_size)
    return PMI_ERR_INVALID_LENGTH;
  int count = 0;
  for (const auto& other : *job_ranks)
    if (other->placement().node == rank->placement().node)
      ranks[count++] = other->index();
  return PMI_SUCCESS;
}

int PMI_Barrier(void)
{
  {
    SimulatorCall call;
    if (initialized_rank(call) == nullptr)
      return PMI_ERR_INIT;
  }
  bxisim_barrier(); // every rank leaves when the last one arrives
  if (barrier_latency > 0) {
    SimulatorCall call;
    bxisim::os::sleep_rank(barrier_latency);
  }
  return PMI_SUCCESS;
}

int PMI_KVS_Get_my_name(char kvsname[], int length)
{
  SimulatorCall call;
  if (initialized_rank(call) == nullptr)
    return PMI_ERR_INIT;
  if (kvsname == nullptr || length < static_cast<int>(sizeof kKvsName))
    return PMI_ERR_INVALID_LENGTH;
  std::memcpy(kvsname, kKvsName, sizeof kKvsName);
  return PMI_SUCCESS;
}

int PMI_KVS_Get_name_length_max(int* length)
{
  return report(length, kNameLengthMax);
}

int PMI_KVS_Get_key_length_max(int* length)
{
  return report(length, kKeyLengthMax);
}

int PMI_KVS_Get_value_length_max(int* length)
{
  return report(length, kValueLengthMax);
}

int PMI_KVS_Put(const char kvsname[], const char key[], const char value[])
{
  SimulatorCall call;
  Rank* rank = initialized_rank(call);
  if (rank == nullptr)
    return PMI_ERR_INIT;
  if (not is_our_space(kvsname))
    return PMI_ERR_INVALID_ARG;
  if (key == nullptr || *key == '\0')
    return PMI_ERR_INVALID_KEY;
  if (std::strlen(key) >= static_cast<size_t>(kKeyLengthMax))
    return PMI_ERR_INVALID_KEY_LENGTH;
  if (value == nullptr)
    return PMI_ERR_INVALID_VAL;
  size_t size = std::strlen(value) + 1;
  if (size > static_cast<size_t>(kValueLengthMax))
    return PMI_ERR_INVALID_VAL_LENGTH;
  XBT_DEBUG("rank %d put '%s'", rank->index(), key);
  bxisim::runtime::kv_store_set(store_key(key), std::vector<char>(value, value + size));
  return PMI_SUCCESS;
}

int PMI_KVS_Commit(const char kvsname[])
{
  SimulatorCall call;
  if (initialized_rank(call) == nullptr)
    return PMI_ERR_INIT;
  return is_our_space(kvsname) ? PMI_SUCCESS : PMI_ERR_INVALID_ARG;
}

int PMI_KVS_Get(const char kvsname[], const char key[], char value[], int length)
{
  SimulatorCall call;
  if (initialized_rank(call) == nullptr)
    return PMI_ERR_INIT;
  if (not is_our_space(kvsname))
    return PMI_ERR_INVALID_ARG;
  if (key == nullptr || *key == '\0')
    return PMI_ERR_INVALID_KEY;
  if (value == nullptr || length <= 0)
    return PMI_ERR_INVALID_LENGTH;
  const std::vector<char>* found = bxisim::runtime::kv_store_find(store_key(key));
  if (found == nullptr)
    return PMI_ERR_INVALID_KEY;
  if (found->size() > static_cast<size_t>(length))
    return PMI_ERR_INVALID_LENGTH;
  std::memcpy(value, found->data(), found->size());
  return PMI_SUCCESS;
}

int PMI_Publish_name(const char* /*service_name*/, const char* /*port*/)
{
  return refuse("PMI_Publish_name");
}

int PMI_Unpublish_name(const char* /*service_name*/)
{
  return refuse("PMI_Unpublish_name");
}

int PMI_Lookup_name(const char* /*service_name*/, char* /*port*/)
{
  return refuse("PMI_Lookup_name");
}

int PMI_Spawn_multiple(int, const char*[], const char**[], const int[], const int[], const PMI_keyval_t*[], int,
                       const PMI_keyval_t[], int[])
{
  return refuse("PMI_Spawn_multiple");
}

} // extern "C"
