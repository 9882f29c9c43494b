// calloc for the whole process (the simulator, SimGrid, the ranks' copies). tcmalloc's (the process's
// allocator, runtime/CMakeLists.txt) writes zeros over every block it hands out. SimGrid asks calloc for each
// actor's 8 MiB stack when it runs without guard pages (more ranks than the system's memory mappings allow with
// them, runtime/launch/Launcher.cpp), and 16,384 ranks then wrote 128 GiB: the run was killed for want of memory.
// Here the kernel zeroes the whole pages of a large block instead (MADV_DONTNEED on the private anonymous memory
// malloc hands out: the next touch of a page maps a zero page), so the pages nobody touches cost nothing, as with
// glibc's calloc of a fresh mapping.

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace
{
constexpr size_t kZeroedByTheKernelFrom = size_t{1} << 20; // below, writing zeros costs less than the system call
} // namespace

extern "C" void* calloc(size_t count, size_t size) noexcept
{
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return nullptr;
  }
  void* block = std::malloc(bytes);
  if (block == nullptr || bytes < kZeroedByTheKernelFrom) {
    if (block != nullptr)
      std::memset(block, 0, bytes);
    return block;
  }
  static const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  auto begin             = reinterpret_cast<uintptr_t>(block);
  uintptr_t end          = begin + bytes;
  uintptr_t first_page   = (begin + page - 1) & ~(page - 1);
  uintptr_t end_of_pages = end & ~(page - 1);
  if (madvise(reinterpret_cast<void*>(first_page), end_of_pages - first_page, MADV_DONTNEED) != 0) {
    std::memset(block, 0, bytes);
    return block;
  }
  std::memset(block, 0, first_page - begin);
  std::memset(reinterpret_cast<void*>(end_of_pages), 0, end - end_of_pages);
  return block;
}
