/* Switching MPI back ends at region boundaries (bxisim/region.h). Four phases, each in a region:
 *   "first" (SMPI), "second" (MESSAGE), "third" (SMPI), "fourth" (MESSAGE); --region re-maps them.
 * Each phase starts at a known simulated time (k * 0.1 s, all ranks), exchanges on MPI_COMM_WORLD
 * with predefined datatypes and operations (blocking and non-blocking point-to-point, collectives),
 * checks what it received; then again from k * 0.1 + 0.05 s, when it prints how long the exchange
 * took (REPEAT times) on this rank: phase<k>=<seconds> (the first exchange warms the level up).
 * Mode "pending": an Isend/Irecv pair is started in "first" and completed (Waitall) in "second".
 * Mode "nested": "outer" (MESSAGE) holds "inner" (SMPI); the exchange runs in both.
 * Mode "derived": a vector datatype, a user operation (checking the datatype handle it is given),
 * a communicator split by parity and a duplicate of MPI_COMM_WORLD are made in "first" (SMPI) and
 * used in "second" (MESSAGE); a datatype made in "second" is used in "third" (SMPI).
 * Mode "cross": messages sent in "first" (SMPI: a small Send, a large Isend) are probed and received
 * in "second" (MESSAGE: Probe, Iprobe, Recv, Sendrecv), where the sender completes its Isend.
 * Mode "orphan_send": rank 1 posts an Irecv from rank 0 in "first" (SMPI); rank 0 sends in "second":
 *   the message is forwarded to the receive (checked).
 * Mode "forward": on a duplicate of MPI_COMM_WORLD and on a split of it (both made in "first"), each
 *   rank posts receives in "first" and its neighbour sends to them in "second" (forwarded to the
 *   back end of the receive); a message sent in "first" on the duplicate is received in "second";
 *   the receive is tested in a loop (as Quicksilver does), posted again in "second" and matched
 *   there by a second message. --region re-maps the levels (the same checks either way round).
 * Mode "orphan_wait": rank 1 posts an Irecv from rank 0 in "first" and waits for it in "second".
 * Mode "attributes": in "first" (SMPI), a communicator keyval (copied on dup, with a delete
 *   function), a datatype keyval, attributes on MPI_COMM_WORLD, a duplicate and a datatype,
 *   MPI_ERRORS_RETURN on MPI_COMM_WORLD and a user error handler on the duplicate, an info with two
 *   keys; in "second" (MESSAGE) and "third" (SMPI): the predefined attributes (MPI_TAG_UB,
 *   MPI_UNIVERSE_SIZE, MPI_WTIME_IS_GLOBAL), the program's attributes, a duplicate made there (its
 *   copied attribute), errors returned (not fatal) and the user handler called, the info's entries;
 *   attributes deleted and objects freed (delete functions called).
 * Mode "wildcard": rank 0 sends tag 5 in "first" (SMPI); rank 1 then posts four Irecvs there: from 0
 *   with MPI_ANY_TAG (takes that message), from 0 with MPI_ANY_TAG, from MPI_ANY_SOURCE with tag 8, from
 *   MPI_ANY_SOURCE with MPI_ANY_TAG; in "second" (MESSAGE) rank 0 (tags 6 and 9) and rank 2 (tag 8)
 *   send, at known times: each message is forwarded to the first pending receive it matches; a
 *   fifth message (rank 2, tag 9) finds none and is received at MESSAGE. Statuses checked (source,
 *   tag, count); rank 1 prints when its Waitall returned (wild_done).
 * Mode "order": rank 0 sends tags 9 then 5 in "first" (SMPI), where rank 1 posts an Irecv for tag 7;
 *   in "second" (MESSAGE) rank 0 sends tags 5, 7 (forwarded to that Irecv) and 9; rank 1 receives
 *   from rank 0 with MPI_ANY_TAG, tag 5, MPI_ANY_TAG, MPI_ANY_TAG: MPI's order for one sender (9, 5
 *   from "first", then 5 and 9 from "second"); prints how long its first receive took (order_recv).
 * Mode "persistent": MPI_Send_init/MPI_Recv_init (ring, tag 30) made in "first" (SMPI), started and
 *   completed there; the receive started again in "first" and the send in "second" (MESSAGE): the
 *   message is forwarded to the receive (pers1: its duration); then both started and completed at
 *   MESSAGE (pers2); tests and waits on inactive requests; freed in "second".
 * Mode "mprobe": rank 0 sends tags 40 and 41 and rank 2 tag 42 to rank 1 in "first" (SMPI); in
 *   "second" (MESSAGE) rank 0 sends tag 43 at 0.1 s; from 0.2 s rank 1 probes (MPI_Probe, MPI_Iprobe)
 *   and takes with matched probes (MPI_Mprobe + MPI_Mrecv, MPI_Improbe + MPI_Imrecv) the messages of
 *   "first" where they wait, then the one of "second": tags 40, 42, 41, 43 (statuses and data
 *   checked); prints how long the probes and receives of the messages of "first" took (mprobe_time).
 * Mode "topology": in "first" (SMPI), a periodic 2x2 Cartesian communicator, a sub-communicator of
 *   its first dimension, a ring graph (MPI_Graph_create) and a ring distributed graph
 *   (MPI_Dist_graph_create_adjacent); topology queries; an Irecv on each from the neighbour. In
 *   "second" (MESSAGE): the same queries answer the same; sends at 0.1 s to the neighbour on each are
 *   forwarded to those receives (topo_fwd: how long until all arrived); an allreduce on the sub-communicator. With
 * argument "openmpi" ("second" at an OpenMPI level), a neighbour allgather on the graph and an intercommunicator
 *   between the even and odd ranks (point-to-point on it) and its merge, used again in "third"
 *   (SMPI) by an allreduce. In "third": the queries again; everything freed.
 * Mode "inter_at_smpi": an intercommunicator made in "second" (MESSAGE) used in "third" (SMPI): the
 *   rank ends with a message naming it.
 * Mode "window": a window made in "first" (SMPI) with MPI_ERRORS_RETURN; in "second" (MESSAGE) fences
 *   and a Put on it (its calls go to SMPI: win_time, their duration), an erroneous Put returning an
 *   error, a window error handler made there set on it (called with bxisim's window handle); a file
 *   opened there (OpenMPI's MPI-IO) with MPI_ERRORS_RETURN; in "third" (SMPI) writes and reads of the
 *   file (they go to OpenMPI), an erroneous write returning an error, a file error handler made
 *   there set on it and called; everything freed. With argument "nofile": no file (SMPI has no MPI-IO
 *   on bxisim's diskless hosts).
 * Mode "file_at_smpi": MPI_File_open in "first" (SMPI) fails with MPI_ERR_UNSUPPORTED_OPERATION and a
 *   message (SMPI's MPI-IO needs disks, which bxisim's hosts do not have).
 * Mode "split_free": in "first" (SMPI), "second" (MESSAGE) and "third" (SMPI), at every rank's own
 *   pace (rank 0 first): the split made before the boundary used (Allreduce, checked) and freed,
 *   MPI_Comm_split of MPI_COMM_WORLD by parity with the ranks' own order as keys, an MPI_Comm_dup freed
 *   at once, right before the boundary; rank 0 prints when it left "first" (split_end). These hung in SMPI when a rank
 * waiting at a boundary was suspended (SimGrid froze its eager sends: runtime/launch/Regions.cpp). Mode
 * "abort_at_boundary": rank 0 calls MPI_Abort(MPI_COMM_WORLD, 43) at 1 ms, in "first" (SMPI) or, with argument
 * "message", in "second" (MESSAGE), while the other ranks wait at the boundary that ends the region.
 * Mode "cancelled": in "first" (SMPI) every rank posts a receive from its left neighbour (tag 9) and
 *   cancels it (waited for: cancelled, checked); in "second" (MESSAGE) it posts the same receive again
 *   and the neighbour sends: the message goes to the new receive, not to the cancelled one (as Quicksilver
 *   does each cycle; a run with one cycle at another level hung). With argument "unwaited", the
 *   cancelled receive is never completed. */
