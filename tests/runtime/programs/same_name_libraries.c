/* Calls the two libsame_name.so, needed by their paths: every rank counts once in each. */
#include <mpi.h>
#include <stdio.h>

int same_name_next_first(void);
int same_name_next_second(void);

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  int first  = same_name_next_first();
  int second = same_name_next_second();
  int total  = 0;
  MPI_Allreduce(&first, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank=%d first=%d second=%d total=%d\n", rank, first, second, total);
  MPI_Finalize();
  return 0;
}
