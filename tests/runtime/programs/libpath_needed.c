/* A library built for bxisim without a soname: linked by its path (`cc main.c /path/libpath_needed.so`, as hand-written
 * Makefiles do), the program needs it by that path. Each rank must count in its own copy. */
#include <mpi.h>

static int count;

int path_needed_next(void)
{
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return ++count;
}
