#include "RankHeap.hpp"

#include <xbt/log.h>

#include <link.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_runtime);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_heap, bxisim_runtime, "The ranks' own heaps");

namespace bxisim::os
{

namespace detail
{
std::uintptr_t heaps_begin  = 0;
std::uintptr_t heaps_end    = 0;
unsigned span_shift         = 0;
RankHeap* heaps             = nullptr;
std::uintptr_t loader_begin = 0;
std::uintptr_t loader_end   = 0;
} // namespace detail

namespace
{
int heap_count = 0;
}

namespace
{
// A rank's region: at most this much of the address space, less when many ranks must share 64 TiB of it
// (x86-64 gives a process 128 TiB; the rest is left to the program copies, the stacks and the simulator).
constexpr unsigned kLargestSpanShift  = 36; // 64 GiB
constexpr unsigned kSmallestSpanShift = 28; // 256 MiB
constexpr std::uintptr_t kAllSpans    = std::uintptr_t{1} << 46;
// The region is handed to the allocator in steps, so that a rank touches only the pages it uses.
constexpr std::size_t kGrowthStep = std::size_t{256} << 10;
// Blocks from this size on give their pages back when freed, and calloc() gets fresh pages for them
// instead of writing zeros, as glibc does for the blocks it maps alone.
constexpr std::size_t kPageDropSize = std::size_t{4} << 20;
// The allocator's own words at the start of a freed block (its tree links), which drop_pages keeps.
constexpr std::size_t kFreeBlockHeader = 64;

std::uintptr_t round_up(std::uintptr_t value, std::uintptr_t step)
{
  return (value + step - 1) / step * step;
}

/** Finds the dynamic loader's code (the interpreter at AT_BASE), for called_by_loader(). */
void find_loader_code()
{
  auto base = static_cast<std::uintptr_t>(getauxval(AT_BASE));
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        if (info->dlpi_addr != *static_cast<std::uintptr_t*>(data))
          return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& segment = info->dlpi_phdr[i];
          if (segment.p_type == PT_LOAD && (segment.p_flags & PF_X) != 0) {
            detail::loader_begin = info->dlpi_addr + segment.p_vaddr;
            detail::loader_end   = detail::loader_begin + segment.p_memsz;
          }
        }
        return 1;
      },
      &base);
}
} // namespace

class RankHeap::Lock
{
 public:
  explicit Lock(std::atomic_flag& flag) : flag_(flag)
  {
    while (flag_.test_and_set(std::memory_order_acquire))
      __builtin_ia32_pause();
  }
  ~Lock() { flag_.clear(std::memory_order_release); }
  Lock(const Lock&)            = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  std::atomic_flag& flag_;
};

void RankHeap::place(int rank, std::byte* base, std::size_t span)
{
  rank_ = rank;
  base_ = base;
  span_ = span;
}

bool RankHeap::grow_locked(std::size_t needed)
{
  // Room for the block, its header and the alignment the algorithm may ask for.
  std::size_t wanted = managed_ + std::max(kGrowthStep, round_up(needed + 4096, kGrowthStep));
  if (wanted > span_)
    return false;
  if (algorithm_ == nullptr)
    algorithm_ = ::new (base_) Algorithm(wanted, 0);
  else
    algorithm_->grow(wanted - managed_);
  managed_ = wanted;
  return true;
}

void RankHeap::consolidate_locked()
{
  if (not small_kept_)
    return;
  for (auto& head : small_)
    while (head != nullptr) {
      void* block = head;
      head        = *static_cast<void**>(block);
      algorithm_->deallocate(block);
    }
  small_kept_ = false;
}

void* RankHeap::allocate_locked(std::size_t size)
{
  size = std::max<std::size_t>(size, 1);
  if (size <= kSmallLimit) {
    void*& head = small_[(size + kGranule - 1) / kGranule];
    if (head != nullptr) {
      void* block = head;
      head        = *static_cast<void**>(block);
      return block;
    }
  }
  if (algorithm_ != nullptr)
    if (void* block = algorithm_->allocate(size))
      return block;
  if (grow_locked(size))
    if (void* block = algorithm_->allocate(size))
      return block;
  if (algorithm_ == nullptr)
    return nullptr;
  consolidate_locked();
  return algorithm_->allocate(size);
}

void* RankHeap::allocate_aligned_locked(std::size_t size, std::size_t alignment)
{
  size = std::max<std::size_t>(size, 1);
  if (algorithm_ != nullptr)
    if (void* block = algorithm_->allocate_aligned(size, alignment))
      return block;
  if (size > span_ || alignment > span_ || not grow_locked(size + alignment))
    return nullptr;
  if (void* block = algorithm_->allocate_aligned(size, alignment))
    return block;
  consolidate_locked();
  return algorithm_->allocate_aligned(size, alignment);
}

void RankHeap::release_locked(void* block)
{
  std::size_t usable = algorithm_->size(block);
  if (usable <= kSmallLimit) {
    void*& head                 = small_[usable / kGranule];
    *static_cast<void**>(block) = head;
    head                        = block;
    small_kept_                 = true;
    return;
  }
  if (usable >= kPageDropSize)
    drop_pages(block, usable);
  algorithm_->deallocate(block);
}

