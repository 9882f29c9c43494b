// `#pragma omp single` of a rank's outermost parallel region runs on the team's master thread, the rank's own.
//
// The other threads of an OpenMP team are real threads a runtime creates, outside simulated time, and bxisim refuses
// their MPI and Portals calls (docs/running.md, "Threads"). Hybrid programs call MPI inside `omp single` (with
// MPI_THREAD_SERIALIZED, or FUNNELED as most MPI libraries let them): libgomp gives the block to the first thread to
// arrive, often not the master, and the run stopped there. OpenMP lets any one thread of the team run it (OpenMP 5.2,
// 11.1), so for a region at the first level, whose master is the thread that began it, GOMP_single_start answers
// true on the master alone; nested regions keep libgomp's answer. The same for LLVM's libomp (`BXISIM_CC=clang`) and
// Intel's (__kmpc_single). The functions are those of the runtime the calling object was linked with: the rank's own
// copy of it (ProgramCopies.hpp), or the process's for a library the program links.
//
// `omp single copyprivate(x)` is GOMP_single_copy_start/_end in libgomp: the thread that runs the block gets NULL and
// hands its data to the others at the end. At the first level the master runs it too: it leaves the data in the
// team's slot between two team barriers, the others take it between the same two (libomp's __kmpc_copyprivate follows
// __kmpc_single's choice by itself).

#include "InSimulatorHeap.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

extern "C" bool GOMP_single_start();
extern "C" void* GOMP_single_copy_start();
extern "C" void GOMP_single_copy_end(void* data);
extern "C" int32_t __kmpc_single(void* location, int32_t global_thread);

namespace
{
struct RankOpenMp {
  bool (*single_start)()                 = nullptr; // libgomp's
  void* (*single_copy_start)()           = nullptr;
  void (*single_copy_end)(void*)         = nullptr;
  void (*barrier)()                      = nullptr;
  int32_t (*kmpc_single)(void*, int32_t) = nullptr; // libomp's and Intel's
  int (*level)()                         = nullptr;
  int (*thread_num)()                    = nullptr;
  mutable void* copied                   = nullptr; // the first-level team's copyprivate data, between two barriers
};

/**
 * The OpenMP runtime functions of the object whose code is at `caller` (the program's copy or a library), looked up
 * in its own dependencies: the runtime it was linked with, the rank's copy of it. Cached by object; the team's
 * threads are real threads, so the cache is locked, and its nodes are the simulator's (not a rank's heap).
 */
const RankOpenMp& openmp_of(const void* caller)
{
  static std::mutex lock;
  static std::map<const void*, RankOpenMp> by_object;
  Dl_info info{};
  link_map* object = nullptr;
  if (dladdr1(caller, &info, reinterpret_cast<void**>(&object), RTLD_DL_LINKMAP) == 0 || object == nullptr) {
    std::fprintf(stderr, "bxisim: an OpenMP single construct from code of no loaded object: report it, with the "
                         "program.\n");
    std::abort();
  }
  std::lock_guard<std::mutex> held(lock);
  auto known = by_object.find(object);
  if (known != by_object.end())
    return known->second;
  void* handle = dlopen(object->l_name[0] != '\0' ? object->l_name : nullptr, RTLD_LAZY | RTLD_NOLOAD);
  RankOpenMp found;
  if (handle != nullptr) { // dlsym on a handle searches the object and its dependencies, not bxisim first
    found.single_start      = reinterpret_cast<bool (*)()>(dlsym(handle, "GOMP_single_start"));
    found.single_copy_start = reinterpret_cast<void* (*)()>(dlsym(handle, "GOMP_single_copy_start"));
    found.single_copy_end   = reinterpret_cast<void (*)(void*)>(dlsym(handle, "GOMP_single_copy_end"));
    found.barrier           = reinterpret_cast<void (*)()>(dlsym(handle, "GOMP_barrier"));
    found.kmpc_single       = reinterpret_cast<int32_t (*)(void*, int32_t)>(dlsym(handle, "__kmpc_single"));
    found.level             = reinterpret_cast<int (*)()>(dlsym(handle, "omp_get_level"));
    found.thread_num        = reinterpret_cast<int (*)()>(dlsym(handle, "omp_get_thread_num"));
  }
  if (found.single_start == &GOMP_single_start) // never ours: the search would come back here
    found.single_start = nullptr;
  if (found.single_copy_start == &GOMP_single_copy_start || found.single_copy_end == &GOMP_single_copy_end)
    found.single_copy_start = nullptr, found.single_copy_end = nullptr;
  if (found.kmpc_single == &__kmpc_single)
    found.kmpc_single = nullptr;
  if (found.level == nullptr || found.thread_num == nullptr ||
      (found.single_start == nullptr && found.kmpc_single == nullptr)) {
    std::fprintf(stderr,
                 "bxisim: the OpenMP runtime of %s was not found for its single construct: report it, with "
                 "the program.\n",
                 object->l_name);
    std::abort();
  }
  bxisim::os::InSimulatorHeap simulator_heap;
  return by_object.emplace(object, found).first->second;
}
} // namespace

extern "C" bool GOMP_single_start()
{
  const RankOpenMp& openmp = openmp_of(__builtin_return_address(0));
  if (openmp.level() == 1)
    return openmp.thread_num() == 0;
  return openmp.single_start();
}

// libomp's: 1 for the thread that runs the block, which alone calls __kmpc_end_single (its counters of constructs
// are left alone, as libgomp's: only this function reads them).
extern "C" int32_t __kmpc_single(void* location, int32_t global_thread)
{
  const RankOpenMp& openmp = openmp_of(__builtin_return_address(0));
  if (openmp.level() == 1)
    return openmp.thread_num() == 0 ? 1 : 0;
  return openmp.kmpc_single(location, global_thread);
}

// The data the block's thread hands over lives in the slot of the calling object's runtime copy (one first-level team
// per rank's copy); the first barrier publishes it, the second keeps it there until every thread has taken it.
extern "C" void* GOMP_single_copy_start()
{
  const RankOpenMp& openmp = openmp_of(__builtin_return_address(0));
  if (openmp.single_copy_start == nullptr || openmp.barrier == nullptr) {
    std::fprintf(stderr, "bxisim: an OpenMP copyprivate construct from code without libgomp: report it, with the "
                         "program.\n");
    std::abort();
  }
  if (openmp.level() != 1)
    return openmp.single_copy_start();
  if (openmp.thread_num() == 0)
    return nullptr; // the master runs the block, then GOMP_single_copy_end
  openmp.barrier();
  void* data = openmp.copied;
  openmp.barrier();
  return data;
}

extern "C" void GOMP_single_copy_end(void* data)
{
  const RankOpenMp& openmp = openmp_of(__builtin_return_address(0));
  if (openmp.level() != 1)
    return openmp.single_copy_end(data);
  openmp.copied = data;
  openmp.barrier();
  openmp.barrier();
}
