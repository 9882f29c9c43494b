#pragma once
// The CPU time a rank's process and threads have used, as the CPU-time clocks they read show it (clock(), times(),
// getrusage, CLOCK_PROCESS_CPUTIME_ID and CLOCK_THREAD_CPUTIME_ID: CpuTimeInterposition.cpp).
//
// All ranks are one process here, so the real CPU-time clocks summed every rank's work and the simulator's: LAMMPS
// printed "1807% CPU use with 16 MPI tasks". A rank's thread is on a CPU in simulated time from its start, except
// while it sleeps or blocks on a thread primitive (nanosleep, a mutex, a condition variable, a futex, a semaphore, a
// barrier, pthread_join), as the kernel would take it off: its computation (simulated bursts) and its MPI and
// Portals calls count, since OpenMPI and BXI's Portals library poll. So the clocks stay consistent with the
// simulated wall clock the rank reads (MPI_Wtime), whatever the level and whether computation is simulated.

#include <ctime>

namespace bxisim::runtime
{
class Rank;
}

namespace bxisim::os
{

/** The calling actor is a thread of `rank` (its main or a simulated thread) that starts at the current simulated
 * time. */
void start_cpu_clock(const runtime::Rank& rank);
/** The calling actor's thread ends: its CPU time so far stays in its process's. */
void stop_cpu_clock();

/** Whether the calling actor is a thread whose CPU time is kept. */
bool has_cpu_clock();
/** The calling thread's CPU seconds at simulated time `now` (its own clock: the simulated time plus its burst). */
double thread_cpu_seconds(double now);
/** The CPU seconds of the calling thread's process (every thread of its rank) at simulated time `now`. */
double process_cpu_seconds(double now);

/** The calling thread was off its CPU for `seconds` just now (a sleep whose start the level's clock decides). */
void count_off_cpu(double seconds);

/**
 * From the interposed clock_gettime: when `clock` is a CPU-time clock of the calling rank's process or thread and
 * the caller is a rank's code, reads it into `time` (a clock read: its burst ends there) and returns true.
 * CpuTimeInterposition.cpp.
 */
bool read_cpu_time_clock(clockid_t clock, timespec* time);

/** The calling thread is off its CPU (asleep, blocked) from now to the scope's end. Inside a simulator call. */
class OffCpu
{
 public:
  OffCpu();
  ~OffCpu();
  OffCpu(const OffCpu&)            = delete;
  OffCpu& operator=(const OffCpu&) = delete;

 private:
  long pid_;
  double since_;
};

} // namespace bxisim::os
