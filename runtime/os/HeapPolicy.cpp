#include "HeapPolicy.hpp"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace bxisim::os
{

namespace
{
// Measured on the region study's program (16 ranks, wall time): about 15% less at smpi, at message and in a
// mixed run; peak memory +0 to +7 MiB (docs/running.md, "Memory").
constexpr int kTrimThreshold = 512 << 20; // free bytes at the heap's top before glibc gives them back
constexpr int kTopPad        = 64 << 20;  // extra bytes asked of the kernel each time the heap grows
// Setting the two above freezes glibc's mmap threshold at 128 KiB (it would have grown to the size of
// the large buffers freed): SMPI's and OpenMPI's buffers of 128 KiB to 1 MiB would then be mapped and
// unmapped at each use, their pages faulted in every time. Below the actors' 8 MiB stacks, which stay
// mappings of their own.
constexpr int kMmapThreshold = 4 << 20;
} // namespace

void keep_freed_heap_memory()
{
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr)
    return;
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
  mallopt(M_TOP_PAD, kTopPad);
}

} // namespace bxisim::os