#include <bxisim/region.h>
#include <mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define COUNT 32768 /* 128 KiB messages: above every eager limit */
#define REPEAT 5

static int rank, size, ok = 1;

static void check(int condition, const char* what, int phase)
{
  if (!condition) {
    printf("rank=%d bad_%s phase=%d\n", rank, what, phase);
    ok = 0;
  }
}

static void sleep_until(double when)
{
  double now = MPI_Wtime();
  if (now < when) {
    long long ns       = llround((when - now) * 1e9);
    struct timespec ts = {(time_t)(ns / 1000000000LL), (long)(ns % 1000000000LL)};
    nanosleep(&ts, NULL);
  }
}

static int* make_buffer(int tag)
{
  int* buffer = malloc(COUNT * sizeof(int));
  for (int i = 0; i < COUNT; ++i)
    buffer[i] = tag * 100000 + i;
  return buffer;
}

static void exchange(int phase)
{
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  /* blocking: ring Sendrecv */
  int* out = make_buffer(rank + 10 * phase);
  int* in  = calloc(COUNT, sizeof(int));
  MPI_Sendrecv(out, COUNT, MPI_INT, right, phase, in, COUNT, MPI_INT, left, phase, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(in[7] == (left + 10 * phase) * 100000 + 7, "sendrecv", phase);
  /* blocking Send/Recv, rank 0 to the last rank */
  if (rank == 0)
    MPI_Send(out, 100, MPI_INT, size - 1, 100 + phase, MPI_COMM_WORLD);
  if (rank == size - 1) {
    MPI_Status status;
    int count = 0;
    MPI_Recv(in, COUNT, MPI_INT, MPI_ANY_SOURCE, 100 + phase, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_INT, &count);
    check(status.MPI_SOURCE == 0 && status.MPI_TAG == 100 + phase && count == 100 && in[99] == 10 * phase * 100000 + 99,
          "recv", phase);
  }
  /* non-blocking: both ways around the ring */
  MPI_Request requests[4];
  int* in2 = calloc(COUNT, sizeof(int));
  MPI_Irecv(in, COUNT, MPI_INT, left, 200 + phase, MPI_COMM_WORLD, &requests[0]);
  MPI_Irecv(in2, COUNT, MPI_INT, right, 300 + phase, MPI_COMM_WORLD, &requests[1]);
  MPI_Isend(out, COUNT, MPI_INT, right, 200 + phase, MPI_COMM_WORLD, &requests[2]);
  MPI_Isend(out, COUNT, MPI_INT, left, 300 + phase, MPI_COMM_WORLD, &requests[3]);
  MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
  check(in[COUNT - 1] == (left + 10 * phase) * 100000 + COUNT - 1 && in2[5] == (right + 10 * phase) * 100000 + 5,
        "isend", phase);
  /* collectives */
  long value = rank + phase, sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  check(sum == (long)size * phase + (long)size * (size - 1) / 2, "allreduce", phase);
  int root = 0, word = rank == root ? 1000 + phase : 0; /* the same exchange in every phase: comparable times */
  MPI_Bcast(&word, 1, MPI_INT, root, MPI_COMM_WORLD);
  check(word == 1000 + phase, "bcast", phase);
  int* all_out = malloc(size * sizeof(int));
  int* all_in  = malloc(size * sizeof(int));
  for (int i = 0; i < size; ++i)
    all_out[i] = rank * 1000 + i;
  MPI_Request request;
  MPI_Ialltoall(all_out, 1, MPI_INT, all_in, 1, MPI_INT, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  for (int i = 0; i < size; ++i)
    check(all_in[i] == i * 1000 + rank, "alltoall", phase);
  MPI_Barrier(MPI_COMM_WORLD);
  free(out);
  free(in);
  free(in2);
  free(all_out);
  free(all_in);
}

static MPI_Datatype pair_type = MPI_DATATYPE_NULL;
static int op_calls = 0, op_bad_type = 0;

/* Sums pairs of ints (pair_type) or ints (MPI_INT), element-wise. */
static void pair_sum(void* in, void* inout, int* length, MPI_Datatype* type)
{
  ++op_calls;
  int n = *length;
  if (*type == pair_type)
    n *= 2;
  else if (*type != MPI_INT)
    op_bad_type = 1;
  for (int i = 0; i < n; ++i)
    ((int*)inout)[i] += ((int*)in)[i];
}

static int deleted = 0, handled = 0;

static int copy_plus_one(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag)
{
  (void)comm;
  (void)keyval;
  (void)extra;
  *(void**)out = (char*)in + 1;
  *flag        = 1;
  return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void* value, void* extra)
{
  (void)comm;
  (void)keyval;
  (void)value;
  *(int*)extra += 1;
  return MPI_SUCCESS;
}

static void note_error(MPI_Comm* comm, int* code, ...)
{
  (void)comm;
  (void)code;
  ++handled;
}

static int win_handled = 0, file_handled = 0;
static MPI_Win the_win   = MPI_WIN_NULL;
static MPI_File the_file = MPI_FILE_NULL;

static void note_win_error(MPI_Win* win, int* code, ...)
{
  (void)code;
  win_handled += *win == the_win ? 1 : 100;
}

static void note_file_error(MPI_File* file, int* code, ...)
{
  (void)code;
  file_handled += *file == the_file ? 1 : 100;
}

static void check_attributes(int phase, MPI_Comm twin, int keyval, int type_keyval, MPI_Datatype pair, MPI_Info info,
                             MPI_Errhandler mine)
{
  int flag = 0, *tag_ub = NULL, *universe = NULL, *global = NULL;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
  check(flag && *tag_ub >= 32767, "tag_ub", phase);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag);
  check(!flag || *universe >= size, "universe", phase);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &flag);
  check(!flag || *global == 0 || *global == 1, "wtime_is_global", phase);
  void* value = NULL;
  MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &value, &flag);
  check(flag && value == (void*)&rank, "world_attr", phase);
  MPI_Comm_get_attr(twin, keyval, &value, &flag);
  check(flag && value == (char*)&rank + 1, "dup_attr", phase);
  MPI_Type_get_attr(pair, type_keyval, &value, &flag);
  check(flag && value == (void*)&size, "type_attr", phase);
  MPI_Comm again;
  MPI_Comm_dup(twin, &again); /* copied again, at this level */
  MPI_Comm_get_attr(again, keyval, &value, &flag);
  check(flag && value == (char*)&rank + 2, "dup_again_attr", phase);
  MPI_Comm_free(&again); /* right after its creation (it hung before boundaries were a semaphore) */
  MPI_Errhandler handler;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler);
  check(handler == MPI_ERRORS_RETURN, "errhandler_get", phase);
  int word = 0, code = MPI_Send(&word, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD); /* an invalid rank */
  check(code != MPI_SUCCESS, "errors_return", phase);
  int before = handled;
  MPI_Send(&word, 1, MPI_INT, size + 5, 0, twin);
  check(handled == before + 1, "user_errhandler", phase);
  MPI_Comm_get_errhandler(twin, &handler);
  check(handler == mine, "user_errhandler_get", phase);
  char got[32] = "";
  int nkeys    = 0;
  MPI_Info_get(info, "color", sizeof got - 1, got, &flag);
  check(flag && !strcmp(got, "blue"), "info_get", phase);
  MPI_Info_get_nkeys(info, &nkeys);
  check(nkeys == 2, "info_nkeys", phase);
}

