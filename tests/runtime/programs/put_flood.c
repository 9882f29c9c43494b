/* Every rank puts COUNT messages of SIZE bytes to its right neighbour in one passive-target epoch (ARMCI-MPI's ring
 * flood), into a window of MPI_Win_create (osc/pt2pt over btl/portals4, inside a node too), then checks them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv)
{
  int size = argc > 1 ? atoi(argv[1]) : 4096, count = argc > 2 ? atoi(argv[2]) : 1024;
  int rank = 0, ranks = 0, errors = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  char* window = calloc((size_t)size * count, 1);
  char* source = malloc((size_t)size);
  memset(source, rank + 1, (size_t)size);
  MPI_Win win;
  MPI_Win_create(window, (MPI_Aint)size * count, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int right = (rank + 1) % ranks;
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < count; ++i)
    MPI_Put(source, size, MPI_BYTE, right, (MPI_Aint)i * size, size, MPI_BYTE, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  char expected = (char)((rank + ranks - 1) % ranks + 1);
  for (size_t i = 0; i < (size_t)size * count; ++i)
    errors += window[i] != expected;
  printf("rank=%d errors=%d\n", rank, errors);
  MPI_Win_free(&win);
  free(source);
  free(window);
  MPI_Finalize();
  return 0;
}
