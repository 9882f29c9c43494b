/* locked_clock as an MPI program, for --level smpi: each rank computes argv[1] seconds of CPU time
 * (default 0.003) after MPI_Init, reads time() inside liblocked_clock.so's lock, and prints
 * seconds=<time()'s answer>. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

long locked_clock_read(void);

static double cpu_seconds(void)
{
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  double work     = argc > 1 ? atof(argv[1]) : 0.003;
  double start    = cpu_seconds();
  volatile long x = 0;
  while (cpu_seconds() - start < work)
    x++;
  printf("seconds=%ld\n", locked_clock_read());
  MPI_Finalize();
  return 0;
}
