/* PT-Scotch's threadContextExit: the main thread tells its worker to stop (a condition broadcast), then spins on
 * "lock; read the counter; unlock" until the worker acknowledges. Natively the worker runs on another core meanwhile;
 * here every thread of every rank runs on one, and the spin must let the worker run. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock   = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stopped = PTHREAD_COND_INITIALIZER;
static int stop, acknowledged;

static void* worker(void* unused)
{
  (void)unused;
  pthread_mutex_lock(&lock);
  while (!stop)
    pthread_cond_wait(&stopped, &lock);
  acknowledged = 1;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(int argc, char** argv)
{
  int provided = 0, rank = 0, seen = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  pthread_detach(thread);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  pthread_mutex_lock(&lock);
  stop = 1;
  pthread_cond_broadcast(&stopped);
  pthread_mutex_unlock(&lock);
  do {
    pthread_mutex_lock(&lock);
    seen = acknowledged;
    pthread_mutex_unlock(&lock);
  } while (!seen);
  double spin = MPI_Wtime() - start;
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank=%d spin=%.9f\n", rank, spin);
  MPI_Finalize();
  return 0;
}