static void attributes(void)
{
  int keyval, type_keyval;
  MPI_Comm twin;
  MPI_Datatype pair;
  MPI_Info info;
  MPI_Errhandler mine;
  bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
  MPI_Comm_create_keyval(copy_plus_one, count_delete, &keyval, &deleted);
  MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &type_keyval, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &rank);
  MPI_Comm_dup(MPI_COMM_WORLD, &twin); /* its attribute: &rank + 1 */
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Type_set_attr(pair, type_keyval, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_create_errhandler(note_error, &mine);
  MPI_Comm_set_errhandler(twin, mine);
  MPI_Info_create(&info);
  MPI_Info_set(info, "color", "red");
  MPI_Info_set(info, "shape", "round");
  MPI_Info_set(info, "color", "blue");
  check_attributes(1, twin, keyval, type_keyval, pair, info, mine);
  bxisim_region_end("first");
  bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
  check_attributes(2, twin, keyval, type_keyval, pair, info, mine);
  bxisim_region_end("second");
  bxisim_region_begin("third", BXISIM_LEVEL_SMPI);
  check_attributes(3, twin, keyval, type_keyval, pair, info, mine);
  int before = deleted, flag = 1;
  void* value = NULL;
  MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
  MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &value, &flag);
  check(!flag && deleted == before + 1, "delete_attr", 3);
  MPI_Comm_free(&twin); /* its attribute's delete function runs */
  check(deleted == before + 2, "free_deletes", 3);
  MPI_Comm_free_keyval(&keyval);
  MPI_Type_free_keyval(&type_keyval);
  check(keyval == MPI_KEYVAL_INVALID, "free_keyval", 3);
  MPI_Type_free(&pair);
  MPI_Info_free(&info);
  MPI_Errhandler_free(&mine);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  bxisim_region_end("third");
}

