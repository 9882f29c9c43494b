/* Calls MPI functions by their plain names, through macros of its own (plain_mpi_names.h), from the program and from a
 * library of its own; prints what each rank got. */
#include "plain_mpi_names.h"

#include <stdio.h>

int plain_calls;

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int one = rank + 1;
  int sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  /* The same function through mpi.h's declaration (the parentheses stop the macro): the linker may then store the plain
   * name inside bxisim_MPI_Allreduce's, which the rewrite must keep valid. */
  int twice = 0;
  (MPI_Allreduce)(&sum, &twice, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int root_sum = reduced_on_rank_0(one);
  int token    = rank == 0 ? 42 : 0;
  PMPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD);
  printf("rank=%d size=%d sum=%d twice=%d reduced=%d token=%d plain_calls=%d\n", rank, size, sum, twice, root_sum,
         token, plain_calls);
  MPI_Finalize();
  return 0;
}
