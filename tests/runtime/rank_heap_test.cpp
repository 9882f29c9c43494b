// The ranks' own heaps (runtime/os/RankHeap.hpp), in this process: malloc() and its family are the
// executable's (os/HeapInterposition.cpp), as in bxisim.

#include "runtime/os/RankHeap.hpp"

#include <gtest/gtest.h>

#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using bxisim::os::heap_owning;
using bxisim::os::rank_heap;
using bxisim::os::RankHeap;
using bxisim::os::reserve_rank_heaps;
using bxisim::os::select_heap;

namespace
{
constexpr int kRanks = 4; // every test the same: run in one process (without ctest), the first one reserves

/** Allocates as rank `rank`'s code does while it runs. */
class AsRank
{
 public:
  explicit AsRank(int rank) { select_heap(rank_heap(rank)); }
  ~AsRank() { select_heap(nullptr); }
  AsRank(const AsRank&)            = delete;
  AsRank& operator=(const AsRank&) = delete;
};

std::uintptr_t address(const void* block)
{
  return reinterpret_cast<std::uintptr_t>(block);
}

/**
 * A sequence of allocations of rank `rank` (the low 28 bits of each block's address: its offset in the rank's
 * region), with `noise` called between two steps, outside the rank's code.
 */
template <class Noise>
std::vector<std::uintptr_t> allocate_a_sequence(int rank, Noise noise)
{
  std::vector<void*> blocks;
  auto step = [&](auto action) {
    {
      AsRank as_rank(rank);
      action();
    }
    noise();
  };
  for (std::size_t size : {24, 100, 5000, 16, 70000, 300, 9 << 20, 40})
    step([&] { blocks.push_back(std::malloc(size)); });
  step([&] { std::free(blocks[1]); });
  step([&] { std::free(blocks[3]); });
  step([&] { blocks[1] = std::malloc(90); });
  step([&] { blocks[3] = std::realloc(blocks[2], 9000); });
  std::vector<std::uintptr_t> low_bits;
  for (void* block : blocks)
    low_bits.push_back(address(block) & ((std::uintptr_t{1} << 28) - 1));
  return low_bits;
}
} // namespace

TEST(RankHeap, EachRankAllocatesInItsOwnRegionAndFreeFindsTheOwner)
{
  reserve_rank_heaps(kRanks);
  ASSERT_NE(rank_heap(kRanks - 1), nullptr);
  EXPECT_EQ(rank_heap(kRanks), nullptr);
  void* simulator = std::malloc(64);
  void* first     = nullptr;
  void* second    = nullptr;
  {
    AsRank rank(0);
    first = std::malloc(64);
  }
  {
    AsRank rank(2);
    second = std::malloc(64);
  }
  EXPECT_EQ(heap_owning(simulator), nullptr);
  EXPECT_EQ(heap_owning(first), rank_heap(0));
  EXPECT_EQ(heap_owning(second), rank_heap(2));
  EXPECT_EQ(address(first) % 16, 0u);
  std::memset(first, 1, 64);
  std::free(first); // freed by the simulator: back into rank 0's heap
  std::free(second);
  std::free(simulator);
  AsRank rank(0);
  EXPECT_EQ(std::malloc(64), first) << "a freed small block is given again first, as glibc's tcache does";
}

TEST(RankHeap, ARanksAddressesDependOnlyOnItsOwnAllocations)
{
  // Rank 1 runs a sequence alone; rank 3 runs the same while the simulator and rank 2 allocate between its
  // steps. In one shared heap rank 3's blocks would land after the others'; in its own, at the same offsets.
  reserve_rank_heaps(kRanks);
  std::vector<std::uintptr_t> alone = allocate_a_sequence(1, [] {});
  std::vector<void*> others;
  std::size_t size                  = 40;
  std::vector<std::uintptr_t> noisy = allocate_a_sequence(3, [&] {
    others.push_back(std::malloc(size));
    AsRank rank(2);
    others.push_back(std::malloc(size * 3));
    size += 700;
  });
  EXPECT_EQ(noisy, alone);
  EXPECT_NE(alone[0], alone[1]);
  for (void* block : others)
    std::free(block);
}

