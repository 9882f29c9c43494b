// The variables a launcher gives each process of a job (mpirun's OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK,
// _LOCAL_SIZE, _NODE_RANK, PMIx's PMIX_RANK): all ranks share bxisim's environment, where none of them is set, and
// programs read them before MPI_Init (to pick a GPU or a file by local rank, to name a log). getenv from a rank's own
// code answers the rank's values; its libraries (OpenMPI's copy among them, which would take them for mpirun's)
// and the simulator see the real environment.
//
// The other variables' strings are the rank's own copies too (for its own code), as each process has its environment:
// programs cut them up in place (mpiP runs strtok on getenv("MPIP")), and the first rank to parse one changed it for
// every other (they then saw other options, made other collectives and waited for ever). A rank's copy follows the
// shared value when setenv changes that (the environment itself stays the job's: docs/running.md).

#include "InSimulatorHeap.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace
{
using bxisim::runtime::Rank;

/** The rank's value of a launcher variable, or nullptr when `name` is not one. Kept for the run: getenv's
 * strings must stay valid. */
const char* launcher_variable(const Rank& rank, const char* name)
{
  if (std::strncmp(name, "OMPI_COMM_WORLD_", 16) != 0 && std::strcmp(name, "PMIX_RANK") != 0)
    return nullptr;
  static std::map<const Rank*, std::map<std::string, std::string>> values;
  bxisim::os::InSimulatorHeap bookkeeping; // not a simulator call: the rank's burst goes on
  auto& mine = values[&rank];
  if (mine.empty()) {
    const auto& placement              = rank.placement();
    mine["OMPI_COMM_WORLD_RANK"]       = std::to_string(rank.index());
    mine["OMPI_COMM_WORLD_SIZE"]       = std::to_string(rank.size());
    mine["OMPI_COMM_WORLD_LOCAL_RANK"] = std::to_string(placement.local_rank);
    mine["OMPI_COMM_WORLD_LOCAL_SIZE"] = std::to_string(placement.local_size);
    mine["OMPI_COMM_WORLD_NODE_RANK"]  = std::to_string(placement.local_rank);
    mine["PMIX_RANK"]                  = std::to_string(rank.index());
  }
  auto found = mine.find(name);
  return found == mine.end() ? nullptr : found->second.c_str();
}

/** The rank's own copy of the shared value `shared` of `name`, made or refreshed when that value changed. */
char* own_copy(const Rank& rank, const char* name, const char* shared)
{
  struct Copy {
    std::string from; // the shared value it was copied from
    std::unique_ptr<std::string> value;
  };
  static std::map<const Rank*, std::map<std::string, Copy, std::less<>>> copies;
  bxisim::os::InSimulatorHeap bookkeeping;
  auto& mine = copies[&rank];
  auto found = mine.find(std::string_view(name));
  if (found == mine.end())
    found = mine.emplace(name, Copy{}).first;
  Copy& copy = found->second;
  if (copy.value == nullptr || copy.from != shared) {
    copy.from  = shared;
    copy.value = std::make_unique<std::string>(shared);
  }
  return copy.value->data();
}

/** getenv's answer for a rank's own code (nullptr: as the process's); `shared` gives the process's value. */
template <class SharedValue>
char* rank_variable(const char* name, const void* caller, SharedValue shared_value, bool& answered)
{
  answered   = false;
  Rank* rank = bxisim::os::running_rank();
  if (rank == nullptr || name == nullptr || not rank->runs_own_code_at(reinterpret_cast<uintptr_t>(caller)))
    return nullptr;
  answered = true;
  if (const char* launcher = launcher_variable(*rank, name))
    return const_cast<char*>(launcher);
  const char* shared = shared_value(name);
  return shared == nullptr ? nullptr : own_copy(*rank, name, shared);
}
} // namespace

extern "C" {

char* getenv(const char* name) noexcept
{
  bool answered = false;
  char* value   = rank_variable(
        name, __builtin_return_address(0), [](const char* n) { return BXISIM_REAL(getenv)(n); }, answered);
  return answered ? value : BXISIM_REAL(getenv)(name);
}

char* secure_getenv(const char* name) noexcept
{
  bool answered = false;
  char* value   = rank_variable(
        name, __builtin_return_address(0), [](const char* n) { return BXISIM_REAL(secure_getenv)(n); }, answered);
  return answered ? value : BXISIM_REAL(secure_getenv)(name);
}

} // extern "C"
