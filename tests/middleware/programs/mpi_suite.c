/* MPI programs of the middleware's end-to-end tests, one mode per argument. Each rank prints
 * key=value words; the tests check them. A failed check prints "bad_<what>=1".
 *   p2p <bytes>   blocking and non-blocking ping-pong, any-source/any-tag, probe, cancel, truncation
 *   collectives   on every rank: bcast, reduce, allreduce (predefined and user op), gather(v), scatter,
 *                 allgather, alltoall(v), scan, exscan, reduce_scatter_block, ialltoall, iallreduce
 *   comms         split, dup, compare, groups (incl, translate_ranks with MPI_PROC_NULL, compare)
 *   datatypes     contiguous, vector, indexed, struct (and their envelopes)
 *   rma           put, get, accumulate with fence; lock/unlock; window flavour attribute
 *   pmpi          a profiling layer counting MPI_Send calls through PMPI_Send
 *   incast <bytes> every rank but 0 sends <bytes> to rank 0 at once (their flows share rank 0's link)
 *   window <bytes> OSU osu_bw's pattern: rank 0 sends 8 windows of 16 MPI_Isend of <bytes> to rank 1, each
 *                 window waited for, then a 4-byte reply; prints window_bandwidth=<bytes per second> (rank 0)
 *   ring <bytes> <sendrecv|nonblocking>  HPCC b_eff's ring step, 4 times: each rank sends <bytes> to both
 *                 neighbours and receives from both (two MPI_Sendrecv, or Irecv/Isend and MPI_Waitall);
 *                 prints ring_step=<seconds> (rank 0: the slowest rank's mean step)
 *   strided <n>   HPCC PTRANS's pattern: ranks 2k and 2k+1 exchange an n x n block of doubles out of 2n-wide
 *                 rows (MPI_Type_vector, sent by OpenMPI's ob1 as a pipeline of fragments) with
 *                 MPI_Sendrecv, 4 times (an even number of ranks); prints strided_exchange=<seconds> (rank 0:
 *                 the slowest rank's mean)
 *   alltoall <bytes>  MPI_Alltoall of <bytes> per pair, 8 times; prints alltoall_time=<seconds> (rank 0: the
 *                 slowest rank's mean)
 *   completions   requests to and from MPI_PROC_NULL (nonblocking and persistent) completed by every MPI_Wait* and
 *                 MPI_Test*, and MPI_Testany of eager sends already delivered, persistent ones too, or beside a
 *                 pending receive (an even number of ranks)
 *   wrap          MPI_SUM of 8- and 16-bit integers whose sums wrap around (modulo 2^8, 2^16), on 1 to 4096
 *                 elements (vectorised reductions take the longer ones)
 *   stdin         the ranks read the standard input, which is rank 0's (prints first_line=, raw=, next_word=)
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, bad;

#define CHECK(what, condition)                                                                                         \
  do {                                                                                                                 \
    if (!(condition)) {                                                                                                \
      printf("bad_%s=1\n", what);                                                                                      \
      bad = 1;                                                                                                         \
    }                                                                                                                  \
  } while (0)

static int sends_counted;
int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
  ++sends_counted;
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

static void p2p(long bytes)
{
  char* out = malloc((size_t)bytes);
  char* in  = malloc((size_t)bytes);
  for (long i = 0; i < bytes; ++i)
    out[i] = (char)(i * 7 + rank);
  MPI_Status status;
  int peer = rank ^ 1;
  if (peer < size) {
    double start = MPI_Wtime();
    if (rank % 2 == 0) {
      MPI_Send(out, (int)bytes, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
      MPI_Recv(in, (int)bytes, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &status);
    } else {
      MPI_Recv(in, (int)bytes, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &status);
      MPI_Send(out, (int)bytes, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
    }
    printf("pingpong_time=%.9f\n", MPI_Wtime() - start);
    int count = -1;
    MPI_Get_count(&status, MPI_BYTE, &count);
    CHECK("count", count == bytes);
    CHECK("source", status.MPI_SOURCE == peer && status.MPI_TAG == 5);
    for (long i = 0; i < bytes; ++i)
      if (in[i] != (char)(i * 7 + peer)) {
        CHECK("data", 0);
        break;
      }
    /* non-blocking both ways */
    MPI_Request requests[2];
    MPI_Irecv(in, (int)bytes, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(out, (int)bytes, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    CHECK("request_null", requests[0] == MPI_REQUEST_NULL && requests[1] == MPI_REQUEST_NULL);
    CHECK("nb_data", in[bytes - 1] == (char)((bytes - 1) * 7 + peer));
  }
  /* any source, any tag: everyone sends its rank to 0 with tag 100 + rank */
  if (rank == 0) {
    int seen = 0;
    for (int k = 1; k < size; ++k) {
      int value = -1;
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      int count = 0;
      MPI_Get_count(&status, MPI_INT, &count);
      CHECK("probe_count", count == 1);
      MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      CHECK("any_source", value == status.MPI_SOURCE && status.MPI_TAG == 100 + value);
      seen |= 1 << value;
    }
    CHECK("all_seen", seen == ((1 << size) - 2));
  } else {
    MPI_Send(&rank, 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
  }
  /* cancel of a posted receive that nobody matches */
  MPI_Request request;
  int dummy = 0, cancelled = 0;
  MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &request);
  MPI_Cancel(&request);
  MPI_Wait(&request, &status);
  MPI_Test_cancelled(&status, &cancelled);
  CHECK("cancelled", cancelled == 1);
  /* truncation: 4 ints into room for 2, errors returned */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (peer < size) {
    int four[4] = {1, 2, 3, 4}, two[2];
    int result  = MPI_SUCCESS;
    if (rank % 2 == 0)
      MPI_Send(four, 4, MPI_INT, peer, 7, MPI_COMM_WORLD);
    else
      result = MPI_Recv(two, 2, MPI_INT, peer, 7, MPI_COMM_WORLD, &status);
    int error_class = MPI_SUCCESS;
    MPI_Error_class(result, &error_class);
    printf("truncate_class=%d\n", rank % 2 == 0 ? MPI_ERR_TRUNCATE : error_class);
  }
  /* MPI_PROC_NULL: completes at once with its status */
  MPI_Recv(&dummy, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &status);
  CHECK("proc_null", status.MPI_SOURCE == MPI_PROC_NULL && status.MPI_TAG == MPI_ANY_TAG);
  free(out);
  free(in);
}

