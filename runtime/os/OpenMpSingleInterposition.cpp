// `#pragma omp single` of a rank's outermost parallel region runs on the team's master thread, the rank's own.
//
// The other threads of an OpenMP team are real threads a runtime creates, outside simulated time, and bxisim refuses
// their MPI and Portals calls (docs/running.md, "Threads"). Hybrid programs call MPI inside `omp single` (with
// MPI_THREAD_SERIALIZED, or FUNNELED as most MPI libraries let them): libgomp gives the block to the first thread to
// arrive, often not the master, and the run stopped there. OpenMP lets any one thread of the team run it (OpenMP 5.2,
// 11.1), so for a region at the first level, whose master is the thread that began it, GOMP_single_start answers
// true on the master alone; nested regions keep libgomp's answer. The functions are those of the calling rank's own
// copy of libgomp (ProgramCopies.hpp), or the process's when the program has none (a library it links needs it).

#include "SimulatorCall.hpp"
#include "ThreadInterposition.hpp"
#include "runtime/launch/Rank.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace
{
struct RankOpenMp {
  bool (*single_start)() = nullptr;
  int (*level)()         = nullptr;
  int (*thread_num)()    = nullptr;
};

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
  void* runtime = folder.empty() ? nullptr : dlopen((folder + "/libgomp.so.1").c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (runtime == nullptr)
    runtime = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (runtime == nullptr) {
    std::fprintf(stderr, "bxisim: GOMP_single_start called where no libgomp is loaded: report it, with the program.\n");
    std::abort();
  }
  RankOpenMp found;
  found.single_start = reinterpret_cast<bool (*)()>(dlsym(runtime, "GOMP_single_start"));
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
