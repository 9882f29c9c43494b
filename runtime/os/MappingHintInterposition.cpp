// mmap with an address hint, as a rank's own process would grant it. There the program's data lies low and
// the space above it is free, so a hint above the data is honoured: Sandia OpenSHMEM maps its symmetric heap
// at the data's end + 2 GiB and then tells heap addresses from data addresses by which side of the heap's
// start they lie. Here every rank's copy of the program is in one address space, a hint can fall on another
// rank's mapping, and the kernel then maps top-down, below all the copies. A hint refused for a rank is
// retried at the first free range above it, as the free space above a program would give, but never in the
// room the main thread's stack may grow into (the simulator runs there). Mappings without a hint, with MAP_FIXED
// or MAP_32BIT (the kernel's low placement is what was asked), or outside ranks are the kernel's.

#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"

#include <boost/align/align_up.hpp>

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace
{
using boost::alignment::align_up;

/** What the main thread's stack may take below its lowest page: its limit (at most 1 GiB) and the kernel's guard gap.
 */
uintptr_t stack_reserve()
{
  constexpr uintptr_t kGuardGap = 1UL << 20; // the kernel's default stack_guard_gap: 256 pages
  constexpr uintptr_t kMost     = 1UL << 30;
  rlimit limit{};
  uintptr_t growth = getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < kMost
                         ? static_cast<uintptr_t>(limit.rlim_cur)
                         : kMost;
  return growth + kGuardGap;
}

/** The lowest page-aligned address at or above `from` where `length` bytes are unmapped and clear of the main
 * thread's stack, or 0. */
uintptr_t first_free_range_above(uintptr_t from, size_t length)
{
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr)
    return 0;
  uintptr_t page      = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t candidate = align_up(from, page);
  uintptr_t reserve   = stack_reserve();
  unsigned long start = 0, end = 0;
  char name[32] = {};
  // The kernel lists mappings by address: "start-end perms offset device inode [name]".
  while (std::fscanf(maps, "%lx-%lx %*s %*s %*s %*s%*[ ]%31[^\n]%*[^\n]", &start, &end, name) >= 2) {
    bool stack = std::strncmp(name, "[stack]", 7) == 0;
    name[0]    = '\0';
    if (stack && (start < reserve || candidate + length > start - reserve)) {
      candidate = 0;
      break;
    }
    if (end <= candidate)
      continue;
    if (start >= candidate + length)
      break;
    candidate = align_up(end, page);
  }
  std::fclose(maps);
  return candidate;
}

void* map_with_hint_above(void* hint, size_t length, int protection, int flags, int fd, off_t offset)
{
  uintptr_t candidate = first_free_range_above(reinterpret_cast<uintptr_t>(hint), length);
  if (candidate == 0)
    return MAP_FAILED;
  void* mapped = BXISIM_REAL(mmap)(reinterpret_cast<void*>(candidate), length, protection, flags | MAP_FIXED_NOREPLACE,
                                   fd, offset);
  if (mapped != MAP_FAILED && mapped != reinterpret_cast<void*>(candidate)) { // a kernel without MAP_FIXED_NOREPLACE
    munmap(mapped, length);
    return MAP_FAILED;
  }
  return mapped;
}
} // namespace

extern "C" {

void* mmap(void* hint, size_t length, int protection, int flags, int fd, off_t offset) noexcept
{
  void* mapped = BXISIM_REAL(mmap)(hint, length, protection, flags, fd, offset);
  if (hint == nullptr || mapped == MAP_FAILED || mapped >= hint ||
      (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE | MAP_32BIT)) != 0 || bxisim::os::running_rank() == nullptr)
    return mapped;
  bxisim::os::SimulatorCall call; // reading /proc/self/maps is the simulator's work, not the rank's computation
  void* above = map_with_hint_above(hint, length, protection, flags, fd, offset);
  if (above == MAP_FAILED)
    return mapped;
  munmap(mapped, length);
  return above;
}

// glibc's name for the same function with a 64-bit offset (programs built with _FILE_OFFSET_BITS=64).
void* mmap64(void* hint, size_t length, int protection, int flags, int fd, off_t offset) noexcept
{
  return mmap(hint, length, protection, flags, fd, offset);
}

} // extern "C"