static void derived(void)
{
  MPI_Datatype column, triple;
  MPI_Op op;
  MPI_Comm half, twin;
  int matrix[4][4], received[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      matrix[i][j] = rank * 100 + i * 10 + j;
  bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
  MPI_Type_vector(4, 1, 4, MPI_INT, &column); /* one column of a 4x4 matrix */
  MPI_Type_commit(&column);
  MPI_Type_contiguous(2, MPI_INT, &pair_type);
  MPI_Type_commit(&pair_type);
  MPI_Op_create(pair_sum, 1, &op);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half); /* reversed order in each half */
  MPI_Comm_dup(MPI_COMM_WORLD, &twin);
  /* the other constructors of datatypes, over the matrix's 16 ints in a row */
  MPI_Datatype constructed[4], block;
  int grid[2] = {4, 4}, blocked[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
  int default_dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, processes[2] = {2, 2};
  /* this rank's 2x2 block of the 4x4 matrix, as a 2x2 grid of 4 ranks owns it */
  MPI_Type_create_darray(4, rank % 4, 2, grid, blocked, default_dargs, processes, MPI_ORDER_C, MPI_INT, &block);
  MPI_Type_commit(&block);
  int sizes[1] = {16}, subsizes[1] = {3}, starts[1] = {5}, lengths[2] = {1, 2}, places[2] = {1, 9};
  MPI_Aint bytes[2] = {0, 3 * sizeof(int)}, block_bytes[2] = {2 * sizeof(int), 12 * sizeof(int)};
  MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &constructed[0]);
  MPI_Type_create_hindexed(2, lengths, bytes, MPI_INT, &constructed[1]);
  MPI_Type_create_indexed_block(2, 2, places, MPI_INT, &constructed[2]);
  MPI_Type_create_hindexed_block(2, 1, block_bytes, MPI_INT, &constructed[3]);
  for (int t = 0; t < 4; ++t)
    MPI_Type_commit(&constructed[t]);
  bxisim_region_end("first");

  bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Sendrecv(&matrix[0][2], 1, column, right, 1, received, 4, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < 4; ++i)
    check(received[i] == left * 100 + i * 10 + 2, "vector", 2);
  int pairs[2] = {rank, 1}, sums[2] = {0, 0};
  MPI_Allreduce(pairs, sums, 1, pair_type, op, MPI_COMM_WORLD);
  check(sums[0] == size * (size - 1) / 2 && sums[1] == size, "user_op", 2);
  int half_rank = -1, half_size = 0, one = 1, count = 0;
  MPI_Comm_rank(half, &half_rank);
  MPI_Comm_size(half, &half_size);
  check(half_size == (size + 1 - rank % 2) / 2, "split_size", 2);
  check(half_rank == half_size - 1 - rank / 2, "split_order", 2);
  MPI_Allreduce(&one, &count, 1, MPI_INT, op, half);
  check(count == half_size, "split_allreduce", 2);
  int word = rank == 0 ? 77 : 0;
  MPI_Bcast(&word, 1, MPI_INT, 0, twin);
  check(word == 77, "dup_bcast", 2);
  MPI_Type_contiguous(3, MPI_INT, &triple);
  MPI_Type_commit(&triple);
  const int picked[4][4] = {{5, 6, 7, -1}, {0, 3, 4, -1}, {1, 2, 9, 10}, {2, 12, -1, -1}}; /* ints of each type */
  for (int t = 0; t < 4; ++t) {
    int values[4] = {-1, -1, -1, -1}, n = picked[t][3] >= 0 ? 4 : picked[t][2] >= 0 ? 3 : 2;
    MPI_Sendrecv(&matrix[0][0], 1, constructed[t], right, 4, values, n, MPI_INT, left, 4, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    for (int i = 0; i < n; ++i)
      check(values[i] == left * 100 + picked[t][i] / 4 * 10 + picked[t][i] % 4, "constructors", 2);
    MPI_Type_free(&constructed[t]);
  }
  int corner[4] = {-1, -1, -1, -1}, row = left % 4 / 2 * 2, col = left % 4 % 2 * 2;
  MPI_Sendrecv(&matrix[0][0], 1, block, right, 5, corner, 4, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < 4; ++i)
    check(corner[i] == left * 100 + (row + i / 2) * 10 + col + i % 2, "darray", 2);
  MPI_Type_free(&block);
  bxisim_region_end("second");

  bxisim_region_begin("third", BXISIM_LEVEL_SMPI);
  int three[3] = {rank, rank + 1, rank + 2}, got[3] = {0, 0, 0};
  MPI_Sendrecv(three, 1, triple, right, 3, got, 1, triple, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(got[0] == left && got[2] == left + 2, "triple", 3);
  count = 0;
  MPI_Allreduce(&one, &count, 1, MPI_INT, op, half); /* the split communicator, back at SMPI */
  check(count == half_size, "split_back", 3);
  MPI_Comm_free(&half);
  MPI_Comm_free(&twin);
  MPI_Type_free(&triple);
  MPI_Type_free(&column);
  MPI_Type_free(&pair_type);
  MPI_Op_free(&op);
  bxisim_region_end("third");
  check(op_calls > 0 && !op_bad_type, "op_datatype", 3);
}

static void phase(const char* name, int level, int k)
{
  bxisim_region_begin(name, level);
  sleep_until(0.1 * k);
  exchange(k); /* warms the level up (OpenMPI's first messages to each peer cost more) */
  sleep_until(0.1 * k + 0.05);
  double start = MPI_Wtime();
  for (int i = 0; i < REPEAT; ++i)
    exchange(k);
  printf("rank=%d phase%d=%.9f\n", rank, k, MPI_Wtime() - start);
  bxisim_region_end(name);
}

int main(int argc, char** argv)
{
  const char* mode = argc > 1 ? argv[1] : "world";
  int provided     = -1;
  if (!strcmp(mode, "thread_level"))
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  else
    MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!strcmp(mode, "world")) {
    phase("first", BXISIM_LEVEL_SMPI, 1);
    phase("second", BXISIM_LEVEL_MESSAGE, 2);
    phase("third", BXISIM_LEVEL_SMPI, 3);
    phase("fourth", BXISIM_LEVEL_MESSAGE, 4);
  } else if (!strcmp(mode, "pending")) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int* out = make_buffer(rank);
    int* in  = calloc(COUNT, sizeof(int));
    MPI_Request requests[2];
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    MPI_Irecv(in, COUNT, MPI_INT, left, 7, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(out, COUNT, MPI_INT, right, 7, MPI_COMM_WORLD, &requests[1]);
    bxisim_region_end("first");
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    exchange(2); /* traffic of the new level while the old level's requests are pending */
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    check(in[COUNT - 1] == left * 100000 + COUNT - 1, "pending", 2);
    bxisim_region_end("second");
    free(out);
    free(in);
  } else if (!strcmp(mode, "cross") && size >= 2) {
    int small[4] = {1, 2, 3, 4}, got[4] = {0, 0, 0, 0};
    int* big            = make_buffer(5);
    int* big_in         = calloc(COUNT, sizeof(int));
    MPI_Request request = MPI_REQUEST_NULL;
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    if (rank == 0) {
      MPI_Send(small, 4, MPI_INT, 1, 11, MPI_COMM_WORLD);
      MPI_Isend(big, COUNT, MPI_INT, 1, 12, MPI_COMM_WORLD, &request);
    }
    bxisim_region_end("first");
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    if (rank == 1) {
      MPI_Status status;
      int flag = 0, probed = 0;
      MPI_Probe(0, 11, MPI_COMM_WORLD, &status); /* finds it where it waits */
      MPI_Get_count(&status, MPI_INT, &probed);
      MPI_Iprobe(MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      check(probed == 4 && flag, "cross_probe", 2);
      MPI_Recv(got, 4, MPI_INT, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &status);
      check(status.MPI_SOURCE == 0 && got[3] == 4, "cross_small", 2);
      int token = 42, back = 0;
      MPI_Sendrecv(&token, 1, MPI_INT, 0, 13, big_in, COUNT, MPI_INT, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      check(big_in[COUNT - 1] == 5 * 100000 + COUNT - 1, "cross_big", 2);
      (void)back;
    }
    if (rank == 0) {
      int token = 0;
      MPI_Recv(&token, 1, MPI_INT, 1, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* sent at this level */
      check(token == 42, "cross_token", 2);
      MPI_Wait(&request, MPI_STATUS_IGNORE); /* the SMPI Isend, completed at SMPI */
    }
    exchange(2); /* this level's own traffic still flows */
    bxisim_region_end("second");
    free(big);
    free(big_in);
  } else if (!strncmp(mode, "orphan", 6) && size >= 2) {
    int word            = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    if (rank == 1)
      MPI_Irecv(&word, 1, MPI_INT, 0, 21, MPI_COMM_WORLD, &request);
    bxisim_region_end("first");
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    if (rank == 0 && !strcmp(mode, "orphan_send")) {
      word = 9;
      MPI_Send(&word, 1, MPI_INT, 1, 21, MPI_COMM_WORLD);
    }
    if (rank == 1) {
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      check(word == 9, "forwarded", 2);
    }
    bxisim_region_end("second");
  } else if (!strcmp(mode, "forward")) {
    MPI_Comm twin, half;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int half_rank = 0, half_size = 0;
    int from_left = -1, from_half = -1, early = -1, again = -1, done = 0, tests = 0;
    MPI_Request receive, half_receive, early_send;
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    MPI_Comm_dup(MPI_COMM_WORLD, &twin);
    /* Reversed order in each half ("split_free" uses the ranks' own order). */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
    MPI_Comm_rank(half, &half_rank);
    MPI_Comm_size(half, &half_size);
    int half_right = (half_rank + 1) % half_size, half_left = (half_rank + half_size - 1) % half_size;
    MPI_Irecv(&from_left, 1, MPI_INT, left, 5, twin, &receive);
    MPI_Irecv(&from_half, 1, MPI_INT, half_left, 6, half, &half_receive);
    int mine = 1000 + rank;
    MPI_Isend(&mine, 1, MPI_INT, right, 7, twin, &early_send); /* received in "second" */
    bxisim_region_end("first");
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    int word = 100 + rank, half_word = 200 + rank, second = 300 + rank;
    MPI_Send(&word, 1, MPI_INT, right, 5, twin);           /* to the receive posted in "first" */
    MPI_Send(&half_word, 1, MPI_INT, half_right, 6, half); /* the same on the split communicator */
    MPI_Recv(&early, 1, MPI_INT, left, 7, twin, MPI_STATUS_IGNORE);
    while (!done) { /* tested in a loop, then posted again at this level */
      MPI_Test(&receive, &done, MPI_STATUS_IGNORE);
      ++tests;
    }
    check(from_left == 100 + left && early == 1000 + left && tests > 0, "forward_twin", 2);
    MPI_Irecv(&again, 1, MPI_INT, left, 5, twin, &receive);
    MPI_Send(&second, 1, MPI_INT, right, 5, twin);
    MPI_Wait(&receive, MPI_STATUS_IGNORE);
    MPI_Wait(&half_receive, MPI_STATUS_IGNORE);
    MPI_Wait(&early_send, MPI_STATUS_IGNORE);
    check(again == 300 + left, "forward_again", 2);
    check(from_half == 200 + ((half_size - 1 - half_left) * 2 + rank % 2), "forward_half", 2);
    MPI_Comm_free(&twin);
    MPI_Comm_free(&half);
    bxisim_region_end("second");
  } else if (!strcmp(mode, "wildcard") && size >= 3) {
    int a[4] = {0}, b[4] = {0}, c[4] = {0}, d[4] = {0}, e[4] = {0};
    MPI_Request requests[4];
    MPI_Status statuses[4], status;
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    if (rank == 0) {
      int m0 = 500;
      MPI_Send(&m0, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    }
    if (rank == 1) {
      sleep_until(0.01);
      MPI_Irecv(a, 4, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &requests[0]);
      MPI_Irecv(b, 4, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &requests[1]);
      MPI_Irecv(c, 4, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &requests[2]);
      MPI_Irecv(d, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &requests[3]);
    }
    bxisim_region_end("first");
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    if (rank == 0) {
      int m1[2] = {600, 601}, m3[3] = {900, 901, 902};
      sleep_until(0.1);
      MPI_Send(m1, 2, MPI_INT, 1, 6, MPI_COMM_WORLD); /* to the second receive (from 0, any tag) */
      sleep_until(0.12);
      MPI_Send(m3, 3, MPI_INT, 1, 9, MPI_COMM_WORLD); /* to the fourth (any source, any tag) */
    }
    if (rank == 2) {
      int m2 = 802, m4[4] = {904, 905, 906, 907};
      sleep_until(0.11);
      MPI_Send(&m2, 1, MPI_INT, 1, 8, MPI_COMM_WORLD); /* to the third (any source, tag 8) */
      sleep_until(0.13);
      MPI_Send(m4, 4, MPI_INT, 1, 9, MPI_COMM_WORLD); /* no receive left at SMPI: received at MESSAGE */
    }
    if (rank == 1) {
      int counts[4] = {0, 0, 0, 0}, count = 0;
      MPI_Waitall(4, requests, statuses);
      printf("rank=%d wild_done=%.9f\n", rank, MPI_Wtime());
      for (int i = 0; i < 4; ++i)
        MPI_Get_count(&statuses[i], MPI_INT, &counts[i]);
      check(statuses[0].MPI_SOURCE == 0 && statuses[0].MPI_TAG == 5 && counts[0] == 1 && a[0] == 500, "wild_first", 2);
      check(statuses[1].MPI_SOURCE == 0 && statuses[1].MPI_TAG == 6 && counts[1] == 2 && b[1] == 601, "wild_any_tag",
            2);
      check(statuses[2].MPI_SOURCE == 2 && statuses[2].MPI_TAG == 8 && counts[2] == 1 && c[0] == 802, "wild_any_source",
            2);
      check(statuses[3].MPI_SOURCE == 0 && statuses[3].MPI_TAG == 9 && counts[3] == 3 && d[2] == 902, "wild_any", 2);
      MPI_Recv(e, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      MPI_Get_count(&status, MPI_INT, &count);
      check(status.MPI_SOURCE == 2 && status.MPI_TAG == 9 && count == 4 && e[3] == 907, "wild_here", 2);
    }
    bxisim_region_end("second");
  } else if (!strcmp(mode, "order")) {
    int got = 0, early = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    if (rank == 0) {
      int nine = 9, five = 5;
      MPI_Send(&nine, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
      MPI_Send(&five, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    }
    if (rank == 1)
      MPI_Irecv(&early, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &request);
    bxisim_region_end("first");
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    if (rank == 0) {
      int values[3] = {55, 7, 99}, tags[3] = {5, 7, 9};
      sleep_until(0.1);
      for (int i = 0; i < 3; ++i)
        MPI_Send(&values[i], 1, MPI_INT, 1, tags[i], MPI_COMM_WORLD);
    }
    if (rank == 1) {
      MPI_Status status;
      sleep_until(0.2);
      double start = MPI_Wtime();
      MPI_Recv(&got, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status); /* the earliest: tag 9 from "first" */
      printf("rank=%d order_recv=%.9f\n", rank, MPI_Wtime() - start);
      check(got == 9 && status.MPI_TAG == 9, "order_first", 2);
      MPI_Recv(&got, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &status); /* tag 5 from "first", not from "second" */
      check(got == 5, "order_tag", 2);
      MPI_Recv(&got, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      check(got == 55 && status.MPI_TAG == 5, "order_second", 2);
      MPI_Wait(&request, &status); /* tag 7, forwarded to the receive posted in "first" */
      check(early == 7 && status.MPI_TAG == 7 && status.MPI_SOURCE == 0, "order_forwarded", 2);
      MPI_Recv(&got, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      check(got == 99 && status.MPI_TAG == 9, "order_last", 2);
    }
    bxisim_region_end("second");
  } else if (!strcmp(mode, "persistent")) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int* out = make_buffer(rank);
    int* in  = calloc(COUNT, sizeof(int));
    MPI_Request pair[2];
    MPI_Status statuses[2];
    int flag = 0;
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    MPI_Send_init(out, COUNT, MPI_INT, right, 30, MPI_COMM_WORLD, &pair[0]);
    MPI_Recv_init(in, COUNT, MPI_INT, left, 30, MPI_COMM_WORLD, &pair[1]);
    MPI_Startall(2, pair);
    MPI_Waitall(2, pair, statuses);
    check(in[COUNT - 1] == left * 100000 + COUNT - 1 && statuses[1].MPI_SOURCE == left, "persistent_first", 1);
    MPI_Test(&pair[1], &flag, MPI_STATUS_IGNORE); /* inactive: completes at once */
    check(flag && pair[1] != MPI_REQUEST_NULL, "persistent_inactive", 1);
    MPI_Start(&pair[1]); /* completed in "second" */
    bxisim_region_end("first");
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    for (int i = 0; i < COUNT; ++i)
      out[i] += 1;
    sleep_until(0.1);
    double start = MPI_Wtime();
    MPI_Start(&pair[0]); /* forwarded to the receive started in "first" */
    MPI_Wait(&pair[1], &statuses[1]);
    MPI_Wait(&pair[0], MPI_STATUS_IGNORE);
    printf("rank=%d pers1=%.9f\n", rank, MPI_Wtime() - start);
    check(in[COUNT - 1] == left * 100000 + COUNT && statuses[1].MPI_TAG == 30, "persistent_forwarded", 2);
    for (int i = 0; i < COUNT; ++i)
      out[i] += 1;
    sleep_until(0.15);
    start = MPI_Wtime();
    MPI_Startall(2, pair);
    MPI_Waitall(2, pair, MPI_STATUSES_IGNORE);
    printf("rank=%d pers2=%.9f\n", rank, MPI_Wtime() - start);
    check(in[COUNT - 1] == left * 100000 + COUNT + 1, "persistent_second", 2);
    MPI_Wait(&pair[0], &statuses[0]); /* inactive */
    check(statuses[0].MPI_SOURCE == MPI_ANY_SOURCE && statuses[0].MPI_TAG == MPI_ANY_TAG, "persistent_empty", 2);
    MPI_Request_free(&pair[0]);
    MPI_Request_free(&pair[1]);
    check(pair[0] == MPI_REQUEST_NULL && pair[1] == MPI_REQUEST_NULL, "persistent_free", 2);
    bxisim_region_end("second");
    free(out);
    free(in);
  } else if (!strcmp(mode, "mprobe") && size >= 3) {
    int data[4] = {0, 0, 0, 0};
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    if (rank == 0) {
      int one = 1, two[2] = {2, 2};
      MPI_Send(&one, 1, MPI_INT, 1, 40, MPI_COMM_WORLD);
      MPI_Send(two, 2, MPI_INT, 1, 41, MPI_COMM_WORLD);
    }
    if (rank == 2) {
      int three[3] = {3, 3, 3};
      MPI_Send(three, 3, MPI_INT, 1, 42, MPI_COMM_WORLD);
    }
    bxisim_region_end("first");
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    if (rank == 0) {
      int four[4] = {4, 4, 4, 4};
      sleep_until(0.1);
      MPI_Send(four, 4, MPI_INT, 1, 43, MPI_COMM_WORLD);
    }
    if (rank == 1) {
      MPI_Status status;
      MPI_Message message = MPI_MESSAGE_NULL;
      MPI_Request request = MPI_REQUEST_NULL;
      int count = 0, flag = 0;
      sleep_until(0.2);
      double start = MPI_Wtime();
      MPI_Probe(0, 40, MPI_COMM_WORLD, &status);
      MPI_Get_count(&status, MPI_INT, &count);
      check(count == 1 && status.MPI_SOURCE == 0, "probe", 2);
      while (!flag) /* OpenMPI may need a few calls to see it arrived */
        MPI_Iprobe(2, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
      check(status.MPI_TAG == 42, "iprobe", 2);
      MPI_Mprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &message, &status); /* the earliest from rank 0 */
      check(status.MPI_TAG == 40 && message != MPI_MESSAGE_NULL, "mprobe_first", 2);
      MPI_Mrecv(data, 4, MPI_INT, &message, &status);
      MPI_Get_count(&status, MPI_INT, &count);
      check(data[0] == 1 && count == 1 && message == MPI_MESSAGE_NULL, "mrecv_first", 2);
      flag = 0;
      while (!flag)
        MPI_Improbe(MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &flag, &message, &status);
      check(status.MPI_SOURCE == 2, "improbe", 2);
      MPI_Imrecv(data, 4, MPI_INT, &message, &request);
      MPI_Wait(&request, &status);
      MPI_Get_count(&status, MPI_INT, &count);
      check(data[2] == 3 && count == 3 && status.MPI_TAG == 42, "imrecv", 2);
      MPI_Mprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &message, &status); /* 41, from "first": before 43 */
      check(status.MPI_TAG == 41, "mprobe_order", 2);
      MPI_Mrecv(data, 4, MPI_INT, &message, MPI_STATUS_IGNORE);
      check(data[1] == 2, "mrecv_order", 2);
      printf("rank=%d mprobe_time=%.9f\n", rank, MPI_Wtime() - start);
      MPI_Mprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &message, &status); /* 43, at this level */
      MPI_Mrecv(data, 4, MPI_INT, &message, &status);
      MPI_Get_count(&status, MPI_INT, &count);
      check(status.MPI_TAG == 43 && count == 4 && data[3] == 4, "mprobe_here", 2);
      MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &message, &status);
      check(message == MPI_MESSAGE_NO_PROC && status.MPI_SOURCE == MPI_PROC_NULL, "mprobe_proc_null", 2);
      MPI_Mrecv(data, 4, MPI_INT, &message, &status);
    }
    bxisim_region_end("second");
  } else if (!strcmp(mode, "topology") && size == 4) {
    int openmpi_second = argc > 2 && !strcmp(argv[2], "openmpi"); /* "second" runs at an OpenMPI level */
    int dims[2] = {2, 2}, periods[2] = {1, 0}, keep[2] = {1, 0};
    int index[4] = {2, 4, 6, 8}, edges[8];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < 4; ++i) { /* a ring: node i's neighbours are i-1 and i+1 */
      edges[2 * i]     = (i + 3) % 4;
      edges[2 * i + 1] = (i + 1) % 4;
    }
    MPI_Comm cart, row, graph, dist, half = MPI_COMM_NULL, inter = MPI_COMM_NULL, merged = MPI_COMM_NULL;
    MPI_Request requests[3];
    int got[3]           = {-1, -1, -1}, answers[3][8];
    const char* names[3] = {"first", "second", "third"};
    int levels[3]        = {BXISIM_LEVEL_SMPI, BXISIM_LEVEL_MESSAGE, BXISIM_LEVEL_SMPI};
    for (int k = 0; k < 3; ++k) {
      bxisim_region_begin(names[k], levels[k]);
      if (k == 0) {
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
        MPI_Cart_sub(cart, keep, &row);
        MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &graph);
        int sources[1] = {left}, destinations[1] = {right};
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, sources, MPI_UNWEIGHTED, 1, destinations, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &dist);
      }
      /* the queries, the same at every level */
      int* a   = answers[k];
      int kind = 0, coords[2] = {-1, -1}, source = -1, dest = -1, nnodes = 0, nedges = 0, neighbours[2] = {-1, -1};
      int in = 0, out = 0, weighted = -1, from[1] = {-1}, to[1] = {-1}, sub_size = 0;
      MPI_Topo_test(cart, &kind);
      a[0] = kind == MPI_CART;
      MPI_Topo_test(graph, &kind);
      a[0] += 2 * (kind == MPI_GRAPH);
      MPI_Topo_test(dist, &kind);
      a[0] += 4 * (kind == MPI_DIST_GRAPH);
      MPI_Topo_test(MPI_COMM_WORLD, &kind);
      a[0] += 8 * (kind == MPI_UNDEFINED);
      MPI_Cart_coords(cart, rank, 2, coords);
      MPI_Cart_shift(cart, 0, 1, &source, &dest);
      a[1] = coords[0] * 10 + coords[1];
      a[2] = source * 10 + dest;
      MPI_Graphdims_get(graph, &nnodes, &nedges);
      MPI_Graph_neighbors(graph, rank, 2, neighbours);
      a[3] = nnodes * 10 + nedges;
      a[4] = neighbours[0] * 10 + neighbours[1];
      MPI_Dist_graph_neighbors_count(dist, &in, &out, &weighted);
      MPI_Dist_graph_neighbors(dist, 1, from, MPI_UNWEIGHTED, 1, to, MPI_UNWEIGHTED);
      a[5] = in * 100 + out * 10 + weighted;
      a[6] = from[0] * 10 + to[0];
      MPI_Comm_size(row, &sub_size);
      a[7] = sub_size;
      check(a[0] == 15 && a[1] == (rank / 2) * 10 + rank % 2 && a[2] == ((rank + 2) % 4) * 11 && a[3] == 48 &&
                a[4] == left * 10 + right && a[5] == 110 && a[6] == left * 10 + right && a[7] == 2,
            "topology_queries", k + 1);
      if (k > 0)
        check(!memcmp(answers[k], answers[0], sizeof answers[0]), "topology_same", k + 1);
      if (k == 0) { /* receives posted here, from the neighbour of each topology */
        MPI_Irecv(&got[0], 1, MPI_INT, source, 60, cart, &requests[0]);
        MPI_Irecv(&got[1], 1, MPI_INT, neighbours[0], 61, graph, &requests[1]);
        MPI_Irecv(&got[2], 1, MPI_INT, from[0], 62, dist, &requests[2]);
      }
      if (k == 1) {
        int word[3] = {600 + rank, 610 + rank, 620 + rank}, gathered[2] = {-1, -1}, sum = 0;
        sleep_until(0.1);
        double start = MPI_Wtime();
        MPI_Send(&word[0], 1, MPI_INT, dest, 60, cart); /* forwarded to the receives of "first" */
        MPI_Send(&word[1], 1, MPI_INT, neighbours[1], 61, graph);
        MPI_Send(&word[2], 1, MPI_INT, to[0], 62, dist);
        MPI_Waitall(3, requests, MPI_STATUSES_IGNORE);
        printf("rank=%d topo_fwd=%.9f\n", rank, MPI_Wtime() - start);
        check(got[0] == 600 + source && got[1] == 610 + left && got[2] == 620 + left, "topology_forwarded", 2);
        MPI_Neighbor_allgather(&rank, 1, MPI_INT, gathered, 1, MPI_INT, graph); /* at smpi: bxisim's */
        check(gathered[0] == left && gathered[1] == right, "neighbor_allgather", 2);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row);
        check(sum == 2 * (rank % 2) + 2, "cart_sub_allreduce", 2);
        if (openmpi_second) {
          int remote = -1, merged_rank = -1, total = 0;
          MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
          MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 70, &inter);
          MPI_Sendrecv(&rank, 1, MPI_INT, rank / 2, 71, &remote, 1, MPI_INT, rank / 2, 71, inter, MPI_STATUS_IGNORE);
          check(remote == (rank ^ 1), "intercomm_sendrecv", 2);
          MPI_Intercomm_merge(inter, rank % 2, &merged); /* evens first */
          MPI_Comm_rank(merged, &merged_rank);
          MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, merged);
          check(merged_rank == (rank % 2) * 2 + rank / 2 && total == 6, "intercomm_merge", 2);
          MPI_Comm_free(&inter);
          MPI_Comm_free(&half);
        }
      }
      if (k == 2 && openmpi_second) {
        int total = 0, merged_rank = -1;
        MPI_Comm_rank(merged, &merged_rank);
        MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, merged);
        check(merged_rank == (rank % 2) * 2 + rank / 2 && total == 6, "merge_at_smpi", 3);
        MPI_Comm_free(&merged);
      }
      if (k == 2) {
        MPI_Comm_free(&row);
        MPI_Comm_free(&cart);
        MPI_Comm_free(&graph);
        MPI_Comm_free(&dist);
      }
      bxisim_region_end(names[k]);
    }
  } else if (!strcmp(mode, "carried") && size == 4) {
    /* Communicators of the other constructors, made in "first" and used in "second" (at the other level):
     * MPI_Comm_split_type, MPI_Comm_dup_with_info, MPI_Comm_create_group and MPI_Comm_create with their group
     * freed, MPI_Dist_graph_create, an intercommunicator and its duplicate, and communicators whose parent was
     * freed before the boundary, and two of MPI_Comm_idup, one complete in "first", the other in "second". Receives
     * posted in "first" on the intra-communicators take sends of "second". */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, one = 1, even = rank % 2 == 0;
    int evens[2] = {0, 2}, odds[2] = {1, 3}, got[6] = {-1, -1, -1, -1, -1, -1}, partner[5], word = 900 + rank;
    int node_rank = -1, node_size = 0, parity_rank = -1, kept_rank = -1;
    MPI_Comm node, twin, evens_comm = MPI_COMM_NULL, odds_comm = MPI_COMM_NULL, parity, ring, half, inter, inter_twin,
                         tmp, kept, early, late, bridge;
    MPI_Group world_group, group;
    MPI_Request requests[6], early_request, late_request;
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int keyval = MPI_KEYVAL_INVALID, attribute_found = 0;
    void* attribute = NULL;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, (void*)(intptr_t)77);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &twin); /* copies the attribute, as MPI_Comm_dup */
    MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    MPI_Comm_idup(MPI_COMM_WORLD, &early, &early_request);
    MPI_Comm_idup(twin, &late, &late_request);            /* complete at the other level */
    MPI_Comm_set_attr(twin, keyval, (void*)(intptr_t)78); /* after the call: not late's (MPI-3.1 6.4.2) */
    MPI_Wait(&early_request, MPI_STATUS_IGNORE);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, 2, even ? evens : odds, &group);
    if (even)
      MPI_Comm_create_group(MPI_COMM_WORLD, group, 5, &evens_comm);
    MPI_Comm_create(MPI_COMM_WORLD, group, &odds_comm); /* every rank: its own parity's group */
    MPI_Group_free(&group);
    MPI_Group_free(&world_group);
    if (even) /* the even ranks use their communicator of MPI_Comm_create_group instead */
      MPI_Comm_free(&odds_comm);
    parity = even ? evens_comm : odds_comm;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, &right, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_dup(MPI_COMM_WORLD, &bridge);
    MPI_Intercomm_create(half, 0, bridge, rank % 2 ? 0 : 1, 70, &inter);
    MPI_Comm_dup(inter, &inter_twin);
    MPI_Comm_free(&half);   /* the intercommunicator's local communicator, freed before the boundary */
    MPI_Comm_free(&bridge); /* and its bridge */
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &tmp);
    MPI_Comm_dup(tmp, &kept);
    MPI_Comm_free(&tmp); /* freed before the boundary: its duplicate lives on */
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_rank(parity, &parity_rank);
    MPI_Comm_rank(kept, &kept_rank); /* kept numbers the ranks backwards */
    partner[0] = node_size - 1 - node_rank;
    partner[1] = left;
    partner[2] = 1 - parity_rank;
    partner[3] = (kept_rank + size - 1) % size;
    partner[4] = left;
    MPI_Irecv(&got[0], 1, MPI_INT, partner[0], 80, node, &requests[0]);
    MPI_Irecv(&got[1], 1, MPI_INT, partner[1], 81, twin, &requests[1]);
    MPI_Irecv(&got[2], 1, MPI_INT, partner[2], 82, parity, &requests[2]);
    MPI_Irecv(&got[3], 1, MPI_INT, partner[3], 83, kept, &requests[3]);
    MPI_Irecv(&got[4], 1, MPI_INT, partner[4], 84, early, &requests[4]);
    MPI_Irecv(&got[5], 1, MPI_INT, rank / 2, 85, inter, &requests[5]); /* from the remote group's rank */
    bxisim_region_end("first");
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    int sum = 0, total = 0, remote = -1, in = 0, out = 0, weighted = -1, from = -1, to = -1, gathered = -1;
    MPI_Send(&word, 1, MPI_INT, node_size - 1 - node_rank, 80, node);
    MPI_Send(&word, 1, MPI_INT, right, 81, twin);
    MPI_Send(&word, 1, MPI_INT, 1 - parity_rank, 82, parity);
    MPI_Send(&word, 1, MPI_INT, (kept_rank + 1) % size, 83, kept);
    MPI_Send(&word, 1, MPI_INT, right, 84, early);
    MPI_Send(&word, 1, MPI_INT, rank / 2, 85, inter);
    MPI_Waitall(6, requests, MPI_STATUSES_IGNORE);
    MPI_Wait(&late_request, MPI_STATUS_IGNORE);
    check(got[0] == 900 + (node_size == 1 ? rank : rank ^ 1), "split_type_forwarded", 2);
    check(got[1] == 900 + left, "dup_with_info_forwarded", 2);
    MPI_Comm_get_attr(twin, keyval, &attribute, &attribute_found);
    check(attribute_found && (intptr_t)attribute == 78, "dup_with_info_attribute", 2);
    check(got[2] == 900 + (rank ^ 2), "create_group_forwarded", 2);
    check(got[3] == 900 + (rank + 1) % size, "freed_parent_forwarded", 2);
    check(got[4] == 900 + left, "idup_forwarded", 2);
    check(got[5] == 900 + (rank ^ 1), "intercomm_forwarded", 2);
    MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, late);
    check(total == 6, "idup_completed_at_the_other_level", 2);
    attribute_found = 0;
    MPI_Comm_get_attr(late, keyval, &attribute, &attribute_found);
    check(attribute_found && (intptr_t)attribute == 77, "idup_attribute", 2);
    MPI_Comm_free_keyval(&keyval);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, parity);
    check(sum == (even ? 2 : 4), "create_group_allreduce", 2);
    MPI_Dist_graph_neighbors_count(ring, &in, &out, &weighted);
    MPI_Dist_graph_neighbors(ring, 1, &from, MPI_UNWEIGHTED, 1, &to, MPI_UNWEIGHTED);
    check(in == 1 && out == 1 && !weighted && from == left && to == right, "dist_graph_neighbors", 2);
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, &gathered, 1, MPI_INT, ring);
    check(gathered == left, "dist_graph_allgather", 2);
    MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, inter); /* the remote group's sum */
    check(total == (even ? 4 : 2), "intercomm_allreduce", 2);
    MPI_Sendrecv(&rank, 1, MPI_INT, rank / 2, 71, &remote, 1, MPI_INT, rank / 2, 71, inter_twin, MPI_STATUS_IGNORE);
    check(remote == (rank ^ 1), "intercomm_dup_sendrecv", 2);
    MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, kept);
    check(total == 6 && kept_rank == size - 1 - rank, "freed_parent_allreduce", 2);
    MPI_Comm_free(&node);
    MPI_Comm_free(&twin);
    MPI_Comm_free(&parity);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&inter_twin);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&kept);
    MPI_Comm_free(&early);
    MPI_Comm_free(&late);
    bxisim_region_end("second");
  } else if (!strcmp(mode, "inter_at_smpi") && size == 4) {
    MPI_Comm half, inter;
    int size_there = 0;
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 70, &inter);
    bxisim_region_end("second");
    bxisim_region_begin("third", BXISIM_LEVEL_SMPI);
    int remote = -1;
    MPI_Comm_remote_size(inter, &size_there);
    MPI_Sendrecv(&rank, 1, MPI_INT, rank / 2, 72, &remote, 1, MPI_INT, rank / 2, 72, inter, MPI_STATUS_IGNORE);
    check(size_there == 2 && remote == (rank ^ 1), "intercomm_at_smpi", 3);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    bxisim_region_end("third");
  } else if (!strcmp(mode, "window")) {
    int files      = !(argc > 2 && !strcmp(argv[2], "nofile")); /* files need an OpenMPI level */
    int exposed[4] = {0, 0, 0, 0}, right = (rank + 1) % size, left = (rank + size - 1) % size, code, word;
    int data[4] = {rank, rank + 1, rank + 2, rank + 3}, back[4] = {0, 0, 0, 0};
    char name[64];
    MPI_Errhandler win_handler, file_handler, got;
    /* the host's process id (getpid() is the rank's, 1000 + rank, the same in every run): runs side by side (ctest -j)
     * wrote one another's files */
    snprintf(name, sizeof name, "/tmp/bxisim-level-switch-%ld-%d.dat", (long)syscall(SYS_getpid), rank);
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    MPI_Win_create(exposed, sizeof exposed, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &the_win);
    MPI_Win_set_errhandler(the_win, MPI_ERRORS_RETURN);
    bxisim_region_end("first");
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    sleep_until(0.1);
    double start = MPI_Wtime();
    word         = 10 * rank + 1;
    MPI_Win_fence(0, the_win);
    MPI_Put(&word, 1, MPI_INT, right, 0, 1, MPI_INT, the_win);
    MPI_Win_fence(0, the_win);
    printf("rank=%d win_time=%.9f\n", rank, MPI_Wtime() - start);
    check(exposed[0] == 10 * left + 1, "window_put", 2);
    code = MPI_Put(&word, 1, MPI_INT, size + 5, 0, 1, MPI_INT, the_win); /* an invalid rank: returned */
    check(code != MPI_SUCCESS, "window_errors_return", 2);
    MPI_Win_create_errhandler(note_win_error, &win_handler);
    MPI_Win_set_errhandler(the_win, win_handler);
    MPI_Put(&word, 1, MPI_INT, size + 5, 0, 1, MPI_INT, the_win);
    check(win_handled == 1, "window_handler", 2);
    MPI_Win_get_errhandler(the_win, &got);
    check(got == win_handler, "window_get_errhandler", 2);
    MPI_Errhandler_free(&got);
    if (files) {
      MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                    &the_file);
      MPI_File_set_errhandler(the_file, MPI_ERRORS_RETURN);
    }
    bxisim_region_end("second");
    bxisim_region_begin("third", BXISIM_LEVEL_SMPI);
    if (files) {
      MPI_File_write_at(the_file, 0, data, 4, MPI_INT, MPI_STATUS_IGNORE);
      MPI_File_read_at(the_file, 0, back, 4, MPI_INT, MPI_STATUS_IGNORE);
      check(back[3] == rank + 3, "file_io", 3);
      code = MPI_File_write_at(the_file, 0, data, -1, MPI_INT, MPI_STATUS_IGNORE); /* a negative count */
      check(code != MPI_SUCCESS, "file_errors_return", 3);
      MPI_File_create_errhandler(note_file_error, &file_handler);
      MPI_File_set_errhandler(the_file, file_handler);
      MPI_File_write_at(the_file, 0, data, -1, MPI_INT, MPI_STATUS_IGNORE);
      check(file_handled == 1, "file_handler", 3);
      MPI_File_close(&the_file);
      MPI_Errhandler_free(&file_handler);
    }
    MPI_Win_fence(0, the_win);
    MPI_Put(&word, 1, MPI_INT, left, 1, 1, MPI_INT, the_win);
    MPI_Win_fence(0, the_win);
    check(exposed[1] == 10 * right + 1, "window_put_home", 3);
    MPI_Win_free(&the_win);
    MPI_Errhandler_free(&win_handler);
    bxisim_region_end("third");
  } else if (!strcmp(mode, "file_at_smpi")) {
    MPI_File file = MPI_FILE_NULL;
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    int code =
        MPI_File_open(MPI_COMM_SELF, "/tmp/bxisim-never-opened", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file);
    check(code == MPI_ERR_UNSUPPORTED_OPERATION && file == MPI_FILE_NULL, "file_at_smpi", 1);
    bxisim_region_end("first");
  } else if (!strcmp(mode, "split_free")) {
    const char* names[3] = {"first", "second", "third"};
    int levels[3]        = {BXISIM_LEVEL_SMPI, BXISIM_LEVEL_MESSAGE, BXISIM_LEVEL_SMPI};
    MPI_Comm half        = MPI_COMM_NULL;
    for (int k = 0; k < 3; ++k) {
      MPI_Comm twin;
      bxisim_region_begin(names[k], levels[k]);
      if (half != MPI_COMM_NULL) { /* made before the boundary, by the other back end */
        int half_rank = -1, half_size = 0, sum = 0;
        MPI_Comm_rank(half, &half_rank);
        MPI_Comm_size(half, &half_size);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
        check(half_rank == rank / 2 && half_size == (size + 1 - rank % 2) / 2, "split_order", k + 1);
        check(sum == (rank % 2 ? (half_size * half_size) : half_size * (half_size - 1)), "split_sum", k + 1);
        MPI_Comm_free(&half);
      }
      sleep_until(0.1 * k + 0.001 * rank); /* rank 0 first: it runs ahead of the others */
      if (k < 2)
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half); /* the last call before the boundary */
      MPI_Comm_dup(MPI_COMM_WORLD, &twin);
      MPI_Comm_free(&twin);
      if (k == 0 && rank == 0)
        printf("rank=%d split_end=%.9f\n", rank, MPI_Wtime());
      bxisim_region_end(names[k]);
    }
  } else if (!strcmp(mode, "abort_at_boundary")) {
    int in_second = argc > 2 && !strcmp(argv[2], "message");
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    if (in_second) {
      bxisim_region_end("first");
      bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    }
    if (rank == 0) {
      sleep_until(0.001);
      MPI_Abort(MPI_COMM_WORLD, 43);
    }
    if (in_second)
      bxisim_region_end("second");
    else
      bxisim_region_end("first");
  } else if (!strcmp(mode, "cancelled")) {
    int right = (rank + 1) % size, left = (rank + size - 1) % size, first = -1, second = -1;
    MPI_Request receive;
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    MPI_Irecv(&first, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &receive);
    MPI_Cancel(&receive);
    if (argc <= 2 || strcmp(argv[2], "unwaited") != 0) {
      MPI_Status status;
      int cancelled = 0;
      MPI_Wait(&receive, &status);
      MPI_Test_cancelled(&status, &cancelled);
      check(cancelled == 1, "cancelled_flag", 1);
    }
    bxisim_region_end("first");
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    int word = 900 + rank;
    MPI_Irecv(&second, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &receive);
    MPI_Send(&word, 1, MPI_INT, right, 9, MPI_COMM_WORLD);
    MPI_Wait(&receive, MPI_STATUS_IGNORE);
    check(second == 900 + left && first == -1, "cancelled_receive", 2);
    bxisim_region_end("second");
  } else if (!strcmp(mode, "polled")) {
    /* A receive posted in "first" and tested in a loop in "second", where its message is sent at a known date. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1, done = 0, tests = 0;
    MPI_Request receive;
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    MPI_Irecv(&got, 1, MPI_INT, left, 11, MPI_COMM_WORLD, &receive);
    bxisim_region_end("first");
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    const double sent = 0.01;
    sleep_until(sent);
    int word = 1100 + rank;
    MPI_Send(&word, 1, MPI_INT, right, 11, MPI_COMM_WORLD);
    while (!done) {
      MPI_Test(&receive, &done, MPI_STATUS_IGNORE);
      ++tests;
    }
    printf("rank=%d polled_after=%.9f polled_tests=%d\n", rank, MPI_Wtime() - sent, tests);
    check(got == 1100 + left, "polled", 2);
    bxisim_region_end("second");
  } else if (!strcmp(mode, "derived")) {
    derived();
  } else if (!strcmp(mode, "attributes")) {
    attributes();
  } else if (!strcmp(mode, "thread_level")) {
    /* The level granted holds in every region, whichever back end starts first. */
    int queried[2] = {-1, -1};
    bxisim_region_begin("first", BXISIM_LEVEL_SMPI);
    exchange(1);
    MPI_Query_thread(&queried[0]);
    bxisim_region_end("first");
    bxisim_region_begin("second", BXISIM_LEVEL_MESSAGE);
    exchange(2);
    MPI_Query_thread(&queried[1]);
    bxisim_region_end("second");
    printf("rank=%d serialized=%d same=%d\n", rank, provided == MPI_THREAD_SERIALIZED,
           queried[0] == provided && queried[1] == provided);
  } else if (!strcmp(mode, "nested")) {
    bxisim_region_begin("outer", BXISIM_LEVEL_MESSAGE);
    exchange(1);
    phase("inner", BXISIM_LEVEL_SMPI, 2);
    exchange(3);
    bxisim_region_end("outer");
  }
  int finalized = 0;
  MPI_Finalize();
  MPI_Finalized(&finalized);
  printf("rank=%d ok=%d finalized=%d\n", rank, ok, finalized);
  return 0;
}
