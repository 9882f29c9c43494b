/* MPI micro-benchmarks in the style of the OSU micro-benchmarks (bxisim's own code).
 *
 *   mpi_bench <benchmark> [--min BYTES] [--max BYTES] [--iterations N] [--warmup N]
 *             [--large-iterations N] [--large-warmup N] [--window N]
 *
 * benchmarks: latency bw bibw multi-lat allreduce bcast alltoall barrier allgather reduce gather gatherv
 *             ialltoall
 * For each size (powers of two from --min to --max, default 1 B to 4 MiB): warm-up iterations, a
 * barrier, a timed loop, then one more exchange whose data is checked. Sizes above 64 KiB use the
 * "large" iteration counts. Rank 0 prints one CSV line per size:
 *   benchmark,ranks,bytes,avg_us,min_us,max_us,MB_per_s
 * (times are per iteration, averaged over the ranks taking part, min and max over them; MB/s only for
 * bw and bibw). A validation failure prints what differs and ends the job with MPI_Abort(..., 3).
 */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kLargeSize = 64 * 1024 };

struct options {
  const char* benchmark;
  long min_size, max_size;
  int iterations, warmup, large_iterations, large_warmup, window;
};

static int rank, size;

static void fail(const char* benchmark, long bytes, const char* what, long index, long got, long expected)
{
  fprintf(stderr, "VALIDATION FAILED: %s, %ld bytes, rank %d: %s[%ld] = %ld, expected %ld\n", benchmark, bytes, rank,
          what, index, got, expected);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

/* The byte a rank puts at position i of a message of `bytes` bytes. */
static unsigned char pattern(int from, long bytes, long i)
{
  return (unsigned char)((from * 31 + bytes * 7 + i * 13) & 0xff);
}

static void fill(unsigned char* buffer, int from, long bytes)
{
  for (long i = 0; i < bytes; ++i)
    buffer[i] = pattern(from, bytes, i);
}

static void check(const char* benchmark, const unsigned char* buffer, int from, long bytes, long offset)
{
  for (long i = 0; i < bytes; ++i)
    if (buffer[offset + i] != pattern(from, bytes, i))
      fail(benchmark, bytes, "byte", offset + i, buffer[offset + i], pattern(from, bytes, i));
}

/* Prints the line of one size: the per-iteration time of each participating rank, gathered. */
static void report(const struct options* o, long bytes, double seconds, int participates, double bandwidth)
{
  double mine[2] = {participates ? seconds : 0.0, participates ? 1.0 : 0.0};
  double sum[2];
  double min_time = participates ? seconds : 1e300, max_time = participates ? seconds : 0.0, lo, hi;
  MPI_Reduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&min_time, &lo, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&max_time, &hi, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("%s,%d,%ld,%.6f,%.6f,%.6f,%.3f\n", o->benchmark, size, bytes, sum[0] / sum[1] * 1e6, lo * 1e6, hi * 1e6,
           bandwidth);
    fflush(stdout);
  }
}

static void counts(const struct options* o, long bytes, int* iterations, int* warmup)
{
  *iterations = bytes > kLargeSize ? o->large_iterations : o->iterations;
  *warmup     = bytes > kLargeSize ? o->large_warmup : o->warmup;
}

