/* Computation, measured or declared; prints simulated durations and what was measured.
 *   spin SECONDS           burn that much thread CPU time in the rank's own code
 *   spin_beside_sleep S    rank 0 spins S seconds while the others sleep a simulated second
 *   bursts_beside_sleep S  the same, then 20 computations of about 20 ms with no call inside, each followed by a
 *                          clock read (a simulator call); prints the simulated time they took as bursts=
 *   seconds S | flops F    bxisim_compute / bxisim_compute_flops
 *   delay S | sample_flops F   SMPI_SAMPLE_DELAY / SMPI_SAMPLE_FLOPS (their bodies must not run)
 *   sample_local N ITERS | sample_global N ITERS   sampled loops of N iterations of about 1 ms of CPU
 *   shared                 SMPI_SHARED_MALLOC gives every rank the same block */
#include <bxisim/sampling.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The host's CPU-time clocks through a system call: bxisim's clock_gettime gives a rank its simulated CPU time. */
static double now(clockid_t clock)
{
  struct timespec time;
  if (clock == CLOCK_THREAD_CPUTIME_ID)
    syscall(SYS_clock_gettime, clock, &time);
  else
    clock_gettime(clock, &time);
  return (double)time.tv_sec + (double)time.tv_nsec * 1e-9;
}

static volatile double sink;

/* Only the rank's own code: no call, no system call. */
static void burst(void)
{
  double x = sink;
  for (long i = 0; i < 10000000; ++i)
    x = x * 0.999999 + 1e-9 * (double)i;
  sink = x;
}

/* Mostly in the rank's own code (about 0.1 ms between two clock reads): where a preemption signal can pause it. */
static double spin(double seconds)
{
  double start = now(CLOCK_THREAD_CPUTIME_ID);
  double spent = 0;
  while (spent < seconds) {
    for (int i = 0; i < 30000; ++i)
      sink = sink * 0.5 + i;
    spent = now(CLOCK_THREAD_CPUTIME_ID) - start;
  }
  return spent;
}

int main(int argc, char** argv)
{
  const char* mode = argc > 1 ? argv[1] : "";
  double value     = argc > 2 ? atof(argv[2]) : 0;
  double measured  = 0;
  int bodies       = 0;
  double start     = now(CLOCK_MONOTONIC);
  if (strcmp(mode, "spin") == 0) {
    measured = spin(value);
  } else if (strcmp(mode, "spin_beside_sleep") == 0) {
    if (bxisim_rank() == 0)
      measured = spin(value);
    else
      sleep(1);
  } else if (strcmp(mode, "bursts_beside_sleep") == 0) {
    if (bxisim_rank() == 0) {
      measured    = spin(value);
      double from = now(CLOCK_MONOTONIC);
      for (int i = 0; i < 20; ++i) {
        burst();
        (void)now(CLOCK_MONOTONIC);
      }
      printf("bursts=%.9f\n", now(CLOCK_MONOTONIC) - from);
    } else {
      sleep(1);
    }
  } else if (strcmp(mode, "seconds") == 0) {
    bxisim_compute(value);
  } else if (strcmp(mode, "flops") == 0) {
    bxisim_compute_flops(value);
  } else if (strcmp(mode, "delay") == 0) {
    SMPI_SAMPLE_DELAY(value)
    {
      bodies++;
    }
  } else if (strcmp(mode, "sample_flops") == 0) {
    SMPI_SAMPLE_FLOPS(value)
    {
      bodies++;
    }
  } else if (strcmp(mode, "sample_local") == 0 || strcmp(mode, "sample_global") == 0) {
    int iterations = (int)value;
    int measures   = argc > 3 ? atoi(argv[3]) : 1;
    if (strcmp(mode, "sample_local") == 0) {
      SMPI_SAMPLE_LOCAL(int i = 0, i < iterations, i++, measures, 0)
      {
        measured += spin(0.001);
        bodies++;
      }
    } else {
      SMPI_SAMPLE_GLOBAL(int i = 0, i < iterations, i++, measures, 0)
      {
        measured += spin(0.001);
        bodies++;
      }
    }
  } else if (strcmp(mode, "shared") == 0) {
    void* block = SMPI_SHARED_MALLOC(1 << 20);
    char key[32];
    snprintf(key, sizeof(key), "block-%d", bxisim_rank());
    uintptr_t address = (uintptr_t)block;
    bxisim_kv_put(key, &address, sizeof(address));
    bxisim_barrier();
    int same = 1;
    for (int rank = 0; rank < bxisim_size(); ++rank) {
      uintptr_t other = 0;
      snprintf(key, sizeof(key), "block-%d", rank);
      bxisim_kv_get(key, &other, sizeof(other), NULL);
      same = same && other == address;
    }
    printf("shared_same=%d\n", same);
    bxisim_barrier();
    SMPI_SHARED_FREE(block);
  } else {
    fprintf(stderr, "unknown mode '%s'\n", mode);
    return 2;
  }
  double elapsed = now(CLOCK_MONOTONIC) - start;
  printf("rank=%d simulated=%.9f measured=%.9f bodies=%d\n", bxisim_rank(), elapsed, measured, bodies);
  return 0;
}
