/* Drives the rank's own copy of OpenMPI directly (bxisim_openmpi_handle + dlsym), below the
 * middleware's mpi.h: tests of the runtime's side of MPI (copies, start-up hooks, hostnames, abort,
 * refusals, polling). OpenMPI's handles are pointers to its predefined objects; no mpi.h is used.
 *
 *   openmpi_copy ring BYTES      init, allreduce of the ranks, ring exchange of BYTES, barrier, finalize
 *   openmpi_copy ring_code BYTES the same, then prints the inode of the file the copy's code is mapped from, the
 *                                copy's own, its size and the disk it holds (the copies share the original
 *                                library's code pages)
 *   openmpi_copy abort RANK      RANK calls MPI_Abort(42); the others wait in a barrier
 *   openmpi_copy thread LEVEL    MPI_Init_thread(LEVEL: 0 single .. 3 multiple); prints what is provided
 *   openmpi_copy spawn           MPI_Comm_spawn of one process
 *   openmpi_copy no-finalize R   rank R returns without MPI_Finalize
 *   openmpi_copy init            MPI_Init and MPI_Finalize only (start-up cost: wall_* are wall-clock
 *                                seconds, read with a raw system call that bxisim does not simulate)
 */
#define _GNU_SOURCE /* dladdr */
#include "mapped_file.h"

#include <bxisim/rank.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void* bxisim_openmpi_handle(void); /* exported by bxisim for this test */

typedef void* Handle;
typedef struct {
  int source, tag, error, cancelled;
  size_t ucount;
} Status; /* OpenMPI 4.1's MPI_Status */

static void* mpi;

static double wall_clock(void)
{
  struct timespec now;
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

static void* symbol(const char* name)
{
  void* found = dlsym(mpi, name);
  if (found == NULL) {
    fprintf(stderr, "missing %s in the OpenMPI copy\n", name);
    exit(90);
  }
  return found;
}
#define FN(type, name) ((type)symbol(name))

/** The file the loader loaded `address` from (the rank's copy), or NULL. */
static int loaded_file(const void* address, struct stat* file)
{
  Dl_info info;
  return dladdr(address, &info) != 0 && stat(info.dli_fname, file) == 0;
}

int main(int argc, char** argv)
{
  mpi = bxisim_openmpi_handle();
  if (mpi == NULL || argc < 2) {
    fprintf(stderr, "no OpenMPI copy for this rank, or no mode\n");
    return 91;
  }
  Handle world     = symbol("ompi_mpi_comm_world");
  Handle type_int  = symbol("ompi_mpi_int");
  Handle type_byte = symbol("ompi_mpi_byte");
  Handle op_sum    = symbol("ompi_mpi_op_sum");
  const char* mode = argv[1];
  int rank = -1, size = -1;

  if (strcmp(mode, "thread") == 0) {
    int provided = -1;
    int rc       = FN(int (*)(int*, char***, int, int*), "MPI_Init_thread")(&argc, &argv, atoi(argv[2]), &provided);
    printf("rc=%d provided=%d\n", rc, provided);
    FN(int (*)(void), "MPI_Finalize")();
    return 0;
  }

  double t0 = bxisim_time(), wall0 = wall_clock();
  if (FN(int (*)(int*, char***), "MPI_Init")(&argc, &argv) != 0)
    return 92;
  double t_init = bxisim_time() - t0, wall1 = wall_clock();
  FN(int (*)(Handle, int*), "MPI_Comm_rank")(world, &rank);
  FN(int (*)(Handle, int*), "MPI_Comm_size")(world, &size);
  char host[256];
  int length = 0;
  FN(int (*)(char*, int*), "MPI_Get_processor_name")(host, &length);
  printf("rank=%d size=%d host=%s init_time=%.9f wall_init_start=%.6f wall_init_end=%.6f\n", rank, size, host, t_init,
         wall0, wall1);

  int (*barrier)(Handle) = FN(int (*)(Handle), "MPI_Barrier");
  if (strcmp(mode, "ring") == 0 || strcmp(mode, "ring_code") == 0) {
    int sum = -1;
    FN(int (*)(const void*, void*, int, Handle, Handle, Handle), "MPI_Allreduce")
    (&rank, &sum, 1, type_int, op_sum, world);
    int bytes          = atoi(argv[2]);
    unsigned char* out = malloc((size_t)bytes + 1);
    unsigned char* in  = malloc((size_t)bytes + 1);
    for (int i = 0; i < bytes; ++i)
      out[i] = (unsigned char)(rank * 31 + i);
    memset(in, 0, (size_t)bytes + 1);
    int next = (rank + 1) % size, previous = (rank + size - 1) % size;
    Status status;
    double t1 = bxisim_time();
    FN(int (*)(const void*, int, Handle, int, int, void*, int, Handle, int, int, Handle, Status*), "MPI_Sendrecv")
    (out, bytes, type_byte, next, 7, in, bytes, type_byte, previous, 7, world, &status);
    double t_ring = bxisim_time() - t1;
    int ok        = status.source == previous && status.ucount == (size_t)bytes;
    for (int i = 0; i < bytes; ++i)
      ok = ok && in[i] == (unsigned char)(previous * 31 + i);
    barrier(world);
    printf("rank=%d sum=%d from=%d data_ok=%d ring_time=%.9f\n", rank, sum, status.source, ok, t_ring);
    void* code = symbol("MPI_Sendrecv");
    if (strcmp(mode, "ring_code") == 0) /* /proc/self/maps has a few mappings per rank: not in every ring */
    {
      struct stat copy = {0};
      loaded_file(code, &copy);
      printf("rank=%d code_inode=%lu copy_inode=%lu copy_size=%lld copy_allocated=%lld\n", rank, mapped_inode(code),
             (unsigned long)copy.st_ino, (long long)copy.st_size, (long long)copy.st_blocks * 512);
    }
    free(out);
    free(in);
  } else if (strcmp(mode, "abort") == 0) {
    if (rank == atoi(argv[2])) {
      printf("rank %d aborts\n", rank);
      fflush(stdout);
      FN(int (*)(Handle, int), "MPI_Abort")(world, 42);
      printf("MPI_Abort returned\n");
    }
    barrier(world);
    printf("rank %d passed the barrier\n", rank);
  } else if (strcmp(mode, "spawn") == 0) {
    Handle intercomm = NULL;
    FN(int (*)(const char*, char**, int, Handle, int, Handle, Handle*, int*), "MPI_Comm_spawn")
    (argv[0], NULL, 1, symbol("ompi_mpi_info_null"), 0, world, &intercomm, NULL);
    printf("MPI_Comm_spawn returned\n");
  } else if (strcmp(mode, "no-finalize") == 0) {
    if (rank == atoi(argv[2]))
      return 0;
  }
  FN(int (*)(void), "MPI_Finalize")();
  printf("rank=%d finalized=1 end_time=%.9f\n", rank, bxisim_time());
  return 0;
}
