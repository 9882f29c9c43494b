/* A program built with bxisim's mpi.h that calls MPI-1 functions MPI-3.0 removed (MPI_Type_struct and
 * MPI_Address, as HPL does): mpi.h does not declare them, so the compiler takes them for implicitly
 * declared functions and the program references them itself. */
#include <mpi.h>

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int lengths[1]        = {1};
  MPI_Aint displs[1]    = {0};
  MPI_Datatype types[1] = {MPI_INT};
  MPI_Datatype type;
  MPI_Address(lengths, &displs[0]);
  MPI_Type_struct(1, lengths, displs, types, &type);
  return MPI_Finalize();
}
