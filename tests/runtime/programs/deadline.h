/* deadline_in(clock, nanoseconds): the absolute time that far from now on `clock`, for the timed waits that take
 * one. Shared by the test programs that include it (each is otherwise a standalone program built with bxicc). */
#ifndef BXISIM_TEST_DEADLINE_H
#define BXISIM_TEST_DEADLINE_H

#include <time.h>

static inline struct timespec deadline_in(clockid_t clock, long nanoseconds)
{
  struct timespec deadline;
  clock_gettime(clock, &deadline);
  deadline.tv_nsec += nanoseconds;
  while (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_nsec -= 1000000000L;
    deadline.tv_sec += 1;
  }
  return deadline;
}

#endif
