// Thread-local blocks of a rank's modules, per simulated thread (ThreadLocals.hpp).

#include "ThreadLocals.hpp"

#include "InSimulatorHeap.hpp"
#include "ProcessState.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "ThreadInterposition.hpp"
#include "runtime/launch/Rank.hpp"

#include <link.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace
{
/** glibc's tls_index (x86-64 ABI): a module's id and an offset in its block. */
struct TlsIndex {
  unsigned long module;
  unsigned long offset;
};
} // namespace

extern "C" void* __tls_get_addr(TlsIndex* index);

namespace
{
using bxisim::runtime::Rank;

/** A module of the rank's with a thread-local block: the block's size and its initial image (the rest is zeros). */
struct Module {
  TlsIndex index;
  size_t size;
  const unsigned char* image;
  size_t image_size;
};

/** What a thread that does not run keeps aside: its blocks (one per module) and libstdc++'s exception state. */
struct Values {
  std::vector<std::vector<unsigned char>> blocks;
  bxisim::os::ExceptionState exceptions;
};

struct RankThreadLocals {
  bool modules_found = false;
  std::vector<Module> modules;
  const void* owner = nullptr; // the thread whose values the blocks hold (the rank's main thread until a swap)
  bool owner_gone   = false;   // it has ended: its values need not be kept
  std::unordered_map<const void*, Values> saved;
};

// The simulator's bookkeeping (its heap): installs run on the way back to rank code, before its heap is selected.
std::unordered_map<const Rank*, RankThreadLocals> ranks;

struct Destructor {
  void (*function)(void*);
  void* object;
};
std::unordered_map<const void*, std::vector<Destructor>> destructors; // by simulated thread

/** The modules loaded from the rank's own folder (its program copy, its privatized libraries) that have a block. */
std::vector<Module> find_modules(Rank& rank)
{
  struct Search {
    Rank* rank;
    std::vector<Module> found;
  } search{&rank, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto& into = *static_cast<Search*>(data);
        if (info->dlpi_tls_modid == 0)
          return 0;
        const ElfW(Phdr)* tls  = nullptr;
        const ElfW(Phdr)* load = nullptr;
        for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
          if (info->dlpi_phdr[i].p_type == PT_TLS)
            tls = &info->dlpi_phdr[i];
          if (info->dlpi_phdr[i].p_type == PT_LOAD && load == nullptr)
            load = &info->dlpi_phdr[i];
        }
        if (tls == nullptr || load == nullptr || tls->p_memsz == 0)
          return 0;
        const void* inside = reinterpret_cast<const void*>(info->dlpi_addr + load->p_vaddr);
        if (into.rank->process_state().belongs_to_rank(inside))
          into.found.push_back(Module{{info->dlpi_tls_modid, 0},
                                      tls->p_memsz,
                                      reinterpret_cast<const unsigned char*>(info->dlpi_addr + tls->p_vaddr),
                                      tls->p_filesz});
        return 0;
      },
      &search);
  return search.found;
}

void swap(RankThreadLocals& state, const void* resuming)
{
  Values* kept = nullptr;
  if (not state.owner_gone) {
    kept = &state.saved[state.owner];
    kept->blocks.resize(state.modules.size());
    kept->exceptions = bxisim::os::read_exception_state();
  }
  auto found = state.saved.find(resuming); // after the insertion above, which may rehash
  for (size_t i = 0; i < state.modules.size(); ++i) {
    Module& module = state.modules[i];
    auto* block    = static_cast<unsigned char*>(__tls_get_addr(&module.index));
    if (kept != nullptr)
      kept->blocks[i].assign(block, block + module.size);
    if (found != state.saved.end()) {
      std::memcpy(block, found->second.blocks[i].data(), module.size);
    } else { // a thread that never ran: the module's initial values
      std::memcpy(block, module.image, module.image_size);
      std::memset(block + module.image_size, 0, module.size - module.image_size);
    }
  }
  if (found != state.saved.end()) {
    bxisim::os::write_exception_state(found->second.exceptions);
    state.saved.erase(found);
  } else {
    bxisim::os::write_exception_state(bxisim::os::ExceptionState{});
  }
  state.owner      = resuming;
  state.owner_gone = false;
}
} // namespace

namespace bxisim::os
{

void start_swapping_thread_locals(runtime::Rank& rank)
{
  RankThreadLocals& state = ranks[&rank];
  if (state.owner == nullptr)
    state.owner = current_lock_holder(&rank); // called from a simulator call of the rank's main thread, or a thread's
}

void install_thread_locals(runtime::Rank& rank)
{
  if (ranks.empty())
    return;
  auto found = ranks.find(&rank);
  if (found == ranks.end())
    return;
  RankThreadLocals& state = found->second;
  const void* resuming    = current_lock_holder(&rank);
  if (resuming == state.owner)
    return;
  if (not state.modules_found) { // the program and its privatized libraries are loaded by the time it makes threads
    state.modules       = find_modules(rank);
    state.modules_found = true;
  }
  swap(state, resuming);
}

void run_thread_local_destructors(const void* thread)
{
  for (;;) { // a destructor may register another (a thread_local used for the first time in it)
    auto found = destructors.find(thread);
    if (found == destructors.end() || found->second.empty())
      break;
    Destructor last = found->second.back();
    found->second.pop_back();
    last.function(last.object);
  }
  destructors.erase(thread);
}

void forget_thread_locals(runtime::Rank& rank, const void* thread)
{
  destructors.erase(thread);
  auto found = ranks.find(&rank);
  if (found == ranks.end())
    return;
  found->second.saved.erase(thread);
  if (found->second.owner == thread)
    found->second.owner_gone = true;
}

} // namespace bxisim::os

extern "C" {

// libstdc++'s __cxa_thread_atexit registers a thread_local object's destructor here. The C library would run it
// when the real thread ends, once per registration and on the one instance the blocks then hold; a simulated thread's
// run as it ends instead (ThreadInterposition.cpp). The rank's main thread's, and other threads', go to the C library.
int __cxa_thread_atexit_impl(void (*destructor)(void*), void* object, void* dso_symbol)
{
  const void* thread = bxisim::os::running_simulated_thread();
  if (thread == nullptr || bxisim::os::running_rank() == nullptr)
    return BXISIM_REAL(__cxa_thread_atexit_impl)(destructor, object, dso_symbol);
  bxisim::os::InSimulatorHeap heap;
  destructors[thread].push_back(Destructor{destructor, object});
  return 0;
}

} // extern "C"