TEST(RankHeap, TheAllocatorsFunctionsKeepTheirContracts)
{
  reserve_rank_heaps(kRanks);
  AsRank rank(1);
  // realloc keeps the contents, in place or moved; realloc to 0 frees.
  auto* text = static_cast<char*>(std::malloc(10));
  std::strcpy(text, "123456789");
  text = static_cast<char*>(std::realloc(text, 200000));
  ASSERT_NE(text, nullptr);
  EXPECT_STREQ(text, "123456789");
  EXPECT_EQ(heap_owning(text), rank_heap(1));
  EXPECT_GE(malloc_usable_size(text), 200000u);
  EXPECT_EQ(std::realloc(text, 0), nullptr);
  // calloc gives zeros, also where a freed large block was written (its pages are dropped and given again).
  constexpr std::size_t kLarge = 6 << 20;
  auto* dirty                  = static_cast<unsigned char*>(std::malloc(kLarge));
  std::memset(dirty, 0xAB, kLarge);
  std::free(dirty);
  auto* clean = static_cast<unsigned char*>(std::calloc(kLarge, 1));
  ASSERT_NE(clean, nullptr);
  std::size_t non_zero = 0;
  for (std::size_t i = 0; i < kLarge; ++i)
    non_zero += clean[i] != 0;
  EXPECT_EQ(non_zero, 0u);
  std::free(clean);
  auto* small = static_cast<unsigned char*>(std::malloc(48));
  std::memset(small, 0xCD, 48);
  std::free(small);
  auto* zeroed = static_cast<unsigned char*>(std::calloc(6, 8));
  for (int i = 0; i < 48; ++i)
    EXPECT_EQ(zeroed[i], 0) << i;
  std::free(zeroed);
  // Alignments: posix_memalign, aligned_alloc, memalign (a non-power of two rounds up, as glibc does).
  void* page = nullptr;
  ASSERT_EQ(posix_memalign(&page, 4096, 100), 0);
  EXPECT_EQ(address(page) % 4096, 0u);
  EXPECT_EQ(heap_owning(page), rank_heap(1));
  EXPECT_EQ(posix_memalign(&page, 24, 100), EINVAL);
  void* aligned = aligned_alloc(256, 512);
  EXPECT_EQ(address(aligned) % 256, 0u);
  EXPECT_EQ(aligned_alloc(48, 96), nullptr);
  void* rounded = memalign(48, 10);
  EXPECT_EQ(address(rounded) % 64, 0u);
  std::free(page);
  std::free(aligned);
  std::free(rounded);
  // Overflowing sizes fail as glibc's do.
  volatile std::size_t half = SIZE_MAX / 2; // not known to the compiler, which would refuse the calls
  EXPECT_EQ(std::calloc(half, 4), nullptr);
  EXPECT_EQ(reallocarray(nullptr, half, 4), nullptr);
}

TEST(RankHeap, AFreedBlockIsReusedByTheNextAllocationOfItsSize)
{
  // A million allocations of 88 bytes, each freed (by the simulator, as a call scope is) before the next:
  // the heap stays at its first growth step.
  reserve_rank_heaps(kRanks);
  for (int i = 0; i < 1000000; ++i) {
    void* block = nullptr;
    {
      AsRank rank(2);
      block = std::malloc(88);
    }
    std::free(block);
  }
  EXPECT_LE(rank_heap(2)->used_span(), std::size_t{1} << 20);
}

namespace
{
long resident_kib()
{
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::stol(line.substr(6));
  return -1;
}
} // namespace

TEST(RankHeap, TheSimulatorsLargeCallocsHaveTheKernelZeroTheirPages)
{
  // The process's allocator (tcmalloc, linked here as in bxisim) writes zeros over every calloc'ed block, and
  // SimGrid callocs every actor's 8 MiB stack when it runs without guard pages: 16,384 ranks made 128 GiB
  // resident. A block that reuses memory dirtied by a freed one still reads zeros.
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  long before                  = resident_kib();
  auto* dirty                  = static_cast<unsigned char*>(std::malloc(kBytes));
  ASSERT_NE(dirty, nullptr);
  std::memset(dirty, 0xff, kBytes);
  std::free(dirty);
  auto* block = static_cast<unsigned char*>(std::calloc(kBytes, 1));
  ASSERT_NE(block, nullptr);
  long growth = resident_kib() - before;
  EXPECT_LT(growth, 8 * 1024) << "KiB resident after a calloc of 64 MiB nobody wrote";
  std::size_t non_zero = 0;
  for (std::size_t i = 0; i < kBytes; i += 509)
    non_zero += block[i] != 0;
  EXPECT_EQ(non_zero, 0u);
  EXPECT_EQ(block[0] | block[kBytes - 1], 0);
  std::free(block);
}
