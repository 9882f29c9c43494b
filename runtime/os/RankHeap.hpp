#pragma once
// A heap per rank, as each process of a real node has its own.
//
// The ranks share the simulator's process, and with one heap a rank's buffers land wherever every earlier
// allocation of the simulator and of the other ranks left room. The NIC models see those addresses (which
// pages a DMA crosses, the cycle NIC's TLB), so simulated times moved with anything that allocated
// differently: another bxisim build, a trace switched on, glibc's tunables, a NIC parameter under study
// that only changed the simulator's own allocations. Each rank's code now allocates in a region of its
// own, reserved at a fixed distance from the others: its addresses, to the page offset, depend only on
// its own sequence of allocations, as a process's do.
//
// What runs as the rank's code (os/SimulatorCall.hpp's running rank: its program, its libraries, its
// OpenMPI copy) allocates in its heap; the simulator (SimGrid, SMPI, bxisim, its Portals) in the
// process's heap. free() and realloc() find a block's heap by its address, so either side may free
// what the other allocated.

#include <boost/interprocess/mem_algo/rbtree_best_fit.hpp>
#include <boost/interprocess/sync/mutex_family.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace bxisim::os
{

class RankHeap
{
 public:
  RankHeap()                           = default;
  RankHeap(const RankHeap&)            = delete;
  RankHeap& operator=(const RankHeap&) = delete;

  /** Gives the heap its region: `span` bytes at `base`, already mapped readable and writable. */
  void place(int rank, std::byte* base, std::size_t span);

  /** malloc(): nullptr when the region is full (the caller then allocates elsewhere). */
  void* allocate(std::size_t size);
  /** calloc()'s zeroed block. */
  void* allocate_zeroed(std::size_t size);
  /** memalign() with a power of two above malloc's 16 bytes. */
  void* allocate_aligned(std::size_t size, std::size_t alignment);
  void release(void* block);
  /** realloc() of a block of this heap: in place when it can, else a copy in this heap; nullptr when full. */
  void* resize(void* block, std::size_t size);
  std::size_t usable_size(const void* block) const;

  int rank() const { return rank_; }
  /** Bytes of the region the heap has started to use (its high-water mark, rounded to a growth step). */
  std::size_t used_span() const { return managed_; }

 private:
  using Algorithm = boost::interprocess::rbtree_best_fit<boost::interprocess::null_mutex_family, void*>;
  // Freed blocks of up to kSmallLimit bytes are kept per size class and given again first, as glibc's
  // tcache and fast bins do: most of a program's allocations are small and short-lived, and the tree's
  // coalescing and rebalancing would cost several times more on each.
  static constexpr std::size_t kGranule      = 16;
  static constexpr std::size_t kSmallLimit   = 1024;
  static constexpr std::size_t kSmallClasses = kSmallLimit / kGranule + 1;

  class Lock;
  void* allocate_locked(std::size_t size);
  void* allocate_aligned_locked(std::size_t size, std::size_t alignment);
  void release_locked(void* block);
  bool grow_locked(std::size_t needed);
  /** Gives every kept small block back to the tree, so that they can merge (glibc's malloc_consolidate). */
  void consolidate_locked();
  /** Lets the kernel drop the pages wholly inside a freed large block (its tree links kept), as glibc unmaps its
   * large chunks. */
  static void drop_pages(void* block, std::size_t size);

  int rank_             = -1;
  std::byte* base_      = nullptr;
  std::size_t span_     = 0;
  std::size_t managed_  = 0; // bytes from base_ handed to the algorithm so far
  Algorithm* algorithm_ = nullptr;
  std::array<void*, kSmallClasses> small_{}; // singly linked through each block's first word
  bool small_kept_ = false;
  // Threads a rank starts are real threads (os/ThreadInterposition.hpp): they may free a rank's blocks
  // while the simulation thread allocates in the same heap.
  std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
};

/**
 * Reserves the address space of `ranks` heaps, one region each, before the ranks start. Without it (or when
 * the machine cannot reserve it: a warning says so), ranks allocate in the process's heap as before.
 * Once per process.
 */
void reserve_rank_heaps(int ranks);
/** Rank `index`'s heap, or nullptr when none was reserved for it. */
RankHeap* rank_heap(int index);

/**
 * Zeroes `size` bytes of private anonymous memory at `block` by letting the kernel drop the pages wholly inside
 * (they read as zeros and cost nothing until touched) and writing the partial pages at both ends: a large calloc
 * that touches no more memory than glibc's of a fresh mapping.
 */
void zero_by_dropping_pages(void* block, std::size_t size);

/**
 * Zeroes `size` bytes of private anonymous memory at `block` by letting the kernel drop the pages wholly inside
 * (they read as zeros and cost nothing until touched) and writing the partial pages at both ends: a large calloc
 * that touches no more memory than glibc's of a fresh mapping.
 */
void zero_by_dropping_pages(void* block, std::size_t size);

namespace detail
{
extern std::uintptr_t heaps_begin;
extern std::uintptr_t heaps_end;
extern unsigned span_shift;
extern RankHeap* heaps;
extern std::uintptr_t loader_begin;
extern std::uintptr_t loader_end;
} // namespace detail

/** Whether `caller` (a return address) is in the dynamic loader's code. */
inline bool called_by_loader(const void* caller)
{
  auto at = reinterpret_cast<std::uintptr_t>(caller);
  return at >= detail::loader_begin && at < detail::loader_end;
}

/** The heap that owns `address`, or nullptr (the process's heap). Called by every free(): a range test. */
inline RankHeap* heap_owning(const void* address)
{
  auto at = reinterpret_cast<std::uintptr_t>(address);
  if (at < detail::heaps_begin || at >= detail::heaps_end)
    return nullptr;
  return &detail::heaps[(at - detail::heaps_begin) >> detail::span_shift];
}

/** The heap the calling thread's malloc() uses (nullptr: the process's); set with the running rank. */
void select_heap(RankHeap* heap);

} // namespace bxisim::os
