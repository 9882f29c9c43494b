#pragma once
// CPU affinity masks of a rank's threads (AffinityInterposition.cpp): each its own, never the real thread's.

#include <pthread.h>

namespace bxisim::os
{

/** A simulated thread is created by `creator` (a rank for its main thread, or a simulated thread): it starts with the
 *  mask of `attributes` when they set one (pthread_attr_setaffinity_np), else with its creator's, as under Linux. */
void note_thread_created(const void* creator, const void* thread, const pthread_attr_t* attributes);

/** A simulated thread is gone (joined, or ended detached): its mask too. */
void forget_thread_affinity(const void* thread);

} // namespace bxisim::os
