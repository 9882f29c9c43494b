/* Timing fidelity of CPU-time injection through an MPI library (docs/running.md, "Computation"). Ranks
 * pair up (even rank r with r + 1) and play `rounds` rounds of an MPI_Send/MPI_Recv ping-pong of `bytes`
 * bytes, each round timed with MPI_Wtime, after `warmup` untimed rounds. Each even rank prints
 *   mpi_fidelity rank=<r> median_half=<us> mean_half=<us>
 * (half a round trip, simulated microseconds; the median over rounds). */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

static int by_value(const void* a, const void* b)
{
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int bytes  = argc > 1 ? atoi(argv[1]) : 8;
  int rounds = argc > 2 ? atoi(argv[2]) : 200;
  int warmup = argc > 3 ? atoi(argv[3]) : 20;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 2 != 0) {
    if (rank == 0)
      fprintf(stderr, "run an even number of ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int partner   = rank ^ 1;
  char* buffer  = calloc((size_t)bytes + 1, 1);
  double* halfs = malloc(sizeof(double) * (size_t)rounds);
  for (int round = -warmup; round < rounds; ++round) {
    double start = MPI_Wtime();
    if (rank % 2 == 0) {
      MPI_Send(buffer, bytes, MPI_CHAR, partner, 0, MPI_COMM_WORLD);
      MPI_Recv(buffer, bytes, MPI_CHAR, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffer, bytes, MPI_CHAR, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer, bytes, MPI_CHAR, partner, 0, MPI_COMM_WORLD);
    }
    if (round >= 0)
      halfs[round] = (MPI_Wtime() - start) * 1e6 / 2;
  }
  if (rank % 2 == 0) {
    double sum = 0;
    for (int round = 0; round < rounds; ++round)
      sum += halfs[round];
    qsort(halfs, (size_t)rounds, sizeof(double), by_value);
    printf("mpi_fidelity rank=%d median_half=%.4f mean_half=%.4f\n", rank, halfs[rounds / 2], sum / rounds);
  }
  free(halfs);
  free(buffer);
  MPI_Finalize();
  return 0;
}
