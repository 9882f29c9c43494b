/* Counts once in libpath_needed.so, needed by its path: every rank must see 1, as separate processes do. */
#include <mpi.h>
#include <stdio.h>

int path_needed_next(void);

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  int count = path_needed_next();
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank=%d count=%d\n", rank, count);
  MPI_Finalize();
  return 0;
}
