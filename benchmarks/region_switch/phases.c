/* The region-switch study (issue 11 item 5): ten phases, compute-heavy (odd) and communication-heavy
 * (even), each in a region "phase<k>" at BXISIM_LEVEL_DEFAULT, so that `bxisim run --region
 * phase6=cycle` puts one phase at another level without recompiling. Compute phases simulate a fixed
 * amount of work (bxisim_compute, deterministic; a busy loop under another MPI). Rank 0 prints, per
 * phase, its simulated duration after a barrier: phase,<k>,<seconds>.
 *   phases [iterations [late_ns]]   (iterations, default 4: every communication phase repeats its
 *   pattern that many times; late_ns, default 0: rank 0 enters every phase's first barrier that many
 *   nanoseconds late, a perturbation of the phases' start for the study's sensitivity runs) */
#include <bxisim/region.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef BXISIM_MPI
#include <bxisim/rank.h>
#endif

static int rank, size, iterations = 4;
static double rank0_late = 0; /* seconds: rank 0 enters every phase's first barrier that late */

static void compute(double seconds)
{
#ifdef BXISIM_MPI
  bxisim_compute(seconds);
#else
  double end = MPI_Wtime() + seconds;
  while (MPI_Wtime() < end) {
  }
#endif
}

static void allreduce_small(void)
{
  for (int i = 0; i < 8 * iterations; ++i) {
    double value = rank + i, sum = 0;
    MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
}

static void alltoall(int bytes)
{
  char* out = calloc((size_t)size, (size_t)bytes);
  char* in  = calloc((size_t)size, (size_t)bytes);
  for (int i = 0; i < iterations; ++i)
    MPI_Alltoall(out, bytes, MPI_BYTE, in, bytes, MPI_BYTE, MPI_COMM_WORLD);
  free(out);
  free(in);
}

static void halo(int bytes)
{
  char* buffers = calloc(4, (size_t)bytes);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (int i = 0; i < iterations; ++i) {
    MPI_Request requests[4];
    MPI_Irecv(buffers, bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(buffers + bytes, bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD, &requests[1]);
    MPI_Isend(buffers + 2 * bytes, bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD, &requests[2]);
    MPI_Isend(buffers + 3 * bytes, bytes, MPI_BYTE, left, 2, MPI_COMM_WORLD, &requests[3]);
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
  }
  free(buffers);
}

static void bcast(int bytes)
{
  char* buffer = calloc(1, (size_t)bytes);
  for (int i = 0; i < iterations; ++i)
    MPI_Bcast(buffer, bytes, MPI_BYTE, i % size, MPI_COMM_WORLD);
  free(buffer);
}

static void allreduce_large(int count)
{
  double* out = calloc((size_t)count, sizeof(double));
  double* in  = calloc((size_t)count, sizeof(double));
  for (int i = 0; i < iterations; ++i)
    MPI_Allreduce(out, in, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(out);
  free(in);
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1)
    iterations = atoi(argv[1]);
  if (argc > 2)
    rank0_late = atof(argv[2]) * 1e-9;
  for (int k = 1; k <= 10; ++k) {
    char name[16];
    snprintf(name, sizeof name, "phase%d", k);
    bxisim_region_begin(name, BXISIM_LEVEL_DEFAULT);
    if (rank == 0 && rank0_late > 0)
      compute(rank0_late);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    switch (k) {
    case 2:
      allreduce_small();
      break;
    case 4:
      alltoall(4096);
      break;
    case 6:
      halo(65536);
      break;
    case 8:
      bcast(1 << 20);
      break;
    case 10:
      allreduce_large(32768);
      break;
    default:
      compute(0.002 * (k + 1));
      break;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
      printf("phase,%d,%.9f\n", k, MPI_Wtime() - start);
    bxisim_region_end(name);
  }
  MPI_Finalize();
  return 0;
}
