/* Random generators per rank: rank 0 seeds with argv[1], the others do not; every rank draws with
 * simulated sleeps in between, so that draws of different ranks interleave. */
#include <bxisim/rank.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv)
{
  if (bxisim_rank() == 0 && argc > 1) {
    srand((unsigned)atoi(argv[1]));
    srand48(atol(argv[1]));
  }
  int first = rand();
  usleep(1);
  int second = rand();
  usleep(1);
  long third = random();
  usleep(1);
  long fourth = lrand48();
  printf("first=%d second=%d third=%ld fourth=%ld\n", first, second, third, fourth);
  return 0;
}
