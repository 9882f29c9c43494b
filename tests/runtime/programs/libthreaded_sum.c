/* A project's own library (built with bxicc) that runs part of its work on a thread it creates, the thread calling MPI,
 * as PT-Scotch's libptscotch does with SCOTCH_PTHREAD_MPI. Its threads are the rank's, as the program's are. */
#include <mpi.h>
#include <pthread.h>

static MPI_Comm duplicate;
static int sum;

static void* add_on_thread(void* unused)
{
  (void)unused;
  int one = 1;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, duplicate);
  return NULL;
}

int threaded_sum(MPI_Comm comm)
{
  pthread_t thread;
  MPI_Comm_dup(comm, &duplicate);
  pthread_create(&thread, NULL, add_on_thread, NULL);
  pthread_join(thread, NULL);
  MPI_Comm_free(&duplicate);
  return sum;
}
