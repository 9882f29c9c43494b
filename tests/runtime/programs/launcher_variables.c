/* The variables mpirun gives each process, read from the program: every rank prints its own. */
#include <stdio.h>
#include <stdlib.h>

static const char* value(const char* name)
{
  const char* found = getenv(name);
  return found != NULL ? found : "unset";
}

int main(void)
{
  printf("rank=%s size=%s local_rank=%s local_size=%s node_rank=%s pmix_rank=%s\n", value("OMPI_COMM_WORLD_RANK"),
         value("OMPI_COMM_WORLD_SIZE"), value("OMPI_COMM_WORLD_LOCAL_RANK"), value("OMPI_COMM_WORLD_LOCAL_SIZE"),
         value("OMPI_COMM_WORLD_NODE_RANK"), value("PMIX_RANK"));
  return 0;
}
