/* The library of own_mpi_routine.f90: a routine named like an MPI binding, which is not one. */
#include <stdio.h>

void mpi_my_helper_(void)
{
  printf("helper=called\n");
}
