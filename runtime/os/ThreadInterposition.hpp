#pragma once
// Threads that ranks create.
//
// A thread the program's own code creates (pthread_create called from the program, not from a library it
// uses; or std::thread, whose pthread_create libstdc++ calls on the program's behalf) is a simulated thread of its
// rank: a SimGrid actor on the rank's core that runs the thread's function as the rank's code (its globals, heap,
// output, Portals process), in simulated time, so that it may call Portals and block in simulated time, and MPI over
// its OpenMPI copy up to MPI_THREAD_MULTIPLE. pthread_join, pthread_detach, pthread_self, pthread_exit, mutexes
// (LockInterposition) and condition variables (ConditionInterposition) act on such threads in simulated time.
//
// Threads that libraries create for themselves (an OpenMP runtime's team, which synchronizes with inline
// futex system calls bxisim cannot see) are real threads outside the simulation, as before; bxisim
// remembers which rank created each, to name it when such a thread calls what only a rank's threads may
// (runtime/launch/LibraryThreadCall.hpp).

#include <pthread.h>

namespace bxisim::runtime
{
class Rank;
}

namespace bxisim::os
{

/**
 * pthread_create as called from the code at `caller`: a simulated thread of the running rank when that is the rank's
 * own code (or libstdc++ starting a std::thread), else a real thread remembered as the rank's. For the C library's
 * other ways to create a thread (C11's thrd_create), which do not go through the pthread_create others see.
 */
int create_thread_called_from(const void* caller, pthread_t* thread, const pthread_attr_t* attributes,
                              void* (*routine)(void*), void* argument);

/** The rank whose code created the calling real thread, or nullptr (a rank's thread, the simulator's
 * threads, threads created by no rank). */
runtime::Rank* creator_of_this_thread();

/** The rank whose simulated thread the running actor is, or nullptr (a rank's main thread, the simulator). */
runtime::Rank* rank_of_simulated_thread();

/** The simulated thread the running actor is (an identity only, never dereferenced), or nullptr (a rank's main
 * thread, the simulator). */
const void* running_simulated_thread();

/** The simulated thread of id `id` (an identity only), or nullptr when `id` is not one's. */
const void* simulated_thread_of_id(pthread_t id);

/**
 * Who holds what the running rank code locks: the rank itself when its main thread runs, else the
 * simulated thread (an identity only, never dereferenced).
 */
const void* current_lock_holder(runtime::Rank* rank);

/** A simulated thread's thread-specific data (KeyInterposition.cpp): a rank's threads share one real thread. */
struct ThreadSpecificData;
/** The running simulated thread's data (nullptr until it sets a value), or nullptr when the running actor is not
 * a simulated thread (a rank's main thread keeps the C library's). */
ThreadSpecificData** simulated_thread_data();
/** A simulated thread ends: the destructors of its values run (as the rank's code), then its data goes. */
void end_thread_specific_data(ThreadSpecificData*& data);

/**
 * Told when a thread of a rank with simulated threads starts to wait in simulated time for another of its threads
 * (a condition variable, a mutex another holds): those may be blocked in a poll that only what this one just did
 * can end (OpenMPI's progress loop, which must carry on the request the waiter just posted). nullptr: nobody.
 */
void set_sibling_wait_handler(void (*handler)(runtime::Rank& rank));
/** From the waits of ConditionInterposition and LockInterposition, inside their simulator call. */
void notify_sibling_wait(runtime::Rank& rank);

/** Whether the rank has created a simulated thread so far (its condition variables are then simulated). */
bool has_simulated_threads(const runtime::Rank& rank);

/** The rank's process ends (main returned or exit()): its simulated threads still running are killed. */
void end_simulated_threads(runtime::Rank& rank);

/**
 * exit() from a simulated thread of `rank` (its exit handlers have run): the rank ends with `code` as a process
 * does, its last burst simulated, its other threads and its main thread killed; the calling thread then leaves
 * through its own start. Returns only when the running actor is not a simulated thread.
 */
void end_process_from_thread(runtime::Rank& rank, int code);

/** Whether the running actor is a simulated thread that end_simulated_threads has killed (it is unwinding). */
bool running_thread_killed();

/**
 * From os::leave_killed_rank: when the running actor is a simulated thread, it leaves through its own
 * start (which throws the kill again there) and this does not return.
 */
void leave_killed_thread();

} // namespace bxisim::os
