/* The variables mpirun gives each process, read from the program: every rank prints its own. And the options of
 * OPTIONS_TO_CUT, cut up in place with strtok as mpiP parses its MPIP: each rank must see them whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* value(const char* name)
{
  const char* found = getenv(name);
  return found != NULL ? found : "unset";
}

static int options_cut_in_place(void)
{
  char* options = getenv("OPTIONS_TO_CUT");
  int count     = 0;
  for (char* option = options != NULL ? strtok(options, " ") : NULL; option != NULL; option = strtok(NULL, " "))
    ++count;
  return count;
}

int main(void)
{
  printf("rank=%s size=%s local_rank=%s local_size=%s node_rank=%s pmix_rank=%s options=%d\n",
         value("OMPI_COMM_WORLD_RANK"), value("OMPI_COMM_WORLD_SIZE"), value("OMPI_COMM_WORLD_LOCAL_RANK"),
         value("OMPI_COMM_WORLD_LOCAL_SIZE"), value("OMPI_COMM_WORLD_NODE_RANK"), value("PMIX_RANK"),
         options_cut_in_place());
  return 0;
}
