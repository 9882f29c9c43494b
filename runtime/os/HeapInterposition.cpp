// malloc() and its family, for the whole process: a block comes from the running rank's own heap
// (os/RankHeap.hpp) while a rank's code runs, else from the process's allocator, and goes back to the
// heap that owns its address. glibc supports replacing its allocator this way (the executable's
// definitions come first; its own functions call these): "Replacing malloc" in its manual.
//
// The process's allocator is reached through glibc's __libc_* entry points, which an allocator preloaded
// with LD_PRELOAD (tcmalloc, jemalloc) defines too: the simulator then allocates with it, and the ranks'
// placements do not change.

#include "RankHeap.hpp"

#include <xbt/log.h>

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(bxisim_heap);

extern "C" {
void* __libc_malloc(size_t size);
void __libc_free(void* block);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* block, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
}

namespace bxisim::os
{

namespace
{
thread_local RankHeap* selected = nullptr;
}

void select_heap(RankHeap* heap)
{
  selected = heap;
}

// AddressSanitizer replaces the allocator itself, to watch every block: it keeps it (and the ranks share the
// process's heap, reserve_rank_heaps() reserving nothing).
#ifndef __SANITIZE_ADDRESS__
namespace
{
constexpr std::size_t kMallocAlignment = 16;

/** A rank whose region is full allocates in the process's heap from then on: said once per run. */
void note_full(const RankHeap& heap, std::size_t size)
{
  static std::atomic<bool> said{false};
  if (said.exchange(true))
    return;
  RankHeap* heap_of_rank = selected;
  selected               = nullptr; // the message allocates
  XBT_WARN("rank %d's heap is full (%zu MiB used, %zu more asked): its further blocks come from the simulator's "
           "heap, where their addresses depend on the simulator's allocations",
           heap.rank(), heap.used_span() >> 20, size);
  selected = heap_of_rank;
}

/**
 * The heap a call from `caller` allocates in. The dynamic loader's own records of the objects it loads (a
 * rank's copy of the program, of OpenMPI) are the simulator's: it walks them all at every dlopen, and spread
 * over thousands of heaps that walk missed the TLB at every object (4096 ranks took twice the CPU time to load).
 */
RankHeap* heap_for(const void* caller)
{
  RankHeap* heap = selected;
  return heap != nullptr && not called_by_loader(caller) ? heap : nullptr;
}

void* allocate(std::size_t size, const void* caller)
{
  if (RankHeap* heap = heap_for(caller)) {
    if (void* block = heap->allocate(size))
      return block;
    note_full(*heap, size);
  }
  return __libc_malloc(size);
}

/**
 * calloc() in the process's heap. tcmalloc's writes zeros over every byte, and SimGrid callocs each actor's 8 MiB
 * stack when it runs without guard pages (more ranks than the system's memory mappings allow with them): 16,384
 * ranks wrote 128 GiB and were killed. For large blocks the kernel zeroes the whole pages instead (MADV_DONTNEED
 * on the private anonymous memory malloc hands out: the next touch of a page maps a zero page), so that pages
 * nobody touches cost nothing, as with glibc's calloc of a fresh mapping.
 */
void* process_calloc(std::size_t bytes)
{
  constexpr std::size_t kZeroedByTheKernelFrom = std::size_t{1} << 20; // below, writing zeros costs less
  if (bytes < kZeroedByTheKernelFrom)
    return __libc_calloc(1, bytes);
  void* block = __libc_malloc(bytes);
  if (block != nullptr)
    zero_by_dropping_pages(block, bytes);
  return block;
}

void* allocate_zeroed(std::size_t count, std::size_t size, const void* caller)
{
  if (RankHeap* heap = heap_for(caller)) {
    if (void* block = heap->allocate_zeroed(count * size))
      return block;
    note_full(*heap, count * size);
  }
  return process_calloc(count * size);
}

void* allocate_aligned(std::size_t alignment, std::size_t size, const void* caller)
{
  if (alignment <= kMallocAlignment)
    return allocate(size, caller);
  if (RankHeap* heap = heap_for(caller)) {
    if (void* block = heap->allocate_aligned(size, alignment))
      return block;
    note_full(*heap, size);
  }
  return __libc_memalign(alignment, size);
}

bool power_of_two(std::size_t value)
{
  return value != 0 && (value & (value - 1)) == 0;
}

std::size_t page_size()
{
  static const auto size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

void* memalign_for(std::size_t alignment, std::size_t size, const void* caller)
{
  // glibc rounds an alignment that is not a power of two up to the next one.
  std::size_t power = power_of_two(alignment) ? alignment : std::size_t{1} << (64 - __builtin_clzl(alignment | 1));
  void* block       = allocate_aligned(power, size, caller);
  if (block == nullptr)
    errno = ENOMEM;
  return block;
}
} // namespace
#endif

} // namespace bxisim::os

#ifndef __SANITIZE_ADDRESS__
using bxisim::os::heap_owning;
using bxisim::os::RankHeap;

extern "C" {

void* malloc(size_t size) noexcept
{
  void* block = bxisim::os::allocate(size, __builtin_return_address(0));
  if (block == nullptr)
    errno = ENOMEM;
  return block;
}

void free(void* block) noexcept
{
  if (block == nullptr)
    return;
  if (RankHeap* owner = heap_owning(block))
    owner->release(block);
  else
    __libc_free(block);
}

void* calloc(size_t count, size_t size) noexcept
{
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  void* block = bxisim::os::allocate_zeroed(count, size, __builtin_return_address(0));
  if (block == nullptr)
    errno = ENOMEM;
  return block;
}

void* realloc(void* block, size_t size) noexcept
{
  if (block == nullptr) {
    void* fresh = bxisim::os::allocate(size, __builtin_return_address(0));
    if (fresh == nullptr)
      errno = ENOMEM;
    return fresh;
  }
  if (size == 0) { // glibc's: the block is freed
    free(block);
    return nullptr;
  }
  RankHeap* owner = heap_owning(block);
  if (owner == nullptr)
    return __libc_realloc(block, size); // a block stays in the heap it came from
  void* moved = owner->resize(block, size);
  if (moved == nullptr) {
    // The region is full: the block moves to the process's heap.
    moved = __libc_malloc(size);
    if (moved == nullptr) {
      errno = ENOMEM;
      return nullptr;
    }
    std::memcpy(moved, block, std::min(size, owner->usable_size(block)));
    owner->release(block);
  }
  return moved;
}

void* reallocarray(void* block, size_t count, size_t size) noexcept
{
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(block, bytes);
}

void* memalign(size_t alignment, size_t size) noexcept
{
  return bxisim::os::memalign_for(alignment, size, __builtin_return_address(0));
}

void* aligned_alloc(size_t alignment, size_t size) noexcept
{
  if (not bxisim::os::power_of_two(alignment)) {
    errno = EINVAL;
    return nullptr;
  }
  return bxisim::os::memalign_for(alignment, size, __builtin_return_address(0));
}

int posix_memalign(void** result, size_t alignment, size_t size) noexcept
{
  if (not bxisim::os::power_of_two(alignment) || alignment % sizeof(void*) != 0)
    return EINVAL;
  void* block = bxisim::os::allocate_aligned(alignment, size, __builtin_return_address(0));
  if (block == nullptr)
    return ENOMEM;
  *result = block;
  return 0;
}

void* valloc(size_t size) noexcept
{
  return bxisim::os::memalign_for(bxisim::os::page_size(), size, __builtin_return_address(0));
}

void* pvalloc(size_t size) noexcept
{
  size_t page = bxisim::os::page_size();
  return bxisim::os::memalign_for(page, (size + page - 1) / page * page, __builtin_return_address(0));
}

size_t malloc_usable_size(void* block) noexcept
{
  if (block == nullptr)
    return 0;
  if (RankHeap* owner = heap_owning(block))
    return owner->usable_size(block);
  using Function     = size_t (*)(void*);
  static auto usable = reinterpret_cast<Function>(dlsym(RTLD_NEXT, "malloc_usable_size"));
  return usable(block);
}

} // extern "C"
#endif
