// The variables a launcher gives each process of a job (mpirun's OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK,
// _LOCAL_SIZE, _NODE_RANK, PMIx's PMIX_RANK): all ranks share bxisim's environment, where none of them is set, and
// programs read them before MPI_Init (to pick a GPU or a file by local rank, to name a log). getenv from a rank's own
// code answers the rank's values; its libraries (OpenMPI's copy among them, which would take them for mpirun's)
// and the simulator see the real environment.

#include "InSimulatorHeap.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include <cstdint>
#include <cstring>
#include <map>
#include <string>

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

char* rank_variable(const char* name, const void* caller)
{
  Rank* rank = bxisim::os::running_rank();
  if (rank == nullptr || name == nullptr || not rank->runs_own_code_at(reinterpret_cast<uintptr_t>(caller)))
    return nullptr;
  return const_cast<char*>(launcher_variable(*rank, name));
}
} // namespace

extern "C" {

char* getenv(const char* name) noexcept
{
  if (char* value = rank_variable(name, __builtin_return_address(0)))
    return value;
  return BXISIM_REAL(getenv)(name);
}

char* secure_getenv(const char* name) noexcept
{
  if (char* value = rank_variable(name, __builtin_return_address(0)))
    return value;
  return BXISIM_REAL(secure_getenv)(name);
}

} // extern "C"
