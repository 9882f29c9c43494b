/* The library half of plain_mpi_names.c: PETSc's libpetsc.so calls MPI so. */
#include "plain_mpi_names.h"

int reduced_on_rank_0(int value)
{
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* through mpi.h: bxisim_MPI_Comm_rank */
  int sum = -1;
  MPI_Reduce(&value, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  return rank == 0 ? sum : -1;
}
