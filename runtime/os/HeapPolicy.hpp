/* How the simulator's process uses glibc's heap during a run. */
#ifndef BXISIM_RUNTIME_OS_HEAP_POLICY_HPP
#define BXISIM_RUNTIME_OS_HEAP_POLICY_HPP

namespace bxisim::os
{

/**
 * Keeps freed memory at the top of the heap for the next allocations instead of returning it to the
 * kernel at once. A run allocates and frees large transient buffers all the time (Get replies,
 * OpenMPI's and SMPI's message buffers, SimGrid's activities); glibc's default trims the heap as soon
 * as 128 KiB are free at its top, so the next allocation faults the same pages in again. Left alone
 * when the user tunes the allocator with GLIBC_TUNABLES (glibc.malloc.*).
 */
void keep_freed_heap_memory();

} // namespace bxisim::os

#endif