/* latency (ranks 0 and 1) and multi-lat (rank i with i + size/2): ping-pong, one-way time. */
static void pingpong(const struct options* o, long bytes, unsigned char* send, unsigned char* receive, int multi)
{
  int iterations, warmup;
  counts(o, bytes, &iterations, &warmup);
  int half = size / 2, peer = -1, first = 0;
  if (multi) {
    if (rank < half)
      peer = rank + half, first = 1;
    else if (rank < 2 * half)
      peer = rank - half;
  } else if (rank < 2) {
    peer = 1 - rank, first = rank == 0;
  }
  fill(send, rank, bytes);
  double start = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < warmup + iterations + 1; ++i) {
    if (i == warmup)
      start = MPI_Wtime();
    if (peer < 0)
      continue;
    if (first) {
      MPI_Send(send, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      MPI_Recv(receive, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(receive, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(send, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
    }
    if (i == warmup + iterations - 1)
      start = MPI_Wtime() - start; /* the timed loop ends; the last exchange is the checked one */
  }
  if (peer >= 0)
    check(o->benchmark, receive, peer, bytes, 0);
  report(o, bytes, start / (2.0 * iterations), peer >= 0, 0);
}

/* bw (0 -> 1) and bibw (both ways): windows of non-blocking sends, acknowledged. */
static void bandwidth(const struct options* o, long bytes, unsigned char* send, unsigned char* receive, int both)
{
  int iterations, warmup;
  counts(o, bytes, &iterations, &warmup);
  int window            = o->window;
  MPI_Request* requests = malloc(sizeof(MPI_Request) * 2 * (size_t)window);
  char ack              = 0;
  int peer              = rank < 2 ? 1 - rank : -1;
  fill(send, rank, bytes);
  double elapsed = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < warmup + iterations; ++i) {
    if (i == warmup)
      elapsed = MPI_Wtime();
    if (peer < 0)
      continue;
    int n        = 0;
    int sends    = both || rank == 0;
    int receives = both || rank == 1;
    for (int w = 0; w < window && receives; ++w)
      MPI_Irecv(receive + (size_t)w * (size_t)bytes, (int)bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &requests[n++]);
    for (int w = 0; w < window && sends; ++w)
      MPI_Isend(send, (int)bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &requests[n++]);
    MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
    if (rank == 0)
      MPI_Recv(&ack, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
      MPI_Send(&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
  }
  elapsed = MPI_Wtime() - elapsed;
  if (peer >= 0 && (both || rank == 1))
    for (int w = 0; w < window; ++w)
      check(o->benchmark, receive, peer, bytes, (long)w * bytes);
  double moved = (double)bytes * window * iterations * (both ? 2 : 1);
  double rate  = 0;
  if (rank == 0)
    rate = moved / elapsed / 1e6;
  report(o, bytes, elapsed / iterations, peer >= 0, rate);
  free(requests);
}

/* Collectives: `bytes` is the size each rank contributes (OSU's convention). */
static void collective(const struct options* o, long bytes, unsigned char* send, unsigned char* receive)
{
  const char* b = o->benchmark;
  int iterations, warmup;
  counts(o, bytes, &iterations, &warmup);
  int count       = (int)bytes;
  int ints        = (int)(bytes / (long)sizeof(int));
  int* recvcounts = malloc(sizeof(int) * (size_t)size);
  int* displs     = malloc(sizeof(int) * (size_t)size);
  for (int r = 0; r < size; ++r)
    recvcounts[r] = count, displs[r] = r * count;
  double elapsed = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < warmup + iterations + 1; ++i) {
    if (i == warmup)
      elapsed = MPI_Wtime();
    if (i == warmup + iterations) { /* the checked exchange, on fresh data */
      elapsed = MPI_Wtime() - elapsed;
      if (!strcmp(b, "allreduce") || !strcmp(b, "reduce"))
        for (int k = 0; k < ints; ++k)
          ((int*)send)[k] = rank * 1000 + k;
      else if (!strcmp(b, "alltoall") || !strcmp(b, "ialltoall"))
        for (int r = 0; r < size; ++r)
          fill(send + (size_t)r * (size_t)count, rank * size + r, bytes);
      else
        fill(send, rank, bytes);
      if (!strcmp(b, "bcast") && rank == 0)
        memcpy(receive, send, (size_t)bytes);
    }
    if (!strcmp(b, "allreduce"))
      MPI_Allreduce(send, receive, ints, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(b, "reduce"))
      MPI_Reduce(send, receive, ints, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    else if (!strcmp(b, "bcast"))
      MPI_Bcast(receive, count, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(b, "alltoall"))
      MPI_Alltoall(send, count, MPI_BYTE, receive, count, MPI_BYTE, MPI_COMM_WORLD);
    else if (!strcmp(b, "ialltoall")) {
      MPI_Request request;
      MPI_Ialltoall(send, count, MPI_BYTE, receive, count, MPI_BYTE, MPI_COMM_WORLD, &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
    } else if (!strcmp(b, "allgather"))
      MPI_Allgather(send, count, MPI_BYTE, receive, count, MPI_BYTE, MPI_COMM_WORLD);
    else if (!strcmp(b, "gather"))
      MPI_Gather(send, count, MPI_BYTE, receive, count, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(b, "gatherv"))
      MPI_Gatherv(send, count, MPI_BYTE, receive, recvcounts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(b, "barrier"))
      MPI_Barrier(MPI_COMM_WORLD);
  }
  /* Checks */
  if (!strcmp(b, "allreduce") || (!strcmp(b, "reduce") && rank == 0)) {
    for (int k = 0; k < ints; ++k) {
      long expected = 1000L * size * (size - 1) / 2 + (long)size * k;
      if (((int*)receive)[k] != expected)
        fail(b, bytes, "sum", k, ((int*)receive)[k], expected);
    }
  } else if (!strcmp(b, "bcast")) {
    check(b, receive, 0, bytes, 0);
  } else if (!strcmp(b, "alltoall") || !strcmp(b, "ialltoall")) {
    for (int r = 0; r < size; ++r)
      check(b, receive, r * size + rank, bytes, (long)r * count);
  } else if (!strcmp(b, "allgather") || ((!strcmp(b, "gather") || !strcmp(b, "gatherv")) && rank == 0)) {
    for (int r = 0; r < size; ++r)
      check(b, receive, r, bytes, (long)r * count);
  }
  report(o, bytes, elapsed / iterations, 1, 0);
  free(recvcounts);
  free(displs);
}

static long number(const char* text, const char* option)
{
  char* end  = NULL;
  long value = strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 0) {
    if (rank == 0)
      fprintf(stderr, "mpi_bench: %s needs a non-negative number, got '%s'\n", option, text);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return value;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  struct options o = {NULL, 1, 4L << 20, 1000, 100, 100, 10, 64};
  for (int i = 1; i < argc; ++i) {
    if (i + 1 < argc && !strcmp(argv[i], "--min"))
      o.min_size = number(argv[++i], "--min");
    else if (i + 1 < argc && !strcmp(argv[i], "--max"))
      o.max_size = number(argv[++i], "--max");
    else if (i + 1 < argc && !strcmp(argv[i], "--iterations"))
      o.iterations = (int)number(argv[++i], "--iterations");
    else if (i + 1 < argc && !strcmp(argv[i], "--warmup"))
      o.warmup = (int)number(argv[++i], "--warmup");
    else if (i + 1 < argc && !strcmp(argv[i], "--large-iterations"))
      o.large_iterations = (int)number(argv[++i], "--large-iterations");
    else if (i + 1 < argc && !strcmp(argv[i], "--large-warmup"))
      o.large_warmup = (int)number(argv[++i], "--large-warmup");
    else if (i + 1 < argc && !strcmp(argv[i], "--window"))
      o.window = (int)number(argv[++i], "--window");
    else if (o.benchmark == NULL && argv[i][0] != '-')
      o.benchmark = argv[i];
    else {
      if (rank == 0)
        fprintf(stderr, "mpi_bench: unknown argument '%s'\n", argv[i]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  static const char* const known[] = {"latency", "bw",       "bibw",     "multi-lat", "allreduce",
                                      "bcast",   "alltoall", "barrier",  "allgather", "reduce",
                                      "gather",  "gatherv",  "ialltoall"};
  int found                        = 0;
  for (size_t k = 0; o.benchmark && k < sizeof known / sizeof known[0]; ++k)
    found |= !strcmp(o.benchmark, known[k]);
  int p2p =
      o.benchmark && (!strcmp(o.benchmark, "latency") || !strcmp(o.benchmark, "bw") || !strcmp(o.benchmark, "bibw"));
  if (!found || (p2p && size < 2) || (o.benchmark && !strcmp(o.benchmark, "multi-lat") && size % 2 != 0) ||
      o.iterations < 1 || o.large_iterations < 1 || o.window < 1) {
    if (rank == 0)
      fprintf(stderr, "usage: mpi_bench <latency|bw|bibw|multi-lat|allreduce|bcast|alltoall|barrier|allgather|"
                      "reduce|gather|gatherv|ialltoall> [--min B] [--max B] [--iterations N] [--warmup N] "
                      "[--large-iterations N] [--large-warmup N] [--window N]\n"
                      "(latency, bw and bibw need 2 ranks or more, multi-lat an even number)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int reduction          = !strcmp(o.benchmark, "allreduce") || !strcmp(o.benchmark, "reduce");
  size_t per_rank        = (size_t)o.max_size;
  size_t room            = per_rank * (size_t)(size > o.window ? size : o.window);
  unsigned char* send    = malloc(per_rank * (size_t)size + 1);
  unsigned char* receive = malloc(room + 1);
  if (rank == 0)
    printf("benchmark,ranks,bytes,avg_us,min_us,max_us,MB_per_s\n");
  if (!strcmp(o.benchmark, "barrier")) {
    collective(&o, 0, send, receive);
  } else {
    for (long bytes = o.min_size > 0 ? o.min_size : 1; bytes <= o.max_size; bytes *= 2) {
      if (reduction && bytes < (long)sizeof(int))
        continue;
      if (!strcmp(o.benchmark, "latency") || !strcmp(o.benchmark, "multi-lat"))
        pingpong(&o, bytes, send, receive, !strcmp(o.benchmark, "multi-lat"));
      else if (p2p)
        bandwidth(&o, bytes, send, receive, !strcmp(o.benchmark, "bibw"));
      else
        collective(&o, bytes, send, receive);
    }
  }
  free(send);
  free(receive);
  MPI_Finalize();
  return 0;
}