namespace
{
/** Lets the kernel drop the pages wholly inside [at + kept_head, at + size): the range dropped, which reads as
 * zeros from then on (empty when the kernel refused). */
std::pair<std::uintptr_t, std::uintptr_t> drop_whole_pages(std::uintptr_t at, std::size_t size, std::size_t kept_head)
{
  static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  std::uintptr_t first   = round_up(at + kept_head, page);
  std::uintptr_t end     = std::max(first, (at + size) / page * page);
  if (end > first && madvise(reinterpret_cast<void*>(first), end - first, MADV_DONTNEED) != 0)
    return {first, first};
  return {first, end};
}
} // namespace

void RankHeap::drop_pages(void* block, std::size_t size)
{
  drop_whole_pages(reinterpret_cast<std::uintptr_t>(block), size, kFreeBlockHeader);
}

void zero_by_dropping_pages(void* block, std::size_t size)
{
  auto at           = reinterpret_cast<std::uintptr_t>(block);
  auto [first, end] = drop_whole_pages(at, size, 0);
  std::memset(block, 0, first - at);
  std::memset(reinterpret_cast<void*>(end), 0, at + size - end);
}

void* RankHeap::allocate(std::size_t size)
{
  Lock lock(busy_);
  return allocate_locked(size);
}

void* RankHeap::allocate_zeroed(std::size_t size)
{
  Lock lock(busy_);
  void* block = allocate_locked(size);
  if (block == nullptr)
    return nullptr;
  if (size < kPageDropSize) {
    std::memset(block, 0, size);
    return block;
  }
  zero_by_dropping_pages(block, size);
  return block;
}

void* RankHeap::allocate_aligned(std::size_t size, std::size_t alignment)
{
  Lock lock(busy_);
  return allocate_aligned_locked(size, alignment);
}

void RankHeap::release(void* block)
{
  Lock lock(busy_);
  release_locked(block);
}

void* RankHeap::resize(void* block, std::size_t size)
{
  Lock lock(busy_);
  std::size_t usable = algorithm_->size(block);
  if (size <= usable && (usable <= kSmallLimit || size >= usable / 2))
    return block;
  if (size > usable) {
    std::size_t received = size;
    void* reuse          = block;
    if (algorithm_->raw_allocation_command(boost::interprocess::expand_fwd, size, received, reuse) != nullptr)
      return block;
  }
  void* moved = allocate_locked(size);
  if (moved == nullptr)
    return nullptr;
  std::memcpy(moved, block, std::min(size, usable));
  release_locked(block);
  return moved;
}

std::size_t RankHeap::usable_size(const void* block) const
{
  return algorithm_->size(block);
}

void reserve_rank_heaps(int ranks)
{
#ifdef __SANITIZE_ADDRESS__
  return; // the ranks allocate with AddressSanitizer's allocator (os/HeapInterposition.cpp)
#endif
  if (detail::heaps != nullptr || ranks <= 0)
    return;
  unsigned shift = kLargestSpanShift;
  while (shift > kSmallestSpanShift && (std::uintptr_t{1} << shift) * static_cast<std::uintptr_t>(ranks) > kAllSpans)
    --shift;
  void* area        = MAP_FAILED;
  std::size_t bytes = 0;
  for (; shift >= kSmallestSpanShift; --shift) {
    // One span more than needed, so that the regions can start at a multiple of the span: the same low
    // address bits in every run.
    bytes = (static_cast<std::size_t>(ranks) + 1) << shift;
    area  = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (area != MAP_FAILED)
      break;
  }
  if (area == MAP_FAILED) {
    XBT_WARN("could not reserve address space for a heap per rank (%s; with vm.overcommit_memory=2 the kernel "
             "refuses it): the ranks allocate in the simulator's heap, and the simulated times of programs whose "
             "buffers move with it may change with any other allocation of the run. Set vm.overcommit_memory to 0 "
             "or 1 to have one heap per rank",
             std::strerror(errno));
    return;
  }
  std::size_t span     = std::size_t{1} << shift;
  auto begin           = reinterpret_cast<std::uintptr_t>(area);
  std::uintptr_t first = round_up(begin, span);
  if (first > begin)
    munmap(area, first - begin);
  std::uintptr_t last = first + static_cast<std::uintptr_t>(ranks) * span;
  if (begin + bytes > last)
    munmap(reinterpret_cast<void*>(last), begin + bytes - last);

  find_loader_code();
  auto* heaps = new RankHeap[static_cast<std::size_t>(ranks)];
  for (int rank = 0; rank < ranks; ++rank)
    heaps[rank].place(rank, reinterpret_cast<std::byte*>(first + static_cast<std::uintptr_t>(rank) * span), span);
  XBT_VERB("a heap per rank: %d regions of %zu MiB from %#lx", ranks, span >> 20, static_cast<unsigned long>(first));
  heap_count          = ranks;
  detail::heaps       = heaps;
  detail::span_shift  = shift;
  detail::heaps_begin = first;
  detail::heaps_end   = last;
}

RankHeap* rank_heap(int index)
{
  if (index < 0 || index >= heap_count)
    return nullptr;
  return &detail::heaps[index];
}

} // namespace bxisim::os
