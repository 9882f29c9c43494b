/* Built twice, into two folders, under one file name and without a soname (-DWHICH=first, -DWHICH=second): a program
 * linked to both by their paths needs two libraries of the same file name. Each rank must count in its own copies. */
#include <mpi.h>

#define NAME(which) NAME_(which)
#define NAME_(which) same_name_next_##which

static int count;

int NAME(WHICH)(void)
{
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return ++count;
}
