// `#pragma omp single` of a rank's outermost parallel region runs on the team's master thread, the rank's own.
//
// The other threads of an OpenMP team are real threads a runtime creates, outside simulated time, and bxisim refuses
// their MPI and Portals calls (docs/running.md, "Threads"). Hybrid programs call MPI inside `omp single` (with
// MPI_THREAD_SERIALIZED, or FUNNELED as most MPI libraries let them): libgomp gives the block to the first thread to
// arrive, often not the master, and the run stopped there. OpenMP lets any one thread of the team run it (OpenMP 5.2,
// 11.1), so for a region at the first level, whose master is the thread that began it, GOMP_single_start answers
// true on the master alone; nested regions keep libgomp's answer. The same for LLVM's libomp (`BXISIM_CC=clang`:
// __kmpc_single). The functions are those of the calling rank's own copy of the runtime (ProgramCopies.hpp), or the
// process's when the program has none (a library it links needs it).

#include "SimulatorCall.hpp"
#include "ThreadInterposition.hpp"
#include "runtime/launch/Rank.hpp"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace
{
struct RankOpenMp {
  bool (*single_start)()                 = nullptr; // libgomp's
  int32_t (*kmpc_single)(void*, int32_t) = nullptr; // libomp's
  int (*level)()                         = nullptr;
  int (*thread_num)()                    = nullptr;
};

/** The rank's copy of `runtime` (a soname), else the process's; nullptr when none is loaded. */
void* loaded_runtime(const std::string& folder, const char* runtime)
{
  void* found = folder.empty() ? nullptr : dlopen((folder + "/" + runtime).c_str(), RTLD_LAZY | RTLD_NOLOAD);
  return found != nullptr ? found : dlopen(runtime, RTLD_LAZY | RTLD_NOLOAD);
}

/** The libgomp functions of the rank whose thread calls (the master is the rank's, the others its runtime's). */
const RankOpenMp& openmp_of_caller()
{
  static std::mutex lock; // the team's threads are real threads
  static std::map<std::string, RankOpenMp> by_folder;
  bxisim::runtime::Rank* rank = bxisim::os::running_rank();
  if (rank == nullptr)
    rank = bxisim::os::creator_of_this_thread();
  std::string folder = rank != nullptr ? rank->process_state().own_folder() : std::string();
  std::lock_guard<std::mutex> held(lock);
  auto known = by_folder.find(folder);
  if (known != by_folder.end())
    return known->second;
  void* runtime = loaded_runtime(folder, "libgomp.so.1");
  for (const char* llvm : {"libomp.so.5", "libomp.so"})
    if (runtime == nullptr)
      runtime = loaded_runtime(folder, llvm);
  if (runtime == nullptr) {
    std::fprintf(stderr, "bxisim: an OpenMP single construct where no OpenMP runtime is loaded: report it, with the "
                         "program.\n");
    std::abort();
  }
  RankOpenMp found;
  found.single_start = reinterpret_cast<bool (*)()>(dlsym(runtime, "GOMP_single_start"));
  found.kmpc_single  = reinterpret_cast<int32_t (*)(void*, int32_t)>(dlsym(runtime, "__kmpc_single"));
  found.level        = reinterpret_cast<int (*)()>(dlsym(runtime, "omp_get_level"));
  found.thread_num   = reinterpret_cast<int (*)()>(dlsym(runtime, "omp_get_thread_num"));
  return by_folder.emplace(folder, found).first->second;
}
} // namespace

extern "C" bool GOMP_single_start()
{
  const RankOpenMp& openmp = openmp_of_caller();
  if (openmp.level() == 1)
    return openmp.thread_num() == 0;
  return openmp.single_start();
}

// libomp's: 1 for the thread that runs the block, which alone calls __kmpc_end_single (its counters of constructs
// are left alone, as libgomp's: only this function reads them).
extern "C" int32_t __kmpc_single(void* location, int32_t global_thread)
{
  const RankOpenMp& openmp = openmp_of_caller();
  if (openmp.level() == 1)
    return openmp.thread_num() == 0 ? 1 : 0;
  return openmp.kmpc_single(location, global_thread);
}
