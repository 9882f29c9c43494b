/* The C part of fortran_suite (a mixed-language program): handles cross the language boundary through
 * MPI_Comm_f2c / MPI_Type_c2f (MPI-3.1 17.2.4), in both directions. */
#include <mpi.h>

/* The size of a communicator the Fortran part gives, read in C. */
int c_comm_size_(const MPI_Fint* comm)
{
  int size = -1;
  MPI_Comm_size(MPI_Comm_f2c(*comm), &size);
  return size;
}

/* A datatype made in C, handed to Fortran: two C ints, contiguous. */
MPI_Fint c_pair_type_(void)
{
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  return MPI_Type_c2f(pair);
}

/* MPI_COMM_WORLD's Fortran handle, as C sees it. */
MPI_Fint c_world_(void)
{
  return MPI_Comm_c2f(MPI_COMM_WORLD);
}
