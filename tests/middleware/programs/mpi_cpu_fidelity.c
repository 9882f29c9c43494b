/* Timing fidelity of CPU-time injection through an MPI library (docs/running.md, "Computation").
 *   mpi_cpu_fidelity <bytes> <rounds> <warmup>
 * Ranks pair up (even rank r with r + 1) and play `rounds` rounds of an MPI_Send/MPI_Recv ping-pong of `bytes`
 * bytes, each round timed with MPI_Wtime, after `warmup` untimed rounds. Each even rank prints
 *   mpi_fidelity rank=<r> median_half=<us> mean_half=<us>
 * (half a round trip, simulated microseconds; the median over rounds).
 *   mpi_cpu_fidelity sum <doubles>        MPI_Reduce_local with MPI_SUM: the library's computation
 *   mpi_cpu_fidelity user_op <us>         MPI_Reduce_local with a user operation computing <us> of CPU time
 *   mpi_cpu_fidelity paused_sum <doubles> the sum, its call made after the thread is off the CPU for 20 ms of real
 *                                         time, as on a loaded host (a system call bxisim does not see)
 * Each rank prints "reduce_local rank=<r> simulated_us=<us>": the simulated time the call took.
 *   mpi_cpu_fidelity file_write <MiB> <folder>  each rank writes <MiB> MiB into a file of its own in <folder> with
 *                                         pwrite, then as much with MPI_File_write_at; prints
 *                                         "file_write rank=<r> pwrite_us=<us> mpiio_us=<us>" */
#include <mpi.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int by_value(const void* a, const void* b)
{
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double user_op_seconds;

static double cpu_seconds(void)
{
  struct timespec now;
  syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID,
          &now); /* the host's CPU clock (a system call: bxisim's clock_gettime is the rank's simulated one) */
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static void computing_sum(void* in, void* inout, int* count, MPI_Datatype* type)
{
  (void)type;
  double end           = cpu_seconds() + user_op_seconds;
  volatile double sink = 0;
  while (cpu_seconds() < end)
    for (int i = 0; i < 1000; ++i)
      sink += i;
  for (int i = 0; i < *count; ++i)
    ((double*)inout)[i] += ((double*)in)[i];
}

static int reduce_local(const char* mode, double amount)
{
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int paused  = strcmp(mode, "paused_sum") == 0;
  long count  = strcmp(mode, "sum") == 0 || paused ? (long)amount : 1;
  double* in  = malloc(sizeof(double) * (size_t)count);
  double* out = malloc(sizeof(double) * (size_t)count);
  for (long i = 0; i < count; ++i)
    in[i] = out[i] = (double)i;
  MPI_Op op = MPI_SUM;
  if (strcmp(mode, "user_op") == 0) {
    user_op_seconds = amount * 1e-6;
    MPI_Op_create(computing_sum, 1, &op);
  }
  double start = MPI_Wtime();
  if (paused) {
    struct timespec pause = {0, 20000000};
    syscall(SYS_nanosleep, &pause, NULL);
  }
  MPI_Reduce_local(in, out, (int)count, MPI_DOUBLE, op);
  double took = MPI_Wtime() - start;
  if (out[count - 1] != 2.0 * (double)(count - 1))
    printf("bad_sum=1\n");
  printf("reduce_local rank=%d simulated_us=%.3f\n", rank, took * 1e6);
  if (op != MPI_SUM)
    MPI_Op_free(&op);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}

static int file_write(int mebibytes, const char* folder)
{
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  size_t bytes = (size_t)mebibytes << 20;
  char* data   = malloc(bytes);
  memset(data, rank + 1, bytes);
  char path[4096];
  snprintf(path, sizeof path, "%s/posix-%d", folder, rank);
  int descriptor = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
  double start   = MPI_Wtime();
  ssize_t wrote  = pwrite(descriptor, data, bytes, 0);
  double posix   = MPI_Wtime() - start;
  close(descriptor);
  snprintf(path, sizeof path, "%s/mpiio-%d", folder, rank);
  MPI_File file;
  MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
  MPI_Datatype mebibyte;
  MPI_Type_contiguous(1 << 20, MPI_BYTE, &mebibyte);
  MPI_Type_commit(&mebibyte);
  MPI_Status status;
  start = MPI_Wtime();
  MPI_File_write_at(file, 0, data, mebibytes, mebibyte, &status);
  double mpiio = MPI_Wtime() - start;
  MPI_File_close(&file);
  MPI_Type_free(&mebibyte);
  if (wrote != (ssize_t)bytes)
    printf("bad_pwrite=1\n");
  printf("file_write rank=%d pwrite_us=%.3f mpiio_us=%.3f\n", rank, posix * 1e6, mpiio * 1e6);
  free(data);
  MPI_Finalize();
  return 0;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  if (argc > 2 &&
      (strcmp(argv[1], "sum") == 0 || strcmp(argv[1], "paused_sum") == 0 || strcmp(argv[1], "user_op") == 0))
    return reduce_local(argv[1], atof(argv[2]));
  if (argc > 3 && strcmp(argv[1], "file_write") == 0)
    return file_write(atoi(argv[2]), argv[3]);
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
