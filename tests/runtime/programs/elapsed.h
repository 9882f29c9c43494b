/* now_ns(): the rank's simulated time in nanoseconds since start_elapsed() (bxisim's clocks read each rank's simulated
 * time), from 0 until it is called. Shared by the test programs that include it (each is otherwise a standalone program
 * built with bxicc). */
#ifndef BXISIM_TEST_ELAPSED_H
#define BXISIM_TEST_ELAPSED_H

#include <time.h>

static long long elapsed_start_ns;

static inline long long now_ns(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec - elapsed_start_ns;
}

static inline void start_elapsed(void)
{
  elapsed_start_ns = 0;
  elapsed_start_ns = now_ns();
}

#endif
