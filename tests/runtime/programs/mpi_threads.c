/* MPI from a thread the rank's code creates (a simulated thread): rank r's thread exchanges its rank with the
 * peer's by MPI_Sendrecv while main waits in pthread_join. Two ranks. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static int rank, received = -1;
static double took;

static void* exchange(void* argument)
{
  (void)argument;
  double start = MPI_Wtime();
  MPI_Sendrecv(&rank, 1, MPI_INT, 1 - rank, 0, &received, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  took = MPI_Wtime() - start;
  return NULL;
}

int main(int argc, char** argv)
{
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pthread_t thread;
  pthread_create(&thread, NULL, exchange, NULL);
  pthread_join(thread, NULL);
  printf("received=%d took_ns=%.0f\n", received, took * 1e9);
  MPI_Finalize();
  return 0;
}
