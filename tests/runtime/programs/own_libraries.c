/* Registers through libregistry_user, then asks libregistry directly: with a copy of both per rank, every rank sees
 * exactly its own registration. */
#include <mpi.h>
#include <stdio.h>

int registry_user_enter(void);
int registry_count(void);
int registry_owner(void);

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  registry_user_enter();
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank=%d registrations=%d owner=%d\n", rank, registry_count(), registry_owner());
  MPI_Finalize();
  return 0;
}
