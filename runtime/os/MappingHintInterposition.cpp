// mmap with an address hint, as a rank's own process would grant it. There the program's data lies low and
// the space above it is free, so a hint above the data is honoured: Sandia OpenSHMEM maps its symmetric heap
// at the data's end + 2 GiB and then tells heap addresses from data addresses by which side of the heap's
// start they lie. Here every rank's copy of the program is in one address space, a hint can fall on another
// rank's mapping, and the kernel then maps top-down, below all the copies. A hint refused for a rank is
// retried at the first free range above it, as the free space above a program would give. Mappings without a
// hint, with MAP_FIXED, or outside ranks are the kernel's.

#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

namespace
{
uintptr_t round_up(uintptr_t value, uintptr_t alignment)
{
  return (value + alignment - 1) / alignment * alignment;
}

/** The lowest page-aligned address at or above `from` where `length` bytes are unmapped, or 0. */
uintptr_t first_free_range_above(uintptr_t from, size_t length)
{
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr)
    return 0;
  uintptr_t page      = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t candidate = round_up(from, page);
  unsigned long start = 0, end = 0;
  while (std::fscanf(maps, "%lx-%lx%*[^\n]", &start, &end) == 2) { // the kernel lists mappings by address
    if (end <= candidate)
      continue;
    if (start >= candidate + length)
      break;
    candidate = round_up(end, page);
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
  if (hint == nullptr || mapped == MAP_FAILED || mapped >= hint || (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) != 0 ||
      bxisim::os::running_rank() == nullptr)
    return mapped;
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
