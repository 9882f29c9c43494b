/* Each rank adds its own number to a global, sleeping between additions so that ranks interleave:
 * with shared globals the totals would mix. Prints the total, the simulated time, and who it is. */
#include <bxisim/rank.h>

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int total;
int calls;

int main(void)
{
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (int i = 0; i < 10; ++i) {
    total += bxisim_rank();
    ++calls;
    usleep(1000);
  }
  struct timespec end;
  clock_gettime(CLOCK_MONOTONIC, &end);
  double elapsed = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) * 1e-9;
  printf("rank=%d total=%d calls=%d elapsed=%.9f\n", bxisim_rank(), total, calls, elapsed);
  return 0;
}
