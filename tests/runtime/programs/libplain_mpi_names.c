/* The library half of plain_mpi_names.c: PETSc's libpetsc.so calls MPI so. */
#include "plain_mpi_names.h"

int reduced_on_rank_0(int value)
{
  int sum = -1;
  MPI_Reduce(&value, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  return sum;
}
