/* The CPU-time clocks a rank reads (docs/running.md, "Time"): its process's and thread's CPU time in simulated time.
 *   cpu_clocks
 * Every rank reads its clocks, computes 10 ms (bxisim_compute), sleeps a simulated second, enters a barrier that
 * the last rank reaches 5 ms late (having computed them), starts a thread that computes 4 ms and joins it, then reads
 * the clocks again. Each rank prints the differences in seconds:
 *   cpu_clocks rank=<r> elapsed=<MPI_Wtime> process=<CLOCK_PROCESS_CPUTIME_ID> thread=<CLOCK_THREAD_CPUTIME_ID>
 *              clock=<clock()> rusage=<getrusage(RUSAGE_SELF) user+system> rusage_thread=<RUSAGE_THREAD>
 *              times=<times() tms_utime+tms_stime> dynamic=<clock_getcpuclockid(0)> worker=<the thread's own clock> */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <bxisim/rank.h>
#include <mpi.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

struct Readings {
  double process, thread, clock, rusage, rusage_thread, times, dynamic;
};

static double seconds_of(clockid_t clock)
{
  struct timespec now;
  clock_gettime(clock, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static double rusage_seconds(int who)
{
  struct rusage usage;
  getrusage(who, &usage);
  return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

static struct Readings read_clocks(void)
{
  struct Readings readings;
  clockid_t own = 0;
  clock_getcpuclockid(0, &own);
  struct tms ticks;
  times(&ticks);
  readings.times         = (double)(ticks.tms_utime + ticks.tms_stime) / (double)sysconf(_SC_CLK_TCK);
  readings.process       = seconds_of(CLOCK_PROCESS_CPUTIME_ID);
  readings.thread        = seconds_of(CLOCK_THREAD_CPUTIME_ID);
  readings.clock         = (double)clock() / CLOCKS_PER_SEC;
  readings.rusage        = rusage_seconds(RUSAGE_SELF);
  readings.rusage_thread = rusage_seconds(RUSAGE_THREAD);
  readings.dynamic       = seconds_of(own);
  return readings;
}

static double worker_cpu;

static void* work(void* unused)
{
  (void)unused;
  double start = seconds_of(CLOCK_THREAD_CPUTIME_ID);
  bxisim_compute(0.004);
  worker_cpu = seconds_of(CLOCK_THREAD_CPUTIME_ID) - start;
  return NULL;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  double start           = MPI_Wtime();
  struct Readings before = read_clocks();

  bxisim_compute(0.010);
  struct timespec second = {1, 0};
  nanosleep(&second, NULL);
  if (rank == size - 1)
    bxisim_compute(0.005);
  MPI_Barrier(MPI_COMM_WORLD);
  pthread_t thread;
  pthread_create(&thread, NULL, work, NULL);
  pthread_join(thread, NULL);

  struct Readings after = read_clocks();
  clockid_t other       = 0; /* another rank's process: its pid would be a host process's to the C library */
  int other_answer      = clock_getcpuclockid(getpid() - rank + (rank + 1) % size, &other);
  double elapsed        = MPI_Wtime() - start;
  printf("cpu_clocks rank=%d elapsed=%.9f process=%.9f thread=%.9f clock=%.9f rusage=%.9f rusage_thread=%.9f "
         "times=%.9f dynamic=%.9f worker=%.9f other_rank_clock=%s\n",
         rank, elapsed, after.process - before.process, after.thread - before.thread, after.clock - before.clock,
         after.rusage - before.rusage, after.rusage_thread - before.rusage_thread, after.times - before.times,
         after.dynamic - before.dynamic, worker_cpu, other_answer == EPERM ? "EPERM" : "other");
  MPI_Finalize();
  return 0;
}
