/* A library built with bxicc that calls MPI and keeps a registry of its own, filled once per process (libsc's package
 * registry, which aborts on a second registration): bxisim gives each rank its own copy without being asked. */
#include <mpi.h>

static int registrations;
static int owner = -1;

int registry_enter(void)
{
  MPI_Comm_rank(MPI_COMM_WORLD, &owner);
  return ++registrations;
}

int registry_count(void)
{
  return registrations;
}

int registry_owner(void)
{
  return owner;
}
