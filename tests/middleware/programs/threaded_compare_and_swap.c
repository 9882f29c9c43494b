/* Atomic increments by compare-and-swap under an exclusive lock, in a program initialised with a thread level above
 * MPI_THREAD_SINGLE (argv[1]: funneled, serialized or multiple), while the target waits in a barrier: OpenCoarrays'
 * LOCK pattern (tests/middleware/conformance_test.cpp). Prints the level provided and, on rank 0, the total. */
#include <mpi.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char** argv)
{
  int wanted = MPI_THREAD_FUNNELED;
  if (argc > 1 && strcmp(argv[1], "serialized") == 0)
    wanted = MPI_THREAD_SERIALIZED;
  if (argc > 1 && strcmp(argv[1], "multiple") == 0)
    wanted = MPI_THREAD_MULTIPLE;
  int provided = -1;
  MPI_Init_thread(&argc, &argv, wanted, &provided);
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long* counter = NULL;
  MPI_Win win;
  MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
  *counter = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const int increments = 3;
  int tries            = 0;
  if (rank != 0) { // rank 0 serves them from its barrier
    for (int i = 0; i < increments; ++i) {
      long expected = 0;
      for (;;) {
        long desired = expected + 1;
        long seen    = -1;
        ++tries;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Compare_and_swap(&desired, &expected, &seen, MPI_LONG, 0, 0, win);
        MPI_Win_unlock(0, win);
        if (seen == expected)
          break;
        expected = seen;
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("provided=%d wanted=%d tries_ok=%d", provided, wanted, tries >= (rank != 0 ? increments : 0));
  if (rank == 0)
    printf(" total=%ld expected=%d", *counter, increments * (size - 1));
  printf("\n");
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
