/* Each rank reads its CPU mask, then pins its main thread to its first CPU (as PT-Scotch's threadContextInit does),
 * one rank after the other; a thread it creates then inherits the pinned mask. Every rank must read the mask the
 * process started with, whatever the ranks before it pinned: each thread of a rank has its own. */
#define _GNU_SOURCE
#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

static int inherited;

static void* read_mask(void* unused)
{
  (void)unused;
  cpu_set_t mask;
  pthread_getaffinity_np(pthread_self(), sizeof(mask), &mask);
  inherited = CPU_COUNT(&mask);
  return NULL;
}

int main(int argc, char** argv)
{
  int rank = 0, size = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  cpu_set_t started, pinned, empty;
  int before = 0, after = 0, first = 0;
  for (int turn = 0; turn < size; ++turn) {
    if (turn == rank) {
      pthread_getaffinity_np(pthread_self(), sizeof(started), &started);
      before = CPU_COUNT(&started);
      while (!CPU_ISSET(first, &started))
        ++first;
      CPU_ZERO(&pinned);
      CPU_SET(first, &pinned);
      pthread_setaffinity_np(pthread_self(), sizeof(pinned), &pinned);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  cpu_set_t now;
  sched_getaffinity(0, sizeof(now), &now);
  after = CPU_COUNT(&now);
  pthread_t thread;
  pthread_create(&thread, NULL, read_mask, NULL);
  pthread_join(thread, NULL);
  CPU_ZERO(&empty);
  int refused = sched_setaffinity(0, sizeof(empty), &empty) == -1 && errno == EINVAL;
  int fewest = 0, most = 0;
  MPI_Allreduce(&before, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&before, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  sched_setaffinity(0, sizeof(started), &started);
  printf("rank=%d before=%d same_for_all=%d after=%d inherited=%d empty_refused=%d\n", rank, before, fewest == most,
         after, inherited, refused);
  MPI_Finalize();
  return 0;
}
