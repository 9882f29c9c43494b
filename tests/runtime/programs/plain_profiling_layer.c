/* A profiling layer compiled as for another MPI's header: it defines MPI_Bcast by its plain name and calls PMPI_Bcast.
 * The linker stores "MPI_Bcast" inside "PMPI_Bcast": the plain call cannot be pointed at bxisim's MPI without renaming
 * the definition, so bxisim refuses the program. */
#include <mpi.h>

int plain_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) __asm__("MPI_Bcast");
int plain_profiled_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) __asm__("PMPI_Bcast");

int plain_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
  return plain_profiled_bcast(buffer, count, type, root, comm);
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int value = 1;
  plain_bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return MPI_Finalize();
}
