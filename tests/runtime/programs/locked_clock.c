/* Each rank computes argv[1] seconds of CPU time (default 0.003), then reads time() inside a shared
 * library that holds its lock meanwhile (liblocked_clock.so), and prints seconds=<time()'s answer>
 * and simulated=<bxisim_time() after it>. With argv[2] = "clock_gettime", it reads that clock there
 * instead (under a mutex), with "clock_gettime_rwlock" the same under a read-write lock (rank 1 writes), with
 * "clock_gettime_futex" under a lock made of a futex called inline, "clock_gettime_syscall_futex" the same through
 * syscall(), with "sleep"
 * it sleeps a millisecond under the mutex instead (seconds=0). Built with -DLOCKED_CLOCK_MPI, it is an MPI program (for
 * --level smpi): the same between MPI_Init and MPI_Finalize; there "barrier" calls MPI_Barrier under the mutex (the
 * first rank keeps it while it waits for the others, which wait for it). */
#include <bxisim/rank.h>
#ifdef LOCKED_CLOCK_MPI
#include <mpi.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

long locked_clock_read(void);
double locked_clock_gettime(void);
double rwlock_clock_gettime(int writer);
double futex_clock_gettime(void);
double syscall_futex_clock_gettime(void);
void locked_sleep(void);
void locked_call(void (*inside)(void));

#ifdef LOCKED_CLOCK_MPI
static void barrier(void)
{
  MPI_Barrier(MPI_COMM_WORLD);
}
#endif

static double cpu_seconds(void)
{
  struct timespec now;
  syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

int main(int argc, char** argv)
{
#ifdef LOCKED_CLOCK_MPI
  MPI_Init(&argc, &argv);
#endif
  double work     = argc > 1 ? atof(argv[1]) : 0.003;
  double start    = cpu_seconds();
  volatile long x = 0;
  while (cpu_seconds() - start < work)
    x++;
  const char* clock = argc > 2 ? argv[2] : "time";
#ifdef LOCKED_CLOCK_MPI
  if (strcmp(clock, "barrier") == 0)
    locked_call(barrier);
#endif
  long seconds = strcmp(clock, "sleep") == 0                         ? (locked_sleep(), 0L)
                 : strcmp(clock, "clock_gettime") == 0               ? (long)locked_clock_gettime()
                 : strcmp(clock, "clock_gettime_rwlock") == 0        ? (long)rwlock_clock_gettime(bxisim_rank() == 1)
                 : strcmp(clock, "clock_gettime_futex") == 0         ? (long)futex_clock_gettime()
                 : strcmp(clock, "clock_gettime_syscall_futex") == 0 ? (long)syscall_futex_clock_gettime()
                                                                     : locked_clock_read();
  printf("seconds=%ld simulated=%.9f\n", seconds, bxisim_time());
#ifdef LOCKED_CLOCK_MPI
  MPI_Finalize();
#endif
  return 0;
}
