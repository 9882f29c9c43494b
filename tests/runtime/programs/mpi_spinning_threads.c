/* Threads of a rank that wait for each other by spinning on memory, as MPICH's MTest_thread_barrier does: the thread
 * that arrives first busy-waits until bxisim pauses it, and the others then run and arrive. Main holds a mutex while
 * it creates the threads, which take it first: a new thread then waits for the lock in simulated time, so the first
 * pause of a spinning thread finds something under way (that wait) and sleeps a busy-wait step. Rounds of 1 to 3
 * threads, between collectives of the two ranks. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER, start = PTHREAD_MUTEX_INITIALIZER;
static volatile int counts[2] = {-1, -1};
static volatile int phase     = 0;
static int rank, threads;

static void spin_barrier(int n)
{
  pthread_mutex_lock(&lock);
  volatile int* count = &counts[phase];
  pthread_mutex_unlock(&lock);
  pthread_mutex_lock(&lock);
  if (*count < 0)
    *count = n;
  if (*count == 1) {
    phase         = !phase;
    counts[phase] = -1;
    *count        = 0;
  }
  *count = *count - 1;
  pthread_mutex_unlock(&lock);
  while (*count > 0)
    ;
}

static void* work(void* unused)
{
  (void)unused;
  pthread_mutex_lock(&start);
  pthread_mutex_unlock(&start);
  spin_barrier(threads);
  for (int i = 0; i < 100; i++)
    MPI_Send(NULL, 0, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  spin_barrier(threads);
  return NULL;
}

int main(int argc, char** argv)
{
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (threads = 1; threads <= 3; threads++) {
    MPI_Barrier(MPI_COMM_WORLD);
    pthread_t others[2];
    pthread_mutex_lock(&start);
    for (int i = 0; i < threads - 1; i++)
      pthread_create(&others[i], NULL, work, NULL);
    pthread_mutex_unlock(&start);
    work(NULL);
    for (int i = 0; i < threads - 1; i++)
      pthread_join(others[i], NULL);
    double mine = rank, sum = 0;
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  }
  printf("rounds=%d\n", threads - 1);
  MPI_Finalize();
  return 0;
}
