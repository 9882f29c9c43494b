/* MPI inside `#pragma omp single` (MPI_THREAD_SERIALIZED), as hybrid programs call it: each rank's team of three
 * threads runs five allreduces, each from a single construct (with and without nowait), and counts which thread ran
 * them; then three single constructs with copyprivate (a broadcast value handed to every thread of the team).
 * Prints "openmp_single rank=<r> sum=<sum of the allreduces> by_master=<how many ran on thread 0>
 * copied=<threads that got every copyprivate value>". */
#include <mpi.h>
#include <omp.h>

#include <stdio.h>

int main(int argc, char** argv)
{
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int sum = 0, by_master = 0, copied = 0;
#pragma omp parallel num_threads(3) reduction(+ : by_master, copied)
  {
    for (int k = 0; k < 4; ++k) {
#pragma omp single
      {
        int value = rank + k, total = 0;
        MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        sum += total;
        by_master += omp_get_thread_num() == 0;
      }
    }
#pragma omp single nowait
    {
      int value = 1, total = 0;
      MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      sum += total;
      by_master += omp_get_thread_num() == 0;
    }
#pragma omp barrier
    int all_right = 1;
    for (int k = 0; k < 3; ++k) {
      int value = -1;
#pragma omp single copyprivate(value)
      {
        value = 100 * k;
        MPI_Bcast(&value, 1, MPI_INT, k % 2, MPI_COMM_WORLD);
        value += omp_get_thread_num(); /* 0 on the master, which runs the block */
      }
      all_right &= value == 100 * k;
    }
    copied += all_right;
  }
  printf("openmp_single rank=%d sum=%d by_master=%d copied=%d provided_ok=%d\n", rank, sum, by_master, copied,
         provided >= MPI_THREAD_SERIALIZED);
  MPI_Finalize();
  return 0;
}
