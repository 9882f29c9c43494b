/* Calls libthreaded_sum, linked (no argument) or opened with dlopen ("opened"): the sum its thread computes over the
 * ranks is the number of ranks in every rank. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int threaded_sum(MPI_Comm comm);

int main(int argc, char** argv)
{
  int provided = 0, rank = 0, size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int (*sum)(MPI_Comm) = threaded_sum;
  if (argc > 1 && strcmp(argv[1], "opened") == 0) {
    void* library = dlopen("libthreaded_sum.so", RTLD_NOW);
    sum           = library != NULL ? (int (*)(MPI_Comm))dlsym(library, "threaded_sum") : NULL;
    if (sum == NULL) {
      printf("rank=%d bad_dlopen=1\n", rank);
      return 1;
    }
  }
  printf("rank=%d provided_multiple=%d sum=%d size=%d\n", rank, provided == MPI_THREAD_MULTIPLE, sum(MPI_COMM_WORLD),
         size);
  MPI_Finalize();
  return 0;
}