static void add_ints(void* in, void* inout, int* len, MPI_Datatype* type)
{
  CHECK("op_type", *type == MPI_INT);
  for (int i = 0; i < *len; ++i)
    ((int*)inout)[i] += ((int*)in)[i];
}

static void collectives(void)
{
  int value = rank + 1, result = 0, expected_sum = size * (size + 1) / 2;
  int root_value = rank == 0 ? 42 : 0;
  MPI_Bcast(&root_value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK("bcast", root_value == 42);
  MPI_Reduce(&value, &result, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  CHECK("reduce", rank != 0 || result == expected_sum);
  MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK("allreduce_max", result == size);
  /* sums whose bytes carry into each other (coll/portals4 reduced longs as 8-bit lanes: mpi_patches 0006) */
  long longs[2] = {1000L * (rank + 1), 255L + (1L << 40) * rank}, long_sums[2] = {0, 0};
  MPI_Allreduce(longs, long_sums, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK("allreduce_long",
        long_sums[0] == 1000L * expected_sum && long_sums[1] == 255L * size + (1L << 40) * (expected_sum - size));
  unsigned long unsigned_longs = 200UL + rank, unsigned_sum = 0;
  MPI_Allreduce(&unsigned_longs, &unsigned_sum, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK("allreduce_unsigned_long", unsigned_sum == 200UL * size + (unsigned long)(expected_sum - size));
  MPI_Op op;
  MPI_Op_create(add_ints, 1, &op);
  MPI_Allreduce(&value, &result, 1, MPI_INT, op, MPI_COMM_WORLD);
  CHECK("user_op", result == expected_sum);
  MPI_Op_free(&op);
  CHECK("op_null", op == MPI_OP_NULL);
  int* all    = calloc((size_t)(unsigned)size * 4, sizeof(int));
  int* counts = calloc((size_t)(unsigned)size, sizeof(int));
  int* displs = calloc((size_t)(unsigned)size, sizeof(int));
  for (int r = 0; r < size; ++r)
    counts[r] = 1, displs[r] = 2 * r;
  MPI_Gather(&value, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 0; rank == 0 && r < size; ++r)
    CHECK("gather", all[r] == r + 1);
  MPI_Gatherv(&value, 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 0; rank == 0 && r < size; ++r)
    CHECK("gatherv", all[2 * r] == r + 1);
  for (int r = 0; r < size; ++r)
    all[r] = 10 * r;
  MPI_Scatter(all, 1, MPI_INT, &result, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK("scatter", result == 10 * rank);
  MPI_Allgather(&value, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r)
    CHECK("allgather", all[r] == r + 1);
  int* send = calloc((size_t)(unsigned)size, sizeof(int));
  for (int r = 0; r < size; ++r)
    send[r] = rank * 100 + r;
  MPI_Alltoall(send, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r)
    CHECK("alltoall", all[r] == r * 100 + rank);
  for (int r = 0; r < size; ++r)
    displs[r] = r;
  MPI_Alltoallv(send, counts, displs, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r)
    CHECK("alltoallv", all[r] == r * 100 + rank);
  MPI_Request request;
  MPI_Ialltoall(send, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  for (int r = 0; r < size; ++r)
    CHECK("ialltoall", all[r] == r * 100 + rank);
  MPI_Iallreduce(&value, &result, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  CHECK("iallreduce", result == expected_sum);
  MPI_Scan(&value, &result, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK("scan", result == (rank + 1) * (rank + 2) / 2);
  MPI_Exscan(&value, &result, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK("exscan", rank == 0 || result == rank * (rank + 1) / 2);
  for (int r = 0; r < size; ++r)
    send[r] = r;
  MPI_Reduce_scatter_block(send, &result, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK("reduce_scatter_block", result == rank * size);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("collectives_time=%.9f\n", MPI_Wtime());
  free(all);
  free(counts);
  free(displs);
  free(send);
}

static void comms(void)
{
  MPI_Comm half, copy;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half); /* key -rank: reversed order */
  int half_rank, half_size, result;
  MPI_Comm_rank(half, &half_rank);
  MPI_Comm_size(half, &half_size);
  int members = (size - rank % 2 + 1) / 2;
  CHECK("split_size", half_size == members);
  CHECK("split_rank", half_rank == members - 1 - rank / 2);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
  int expected = 0;
  for (int r = rank % 2; r < size; r += 2)
    expected += r;
  CHECK("split_allreduce", sum == expected);
  MPI_Comm_dup(MPI_COMM_WORLD, &copy);
  MPI_Comm_compare(MPI_COMM_WORLD, copy, &result);
  CHECK("dup_congruent", result == MPI_CONGRUENT);
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result);
  CHECK("ident", result == MPI_IDENT);
  MPI_Comm none;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &none);
  CHECK("split_undefined", (rank == 0) == (none != MPI_COMM_NULL));
  if (none != MPI_COMM_NULL)
    MPI_Comm_free(&none);
  MPI_Group world, evens;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int even_ranks[64], count = 0;
  for (int r = 0; r < size && count < 64; r += 2)
    even_ranks[count++] = r;
  MPI_Group_incl(world, count, even_ranks, &evens);
  int in[3] = {0, MPI_PROC_NULL, 1}, out[3];
  MPI_Group_translate_ranks(world, 3, in, evens, out);
  CHECK("translate", out[0] == 0 && out[1] == MPI_PROC_NULL && out[2] == MPI_UNDEFINED);
  MPI_Group_compare(world, evens, &result);
  CHECK("group_unequal", result == MPI_UNEQUAL);
  int group_rank;
  MPI_Group_rank(evens, &group_rank);
  CHECK("group_rank", group_rank == (rank % 2 == 0 ? rank / 2 : MPI_UNDEFINED));
  MPI_Group_free(&evens);
  MPI_Group_free(&world);
  CHECK("group_null", world == MPI_GROUP_NULL);
  MPI_Comm_free(&copy);
  MPI_Comm_free(&half);
  CHECK("comm_null", half == MPI_COMM_NULL);
}

struct particle {
  int id;
  double x[3];
  char tag;
};

static void datatypes(void)
{
  int peer = rank ^ 1;
  if (peer >= size)
    return;
  MPI_Datatype contiguous, vector, indexed, structure;
  MPI_Type_contiguous(4, MPI_INT, &contiguous);
  MPI_Type_vector(3, 1, 4, MPI_DOUBLE, &vector); /* a column of a 3x4 matrix */
  int lengths[2] = {2, 1}, offsets[2] = {0, 5};
  MPI_Type_indexed(2, lengths, offsets, MPI_INT, &indexed);
  int block[3]          = {1, 3, 1};
  MPI_Aint places[3]    = {offsetof(struct particle, id), offsetof(struct particle, x), offsetof(struct particle, tag)};
  MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Type_create_struct(3, block, places, types, &structure);
  MPI_Datatype all[4] = {contiguous, vector, indexed, structure};
  for (int k = 0; k < 4; ++k)
    MPI_Type_commit(&all[k]);
  int n_int, n_addr, n_types, combiner;
  MPI_Type_get_envelope(structure, &n_int, &n_addr, &n_types, &combiner);
  CHECK("envelope", combiner == MPI_COMBINER_STRUCT && n_types == 3);
  MPI_Datatype got[3];
  int ints[8];
  MPI_Aint addrs[3];
  MPI_Type_get_contents(structure, 8, 3, 3, ints, addrs, got);
  CHECK("contents", got[0] == MPI_INT && got[1] == MPI_DOUBLE && got[2] == MPI_CHAR);
  MPI_Type_get_envelope(MPI_INT, &n_int, &n_addr, &n_types, &combiner);
  CHECK("named", combiner == MPI_COMBINER_NAMED);
  int size_of = 0;
  MPI_Type_size(vector, &size_of);
  CHECK("vector_size", size_of == 3 * (int)sizeof(double));

  int ivalues[8], ireceived[8]  = {0};
  double matrix[12], column[12] = {0};
  struct particle p = {rank, {1.5, 2.5, 3.5 + rank}, 'a'}, q;
  memset(&q, 0, sizeof q);
  for (int i = 0; i < 8; ++i)
    ivalues[i] = rank * 10 + i;
  for (int i = 0; i < 12; ++i)
    matrix[i] = rank + i * 0.5;
  MPI_Sendrecv(ivalues, 1, contiguous, peer, 1, ireceived, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < 4; ++i)
    CHECK("contiguous", ireceived[i] == peer * 10 + i);
  MPI_Sendrecv(matrix, 1, vector, peer, 2, column, 1, vector, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < 3; ++i)
    CHECK("vector", column[4 * i] == peer + 4 * i * 0.5);
  CHECK("vector_gap", column[1] == 0);
  MPI_Sendrecv(ivalues, 1, indexed, peer, 3, ireceived, 3, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK("indexed", ireceived[0] == peer * 10 && ireceived[1] == peer * 10 + 1 && ireceived[2] == peer * 10 + 5);
  MPI_Sendrecv(&p, 1, structure, peer, 4, &q, 1, structure, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK("struct", q.id == peer && q.x[2] == 3.5 + peer && q.tag == 'a');
  for (int k = 0; k < 4; ++k)
    MPI_Type_free(&all[k]);
  CHECK("type_null", all[0] == MPI_DATATYPE_NULL);
}

static void rma(void)
{
  int* memory = calloc((size_t)(unsigned)size, sizeof(int));
  MPI_Win win;
  MPI_Win_create(memory, (MPI_Aint)(size * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int* flavor = NULL;
  int flag    = 0;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  CHECK("flavor", flag && *flavor == MPI_WIN_FLAVOR_CREATE);
  int target = (rank + 1) % size, value = rank + 1;
  MPI_Win_fence(0, win);
  MPI_Put(&value, 1, MPI_INT, target, rank, 1, MPI_INT, win); /* slot rank of the next rank */
  MPI_Win_fence(0, win);
  CHECK("put", memory[(rank + size - 1) % size] == (rank + size - 1) % size + 1);
  int got = 0;
  MPI_Get(&got, 1, MPI_INT, target, rank, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  CHECK("get", got == value);
  MPI_Accumulate(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win); /* everyone adds into rank 0's slot 0 */
  MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
  if (rank == 0)
    CHECK("accumulate", memory[0] == size * (size + 1) / 2);
  MPI_Barrier(MPI_COMM_WORLD);
  int one = 1;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
  MPI_Accumulate(&one, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_unlock(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    int slot1 = 0;
    MPI_Get(&slot1, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    printf("lock_slot1=%d\n", slot1);
  }
  MPI_Win_free(&win);
  free(memory);
}

/* Sums that overflow: MPI's integer sum is C's, modulo 2^bits (OSU's validation relies on it). */
static void wrap(void)
{
  int wrong = 0;
  for (int count = 1; count <= 4096; count *= 4) {
    unsigned char* u8       = malloc((size_t)count);
    unsigned char* u8_sum   = malloc((size_t)count);
    signed char* s8         = malloc((size_t)count);
    signed char* s8_sum     = malloc((size_t)count);
    unsigned short* u16     = malloc(sizeof(unsigned short) * (size_t)count);
    unsigned short* u16_sum = malloc(sizeof(unsigned short) * (size_t)count);
    for (int i = 0; i < count; ++i) {
      u8[i]  = (unsigned char)(200 + i % 50);
      s8[i]  = (signed char)(100 + i % 20);
      u16[i] = (unsigned short)(60000 + i % 1000);
    }
    MPI_Allreduce(u8, u8_sum, count, MPI_UNSIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(s8, s8_sum, count, MPI_SIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(u16, u16_sum, count, MPI_UNSIGNED_SHORT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < count; ++i) {
      unsigned expected_u8  = ((unsigned)size * (200u + (unsigned)(i % 50))) % 256u;
      unsigned expected_u16 = ((unsigned)size * (60000u + (unsigned)(i % 1000))) % 65536u;
      int expected_s8       = (int)(((unsigned)size * (100u + (unsigned)(i % 20))) % 256u);
      if (expected_s8 > 127)
        expected_s8 -= 256;
      if (u8_sum[i] != expected_u8 || s8_sum[i] != expected_s8 || u16_sum[i] != expected_u16) {
        if (!wrong)
          printf("first_wrong_count=%d first_wrong_index=%d u8=%u/%u s8=%d/%d u16=%u/%u\n", count, i, u8_sum[i],
                 expected_u8, s8_sum[i], expected_s8, u16_sum[i], expected_u16);
        ++wrong;
      }
    }
    free(u8);
    free(u8_sum);
    free(s8);
    free(s8_sum);
    free(u16);
    free(u16_sum);
  }
  printf("wrong_sums=%d\n", wrong);
  CHECK("wrap", wrong == 0);
}

static void incast(long bytes)
{
  char* data = malloc((size_t)bytes * (size_t)(rank == 0 ? size : 1));
  if (rank == 0) {
    MPI_Request* requests = malloc(sizeof(MPI_Request) * (size_t)size);
    for (int peer = 1; peer < size; ++peer)
      MPI_Irecv(data + peer * bytes, (int)bytes, MPI_BYTE, peer, 9, MPI_COMM_WORLD, &requests[peer]);
    MPI_Waitall(size - 1, requests + 1, MPI_STATUSES_IGNORE);
    for (int peer = 1; peer < size; ++peer)
      CHECK("incast_data", data[peer * bytes] == (char)peer && data[peer * bytes + bytes - 1] == (char)(peer + 1));
    free(requests);
  } else {
    memset(data, rank, (size_t)bytes);
    data[bytes - 1] = (char)(rank + 1);
    MPI_Send(data, (int)bytes, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
  }
  free(data);
}

static void window(long bytes)
{
  enum { kWindow = 16, kWindows = 8 };
  char* data = malloc((size_t)bytes * kWindow);
  MPI_Request requests[kWindow];
  int reply = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int w = 0; w < kWindows && rank < 2; ++w) {
    for (int i = 0; i < kWindow; ++i) {
      if (rank == 0)
        MPI_Isend(data + i * bytes, (int)bytes, MPI_BYTE, 1, 100, MPI_COMM_WORLD, &requests[i]);
      else
        MPI_Irecv(data + i * bytes, (int)bytes, MPI_BYTE, 0, 100, MPI_COMM_WORLD, &requests[i]);
    }
    MPI_Waitall(kWindow, requests, MPI_STATUSES_IGNORE);
    if (rank == 0)
      MPI_Recv(&reply, 1, MPI_INT, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
      MPI_Send(&reply, 1, MPI_INT, 0, 101, MPI_COMM_WORLD);
  }
  if (rank == 0)
    printf("window_bandwidth=%.1f\n", (double)bytes * kWindow * kWindows / (MPI_Wtime() - start));
  free(data);
}

static void strided(int n)
{
  enum { kRepetitions = 4 };
  double* out = malloc(sizeof(double) * 2 * (size_t)n * (size_t)n);
  double* in  = calloc(2 * (size_t)n * (size_t)n, sizeof(double));
  for (long i = 0; i < 2L * n * n; ++i)
    out[i] = rank * 1e9 + (double)i;
  MPI_Datatype block;
  MPI_Type_vector(n, n, 2 * n, MPI_DOUBLE, &block);
  MPI_Type_commit(&block);
  int peer = rank ^ 1;
  CHECK("strided_even_ranks", size % 2 == 0);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int k = 0; k < kRepetitions && peer < size; ++k)
    MPI_Sendrecv(out, 1, block, peer, 7, in, 1, block, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  double step = (MPI_Wtime() - start) / kRepetitions, slowest = 0;
  long last = (long)(n - 1) * 2 * n + n - 1; // the block's last element; the one after it is not sent
  CHECK("strided_data", in[0] == peer * 1e9 && in[last] == peer * 1e9 + (double)last && in[last + 1] == 0);
  MPI_Reduce(&step, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("strided_exchange=%.9f\n", slowest);
  MPI_Type_free(&block);
  free(out);
  free(in);
}

static void alltoall(long bytes)
{
  enum { kRepetitions = 8 };
  char* out = malloc((size_t)bytes * (size_t)size);
  char* in  = malloc((size_t)bytes * (size_t)size);
  for (long i = 0; i < bytes * size; ++i)
    out[i] = (char)(rank + i / bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int k = 0; k < kRepetitions; ++k)
    MPI_Alltoall(out, (int)bytes, MPI_BYTE, in, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
  double mean = (MPI_Wtime() - start) / kRepetitions, slowest = 0;
  for (int peer = 0; peer < size; ++peer)
    CHECK("alltoall_data",
          in[peer * bytes] == (char)(peer + rank) && in[peer * bytes + bytes - 1] == (char)(peer + rank));
  MPI_Reduce(&mean, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("alltoall_time=%.9f\n", slowest);
  free(out);
  free(in);
}

static void ring(long bytes, const char* how)
{
  int left = (rank + size - 1) % size, right = (rank + 1) % size, blocking = !strcmp(how, "sendrecv");
  char *to_left = malloc((size_t)bytes), *to_right = malloc((size_t)bytes);
  char *from_left = malloc((size_t)bytes), *from_right = malloc((size_t)bytes);
  for (long i = 0; i < bytes; ++i) {
    to_left[i]  = (char)(i + rank);
    to_right[i] = (char)(i * 3 + rank);
  }
  const int steps = 4;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int step = 0; step < steps; ++step) {
    if (blocking) {
      MPI_Sendrecv(to_right, (int)bytes, MPI_BYTE, right, 0, from_left, (int)bytes, MPI_BYTE, left, 0, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      MPI_Sendrecv(to_left, (int)bytes, MPI_BYTE, left, 1, from_right, (int)bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    } else {
      MPI_Request requests[4];
      MPI_Irecv(from_left, (int)bytes, MPI_BYTE, left, 0, MPI_COMM_WORLD, &requests[0]);
      MPI_Irecv(from_right, (int)bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD, &requests[1]);
      MPI_Isend(to_right, (int)bytes, MPI_BYTE, right, 0, MPI_COMM_WORLD, &requests[2]);
      MPI_Isend(to_left, (int)bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, &requests[3]);
      MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    }
  }
  double step = (MPI_Wtime() - start) / steps, slowest = 0;
  MPI_Reduce(&step, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  for (long i = 0; i < bytes; i += 4093)
    CHECK("ring_data", from_left[i] == (char)(i * 3 + left) && from_right[i] == (char)(i + right));
  if (rank == 0)
    printf("ring_step=%.9f\n", slowest);
  free(to_left);
  free(to_right);
  free(from_left);
  free(from_right);
}

/* A send to and a receive from MPI_PROC_NULL: active requests that complete at once (MPI-3.1 3.11). */
static void start_proc_null(MPI_Request* requests, int* buffer)
{
  MPI_Isend(&buffer[0], 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &requests[0]);
  MPI_Irecv(&buffer[1], 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &requests[1]);
}

static int from_proc_null(const MPI_Status* status)
{
  int count = -1;
  MPI_Get_count(status, MPI_INT, &count);
  return status->MPI_SOURCE == MPI_PROC_NULL && status->MPI_TAG == MPI_ANY_TAG && count == 0;
}

/* A ring exchange whose requests are completed by tests only (MPI_Test, Testall, Testany, Testsome in turn), as
 * halo codes poll: `iterations` rounds, each checked. */
static void tested_ring(int iterations)
{
  int left = (rank + size - 1) % size, right = (rank + 1) % size, wrong = 0, tested = 0;
  for (int i = 0; i < iterations; ++i) {
    int out = rank * 100000 + i, in = -1, flag = 0, index, count, indices[2];
    MPI_Request r[2];
    MPI_Irecv(&in, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&out, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[1]);
    switch (i % 4) {
    case 0:
      for (int done = 0; done < 2;)
        for (int k = 0; k < 2; ++k)
          if (r[k] != MPI_REQUEST_NULL && MPI_Test(&r[k], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag)
            ++done;
      break;
    case 1:
      while (MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS && !flag)
        ;
      break;
    case 2:
      for (int done = 0; done < 2;)
        if (MPI_Testany(2, r, &index, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag && index != MPI_UNDEFINED)
          ++done;
      break;
    default:
      for (int done = 0; done < 2;)
        if (MPI_Testsome(2, r, &count, indices, MPI_STATUSES_IGNORE) == MPI_SUCCESS && count != MPI_UNDEFINED)
          done += count;
    }
    tested += 2;
    wrong += in != left * 100000 + i;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK("tested_ring", wrong == 0);
  printf("tested=%d\n", tested);
}

static void completions(void)
{
  MPI_Request r[4];
  MPI_Status st[4];
  int buffer[4] = {0}, index = -7, flag = 0, out = -7, indices[4];
  start_proc_null(r, buffer);
  MPI_Wait(&r[1], &st[0]);
  CHECK("proc_null_wait", from_proc_null(&st[0]) && r[1] == MPI_REQUEST_NULL);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  start_proc_null(r, buffer);
  MPI_Waitall(2, r, st);
  CHECK("proc_null_waitall", from_proc_null(&st[1]) && r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL);
  start_proc_null(r, buffer);
  MPI_Waitany(2, r, &index, &st[0]);
  CHECK("proc_null_waitany", index == 0 && r[0] == MPI_REQUEST_NULL);
  MPI_Waitany(2, r, &index, &st[0]);
  CHECK("proc_null_waitany_receive", index == 1 && from_proc_null(&st[0]));
  start_proc_null(r, buffer);
  MPI_Waitsome(2, r, &out, indices, st);
  CHECK("proc_null_waitsome", out == 2);
  start_proc_null(r, buffer);
  MPI_Test(&r[1], &flag, &st[0]);
  CHECK("proc_null_test", flag && from_proc_null(&st[0]));
  MPI_Testall(2, r, &flag, st);
  CHECK("proc_null_testall", flag && r[0] == MPI_REQUEST_NULL);
  start_proc_null(r, buffer);
  index = -7, flag = 0;
  MPI_Testany(2, r, &index, &flag, &st[0]);
  CHECK("proc_null_testany", index == 0 && flag);
  MPI_Testsome(2, r, &out, indices, st);
  CHECK("proc_null_testsome", out == 1 && indices[0] == 1 && from_proc_null(&st[0]));
  start_proc_null(r, buffer);
  MPI_Request_get_status(r[1], &flag, &st[0]);
  CHECK("proc_null_get_status", flag && from_proc_null(&st[0]) && r[1] != MPI_REQUEST_NULL);
  MPI_Cancel(&r[1]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  /* persistent: started, completed by MPI_Waitall, MPI_Waitany and MPI_Testsome, freed */
  MPI_Send_init(&buffer[0], 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[2]);
  MPI_Recv_init(&buffer[1], 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[3]);
  MPI_Startall(2, &r[2]);
  MPI_Waitall(2, &r[2], &st[2]);
  CHECK("proc_null_persistent", from_proc_null(&st[3]) && r[2] != MPI_REQUEST_NULL && r[3] != MPI_REQUEST_NULL);
  MPI_Waitany(2, &r[2], &index, &st[0]);
  CHECK("proc_null_persistent_inactive", index == MPI_UNDEFINED);
  MPI_Start(&r[3]);
  MPI_Waitany(2, &r[2], &index, &st[0]);
  CHECK("proc_null_persistent_waitany", index == 1 && from_proc_null(&st[0]));
  MPI_Startall(2, &r[2]);
  out = -7;
  MPI_Testsome(2, &r[2], &out, indices, st);
  CHECK("proc_null_persistent_testsome", out == 2);
  MPI_Request_free(&r[2]);
  MPI_Request_free(&r[3]);
  /* MPI_Testany of sends already delivered, and the loop of the Graph 500 reference code (aml.c): a request slot
   * freed by MPI_Testany is used again at once */
  int partner = rank ^ 1, received[2];
  if (rank % 2 == 0) {
    MPI_Isend(&buffer[0], 1, MPI_INT, partner, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&buffer[1], 1, MPI_INT, partner, 1, MPI_COMM_WORLD, &r[1]);
  } else {
    MPI_Recv(&received[0], 1, MPI_INT, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&received[1], 1, MPI_INT, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank % 2 == 0) {
    index = -7, flag = 0;
    MPI_Testany(2, r, &index, &flag, MPI_STATUS_IGNORE);
    CHECK("delivered_testany", flag && (index == 0 || index == 1));
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    for (int slot = 0; slot < 4; ++slot)
      MPI_Isend(NULL, 0, MPI_CHAR, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[slot]);
    for (int k = 0; k < 20; ++k) {
      for (flag = 0; !flag;)
        MPI_Testany(4, r, &index, &flag, MPI_STATUS_IGNORE);
      CHECK("slot_reuse_testany", index >= 0 && index < 4);
      if (index < 0 || index >= 4)
        break;
      MPI_Isend(&buffer[index], 1, MPI_INT, partner, 100 + k, MPI_COMM_WORLD, &r[index]);
    }
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  } else
    for (int k = 0; k < 20; ++k)
      MPI_Recv(&received[0], 1, MPI_INT, partner, 100 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* MPI_Testany of a persistent send already delivered, beside one never started and one that ran: the delivered one
   * is the answer, then none is active */
  MPI_Request persistent[3];
  MPI_Send_init(&buffer[0], 1, MPI_INT, partner, 200, MPI_COMM_WORLD, &persistent[0]);
  MPI_Send_init(&buffer[1], 1, MPI_INT, partner, 201, MPI_COMM_WORLD, &persistent[1]);
  MPI_Send_init(&buffer[2], 1, MPI_INT, partner, 202, MPI_COMM_WORLD, &persistent[2]);
  MPI_Start(&persistent[2]);
  MPI_Wait(&persistent[2], MPI_STATUS_IGNORE);
  MPI_Recv(&received[0], 1, MPI_INT, partner, 202, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int round = 0; round < 2; ++round) {
    MPI_Start(&persistent[1]);
    MPI_Recv(&received[1], 1, MPI_INT, partner, 201, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    index = -7, flag = 0;
    for (int polls = 0; !flag && polls < 1000; ++polls)
      MPI_Testany(3, persistent, &index, &flag, MPI_STATUS_IGNORE);
    CHECK("persistent_delivered_testany", flag && index == 1 && persistent[1] != MPI_REQUEST_NULL);
    index = -7, flag = 0;
    MPI_Testany(3, persistent, &index, &flag, MPI_STATUS_IGNORE);
    CHECK("persistent_inactive_testany", flag && index == MPI_UNDEFINED);
  }
  for (int i = 0; i < 3; ++i)
    MPI_Request_free(&persistent[i]);
  /* MPI_Testany over an eager send and a receive its peer answers only after a message that follows the send's
   * completion: the send is the answer (SMPI's passed over it while the receive was pending, for ever) */
  if (rank % 2 == 0) {
    MPI_Isend(&buffer[0], 1, MPI_INT, partner, 300, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&received[0], 1, MPI_INT, partner, 301, MPI_COMM_WORLD, &r[1]);
    index = -7, flag = 0;
    for (int polls = 0; !flag && polls < 1000; ++polls)
      MPI_Testany(2, r, &index, &flag, MPI_STATUS_IGNORE);
    CHECK("eager_send_beside_pending_receive_testany", flag && index == 0);
    MPI_Send(&buffer[1], 1, MPI_INT, partner, 302, MPI_COMM_WORLD);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  } else {
    MPI_Recv(&received[0], 1, MPI_INT, partner, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&received[1], 1, MPI_INT, partner, 302, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&buffer[2], 1, MPI_INT, partner, 301, MPI_COMM_WORLD);
  }
}

/* The standard input is rank 0's: every rank reads a line with fgets, the last rank first, then one with read() of
 * descriptor 0 (the others' reads in between), then rank 0 a third with std input's scanf; each prints what it got. */
static void standard_input(void)
{
  char line[64] = "eof";
  for (int turn = size - 1; turn >= 0; --turn) {
    if (rank == turn && fgets(line, sizeof line, stdin) == NULL)
      strcpy(line, "eof");
    MPI_Barrier(MPI_COMM_WORLD);
  }
  line[strcspn(line, "\n")] = '\0';
  char raw[8]               = "eof";
  ssize_t got               = rank == 0 ? 0 : read(0, raw, sizeof raw - 1);
  if (got > 0)
    raw[got] = '\0';
  MPI_Barrier(MPI_COMM_WORLD);
  char word[64] = "eof";
  if (rank == 0 && scanf("%63s", word) != 1)
    strcpy(word, "eof");
  printf("first_line=%s raw=%s", line, raw);
  if (rank == 0)
    printf(" next_word=%s", word);
  printf("\n");
}

int main(int argc, char** argv)
{
  int provided = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "";
  printf("rank=%d size=%d provided_ok=%d\n", rank, size, provided == MPI_THREAD_FUNNELED);
  if (!strcmp(mode, "p2p"))
    p2p(argc > 2 ? atol(argv[2]) : 8);
  else if (!strcmp(mode, "collectives"))
    collectives();
  else if (!strcmp(mode, "comms"))
    comms();
  else if (!strcmp(mode, "datatypes"))
    datatypes();
  else if (!strcmp(mode, "rma"))
    rma();
  else if (!strcmp(mode, "clock_wait")) {
    /* waits for simulated time to pass by reading the clock, as BLACS's tester does */
    double start = MPI_Wtime(), wait = argc > 2 ? atof(argv[2]) : 1e-3;
    long reads = 0;
    while (MPI_Wtime() - start < wait)
      ++reads;
    printf("clock_reads=%ld\n", reads);
  } else if (!strcmp(mode, "incast"))
    incast(argc > 2 ? atol(argv[2]) : 1 << 20);
  else if (!strcmp(mode, "tested_ring"))
    tested_ring(argc > 2 ? atoi(argv[2]) : 1000);
  else if (!strcmp(mode, "completions"))
    completions();
  else if (!strcmp(mode, "wrap"))
    wrap();
  else if (!strcmp(mode, "stdin"))
    standard_input();
  else if (!strcmp(mode, "window"))
    window(argc > 2 ? atol(argv[2]) : 32768);
  else if (!strcmp(mode, "alltoall"))
    alltoall(argc > 2 ? atol(argv[2]) : 32768);
  else if (!strcmp(mode, "strided"))
    strided(argc > 2 ? atoi(argv[2]) : 500);
  else if (!strcmp(mode, "ring"))
    ring(argc > 2 ? atol(argv[2]) : 1 << 20, argc > 3 ? argv[3] : "sendrecv");
  else if (!strcmp(mode, "pmpi")) {
    int token = rank;
    if (rank + 1 < size)
      MPI_Send(&token, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);
    if (rank > 0)
      MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("sends_counted=%d\n", sends_counted);
  } else {
    printf("unknown mode '%s'\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int finalized = 0;
  MPI_Finalize();
  MPI_Finalized(&finalized);
  printf("ok=%d finalized=%d\n", !bad, finalized);
  return 0;
}
