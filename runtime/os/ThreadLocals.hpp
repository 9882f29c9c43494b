#pragma once
// Thread-local variables (C++'s thread_local, C's _Thread_local and __thread) of the threads of a rank. A rank's
// threads (its main thread and its simulated threads, ThreadInterposition.hpp) all run on the simulator's one real
// thread, so they would share one instance of each: a thread's write was every thread's. The rank's own modules (its
// copy of the program and the libraries privatized for it) have their thread-local blocks swapped when another of
// the rank's threads resumes: the values of the thread that ran are kept aside, the resuming thread's put back (a new
// thread's are the module's initial ones). The blocks stay at their addresses; what a thread sees through a pointer
// to another thread's variable is its own instance. Destructors a simulated thread registers for its thread_local
// objects run as it ends, as they would at a thread's end. libstdc++'s exception state is swapped likewise (and kept
// per rank by ProcessState). Other libraries the ranks share (the C library's errno) keep one instance for all.

namespace bxisim::runtime
{
class Rank;
}

namespace bxisim::os
{

/** As the rank's code resumes (SimulatorCall.cpp): makes its modules' thread-local blocks hold the running thread's
 * values. Nothing to do (and almost no cost) until the rank has created a thread. */
void install_thread_locals(runtime::Rank& rank);

/** A simulated thread is about to end (its function returned, or pthread_exit): the destructors of its thread_local
 * objects run, as the thread's code, last registered first. */
void run_thread_local_destructors(const void* thread);

/** A simulated thread has ended (or was killed): its values and its destructors still registered are dropped. */
void forget_thread_locals(runtime::Rank& rank, const void* thread);

/** The rank's first simulated thread is created: from now on its blocks are swapped. */
void start_swapping_thread_locals(runtime::Rank& rank);

} // namespace bxisim::os
