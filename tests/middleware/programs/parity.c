/* The same MPI program built twice: with bxicc (run by bxisim run --level smpi) and with SimGrid's
 * smpicc (run by smpirun), to compare their simulated times. Arguments, in order, any number of:
 *   pingpong <bytes> <iterations>   ranks 0 and 1, the others wait at the barrier
 *   allreduce <doubles>             every rank
 *   alltoall <doubles per peer>     every rank
 *   repeat <n>                      runs the previous step n times in all (for wall-time benchmarks)
 * Every rank prints one line per step: "parity rank=R step=K what=<name>_<bytes> time=<seconds>" with
 * the simulated time the step took on that rank (%a: exact). Data are checked; a wrong value prints
 * "parity bad=<step>". */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static double pingpong(long bytes, int iterations)
{
  char* buffer = calloc((size_t)bytes + 1, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  if (rank < 2 && size > 1) {
    for (int i = 0; i < iterations; ++i) {
      if (rank == 0) {
        buffer[0] = (char)i;
        MPI_Send(buffer, (int)bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(buffer, (int)bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (bytes > 0 && buffer[0] != (char)(i + 1))
          printf("parity bad=pingpong\n");
      } else {
        MPI_Recv(buffer, (int)bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        buffer[0] = (char)(buffer[0] + 1);
        MPI_Send(buffer, (int)bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
      }
    }
  }
  double elapsed = MPI_Wtime() - start;
  free(buffer);
  return elapsed;
}

static double allreduce(long count)
{
  double* in  = malloc((size_t)count * sizeof(double));
  double* out = malloc((size_t)count * sizeof(double));
  for (long i = 0; i < count; ++i)
    in[i] = rank + i;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double elapsed = MPI_Wtime() - start;
  for (long i = 0; i < count; ++i)
    if (out[i] != (double)size * (size - 1) / 2 + (double)size * i) {
      printf("parity bad=allreduce\n");
      break;
    }
  free(in);
  free(out);
  return elapsed;
}

static double alltoall(long count)
{
  double* in  = malloc((size_t)count * (size_t)(unsigned)size * sizeof(double));
  double* out = malloc((size_t)count * (size_t)(unsigned)size * sizeof(double));
  for (long i = 0; i < count * size; ++i)
    in[i] = rank * 1000.0 + (double)(i / count);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  MPI_Alltoall(in, (int)count, MPI_DOUBLE, out, (int)count, MPI_DOUBLE, MPI_COMM_WORLD);
  double elapsed = MPI_Wtime() - start;
  for (long i = 0; i < count * size; ++i)
    if (out[i] != (double)(i / count) * 1000.0 + rank) {
      printf("parity bad=alltoall\n");
      break;
    }
  free(in);
  free(out);
  return elapsed;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int step         = 0;
  const char* last = NULL;
  long last_value = 0, last_iterations = 1;
  for (int i = 1; i < argc; ++i) {
    const char* what = argv[i];
    int times        = 1;
    long value = 0, iterations = 1;
    if (!strcmp(what, "repeat") && i + 1 < argc && last != NULL) {
      times      = atoi(argv[++i]) - 1;
      what       = last;
      value      = last_value;
      iterations = last_iterations;
    } else if (!strcmp(what, "pingpong") && i + 2 < argc) {
      value      = atol(argv[++i]);
      iterations = atol(argv[++i]);
    } else if ((!strcmp(what, "allreduce") || !strcmp(what, "alltoall")) && i + 1 < argc) {
      value = atol(argv[++i]);
    } else {
      if (rank == 0)
        printf("parity bad=arguments near '%s'\n", what);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int k = 0; k < times; ++k) {
      double elapsed = 0;
      if (!strcmp(what, "pingpong"))
        elapsed = pingpong(value, (int)iterations);
      else if (!strcmp(what, "allreduce"))
        elapsed = allreduce(value);
      else
        elapsed = alltoall(value);
      printf("parity rank=%d step=%d what=%s_%ld time=%a\n", rank, step++, what, value, elapsed);
    }
    last = what, last_value = value, last_iterations = iterations;
  }
  MPI_Finalize();
  return 0;
}
