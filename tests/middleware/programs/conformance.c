/* Cases found by MPICH's MPI test suite (test/mpi) under bxisim, one mode each, checked at every level.
 * Each rank prints key=value fields; "bad_x=1" names a failed check. */
#include <fenv.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xmmintrin.h>

static int errors = 0;
#define CHECK(condition, what)                                                                                         \
  do {                                                                                                                 \
    if (!(condition)) {                                                                                                \
      printf("bad_%s=1\n", what);                                                                                      \
      errors++;                                                                                                        \
    }                                                                                                                  \
  } while (0)

static int handler_calls         = 0;
static int handler_code          = 0;
static int handler_comm_is_world = 0;

static void comm_handler(MPI_Comm* comm, int* code, ...)
{
  handler_calls++;
  handler_code          = *code;
  handler_comm_is_world = *comm == MPI_COMM_WORLD;
}

static void win_handler(MPI_Win* win, int* code, ...)
{
  (void)win;
  handler_calls++;
  handler_code = *code;
}

/* MPI_Comm_call_errhandler and MPI_Win_call_errhandler with each kind of handler (MPICH errhan/errfatal,
 * errhan/commcall): MPI_ERRORS_RETURN returns, a program's handler is called with the code. */
static void errhandler_return(void)
{
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER) == MPI_SUCCESS, "comm_return");

  MPI_Errhandler mine;
  MPI_Comm_create_errhandler(comm_handler, &mine);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, mine);
  CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG) == MPI_SUCCESS, "comm_user_result");
  CHECK(handler_calls == 1, "comm_user_called");
  CHECK(handler_code == MPI_ERR_ARG, "comm_user_code");
  CHECK(handler_comm_is_world, "comm_user_comm");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&mine);

  int cell = 0;
  MPI_Win win;
  MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  CHECK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER) == MPI_SUCCESS, "win_return");
  MPI_Errhandler win_mine;
  MPI_Win_create_errhandler(win_handler, &win_mine);
  MPI_Win_set_errhandler(win, win_mine);
  CHECK(MPI_Win_call_errhandler(win, MPI_ERR_RANK) == MPI_SUCCESS, "win_user_result");
  CHECK(handler_calls == 2, "win_user_called");
  CHECK(handler_code == MPI_ERR_RANK, "win_user_code");
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&win_mine);
  MPI_Win_free(&win);
  printf("handler_calls=%d\n", handler_calls);
}

/* The default handler, MPI_ERRORS_ARE_FATAL, called by the program: the job ends (MPICH errhan/errfatal). */
static void errhandler_fatal(int rank)
{
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
    printf("returned_from_fatal=1\n");
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Predefined attributes and the program's error codes (MPICH attr/baseattr2, attr/baseattrcomm,
 * errhan/dynamic_errcode_predefined_errclass, errhan/errstring2): values in bxisim's ABI, not the back end's. */
static void attributes_and_error_codes(int rank, int size)
{
  int* value = NULL;
  int flag   = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &value, &flag);
  CHECK(flag && (*value == MPI_PROC_NULL || (*value >= 0 && *value < size)), "host");
  MPI_Attr_get(MPI_COMM_WORLD, MPI_HOST, &value, &flag);
  CHECK(flag && (*value == MPI_PROC_NULL || (*value >= 0 && *value < size)), "host_attr_get");
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &value, &flag);
  CHECK(flag && (*value == MPI_ANY_SOURCE || *value == MPI_PROC_NULL || (*value >= 0 && *value < size)), "io");
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &value, &flag);
  CHECK(flag && *value >= MPI_ERR_LASTCODE, "lastusedcode");
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &value, &flag);
  CHECK(flag && *value >= 32767, "tag_ub");

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int new_class = 0;
  if (MPI_Add_error_class(&new_class) != MPI_SUCCESS) {
    printf("add_error=unsupported\n");
    return;
  }
  int new_code = 0, arg_code = 0, out_class = -1, length = 0;
  MPI_Add_error_code(new_class, &new_code);
  MPI_Add_error_code(MPI_ERR_ARG, &arg_code);
  MPI_Add_error_string(new_code, "bxisim conformance code");
  CHECK(new_class > MPI_ERR_LASTCODE, "class_above_lastcode");
  CHECK(new_code > MPI_ERR_LASTCODE && arg_code > MPI_ERR_LASTCODE, "code_above_lastcode");
  MPI_Error_class(new_code, &out_class);
  CHECK(out_class == new_class, "class_of_code");
  MPI_Error_class(arg_code, &out_class);
  CHECK(out_class == MPI_ERR_ARG, "class_of_arg_code");
  MPI_Error_class(new_class, &out_class); /* OpenMPI 4.1.4 answered MPI_ERR_UNKNOWN (MPICH errhan/adderr) */
  CHECK(out_class == new_class, "class_of_class");
  char text[MPI_MAX_ERROR_STRING];
  MPI_Error_string(new_code, text, &length);
  CHECK(strcmp(text, "bxisim conformance code") == 0, "string_of_code");
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &value, &flag);
  CHECK(flag && *value >= arg_code, "lastusedcode_after_add");
  printf("add_error=ok rank_checked=%d\n", rank);
}

/* A function SMPI 3.32 lacks (MPI_Intercomm_create), called as MPICH's util/mtest.c does, going on with its
 * result: with MPI_ERRORS_RETURN the error comes back and the program decides; under the default
 * MPI_ERRORS_ARE_FATAL the job ends (MPICH comm/commname crashed SMPI on the handle never made). */
static void unsupported(int rank, int size, int fatal)
{
  (void)rank;
  (void)size;
  if (!fatal)
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  /* SMPI has no MPI_File_preallocate; OpenMPI's says MPI_ERR_FILE of the null file, through the files' handler */
  int result = MPI_File_preallocate(MPI_FILE_NULL, 0);
  printf("unsupported_result=%d\n", result == MPI_ERR_UNSUPPORTED_OPERATION ? 1 : result == MPI_ERR_FILE ? 2 : 0);
}

/* An attribute copy function that fails makes MPI_Type_dup fail (MPICH attr/attrerrtype): the program then
 * tests its new handle against MPI_DATATYPE_NULL and frees it otherwise; it must not be left as it was. */
static int failing_copy(MPI_Datatype type, int keyval, void* extra, void* in, void* out, int* flag)
{
  (void)type;
  (void)keyval;
  (void)extra;
  (void)in;
  (void)out;
  *flag = 1;
  return MPI_ERR_OTHER;
}

static void failed_dup(void)
{
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype type, copy = MPI_INT; /* a valid handle: what the program had in its variable before */
  MPI_Type_dup(MPI_DOUBLE, &type);
  int keyval;
  MPI_Type_create_keyval(failing_copy, MPI_TYPE_NULL_DELETE_FN, &keyval, NULL);
  MPI_Type_set_attr(type, keyval, NULL);
  int result = MPI_Type_dup(type, &copy);
  printf("dup_failed=%d\n", result != MPI_SUCCESS);
  CHECK(result == MPI_SUCCESS || copy == MPI_DATATYPE_NULL, "failed_dup_not_null");
  if (copy != MPI_DATATYPE_NULL && copy != MPI_INT)
    MPI_Type_free(&copy);
  MPI_Type_delete_attr(type, keyval);
  MPI_Type_free_keyval(&keyval);
  MPI_Type_free(&type);
}

/* Communicators made back to back (MPICH attr/fkeyval, comm/dupic, comm/ic1): OpenMPI agrees on each new
 * communicator's id through rounds its progress callbacks drive, some without any network activity (a
 * rank alone, the self BTL), and bxisim's polling rule blocked such a rank for ever ("deadlock" with one
 * rank). With "intercomm" (levels with inter-communicators) the halves also make, dup and use one. */
static void make_communicators(int rank, int size, int intercomm)
{
  int made = 0;
  for (int i = 0; i < 3; ++i) {
    MPI_Comm self_dup, world_dup;
    CHECK(MPI_Comm_dup(MPI_COMM_SELF, &self_dup) == MPI_SUCCESS, "self_dup");
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &world_dup) == MPI_SUCCESS, "world_dup");
    int sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, world_dup);
    CHECK(sum == size, "world_dup_sum");
    MPI_Comm_free(&self_dup);
    MPI_Comm_free(&world_dup);
    made += 2;
  }
  if (intercomm && size >= 2) {
    MPI_Comm local, inter, inter_dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &local);
    CHECK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank < size / 2 ? size / 2 : 0, 7, &inter) == MPI_SUCCESS,
          "intercomm");
    CHECK(MPI_Comm_dup(inter, &inter_dup) == MPI_SUCCESS, "intercomm_dup");
    int remote = 0;
    MPI_Comm_remote_size(inter_dup, &remote);
    CHECK(remote == (rank < size / 2 ? size - size / 2 : size / 2), "remote_size");
    MPI_Comm_free(&inter_dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    made += 3;
  }
  printf("communicators=%d\n", made);
}

/* The simulated time each way of making a communicator takes, from a barrier: OpenMPI agrees on the id with
 * progress rounds Portals does not see. Printed exactly (%a), to compare runs with other poll sleeps. */
static void communicator_times(int rank)
{
  MPI_Comm made[4];
  const char* names[4] = {"dup_world", "split", "dup_self", "dup_split"};
  for (int i = 0; i < 4; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    if (i == 0)
      CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &made[i]) == MPI_SUCCESS, "dup_world");
    else if (i == 1)
      CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &made[i]) == MPI_SUCCESS, "split");
    else if (i == 2)
      CHECK(MPI_Comm_dup(MPI_COMM_SELF, &made[i]) == MPI_SUCCESS, "dup_self");
    else
      CHECK(MPI_Comm_dup(made[1], &made[i]) == MPI_SUCCESS, "dup_split");
    printf("%s=%a\n", names[i], MPI_Wtime() - start);
  }
  for (int i = 0; i < 4; ++i)
    MPI_Comm_free(&made[i]);
}

/* MPICH init/initstat: MPI_Init_thread(MPI_THREAD_MULTIPLE) succeeds and answers the level provided (a rank is
 * one simulator thread: SERIALIZED); MPI_Query_thread agrees and MPI works. */
static void thread_multiple(int init_result, int provided)
{
  CHECK(init_result == MPI_SUCCESS, "init_result");
  printf("provided=%d\n", provided == MPI_THREAD_SERIALIZED ? 2 : provided == MPI_THREAD_MULTIPLE ? 3 : -1);
  int queried = -1;
  CHECK(MPI_Query_thread(&queried) == MPI_SUCCESS && queried == provided, "query_thread");
  int main_thread = 0;
  CHECK(MPI_Is_thread_main(&main_thread) == MPI_SUCCESS && main_thread, "is_thread_main");
  int one = 1, sum = 0, size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == size, "allreduce");
}

/* SMPI 3.32 has no matched probes: "no_mprobe" (second argument) uses MPI_Probe and MPI_Recv instead. */

/* MPICH pt2pt/mprobe: a single-completion call leaves the status's MPI_ERROR field alone (MPI-3.1 3.2.5). */
static void status_error(int rank)
{
  int data[2] = {7, 8};
  if (rank == 0) {
    for (int i = 0; i < 5; i++)
      MPI_Send(data, 2, MPI_INT, 1, 5, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Status status;
    MPI_Message message;
    MPI_Request request;
    status.MPI_ERROR = MPI_ERR_DIMS;
    MPI_Probe(0, 5, MPI_COMM_WORLD, &status);
    CHECK(status.MPI_ERROR == MPI_ERR_DIMS && status.MPI_TAG == 5, "probe_error");
    status.MPI_ERROR = MPI_ERR_TOPOLOGY;
    MPI_Recv(data, 2, MPI_INT, 0, 5, MPI_COMM_WORLD, &status);
    CHECK(status.MPI_ERROR == MPI_ERR_TOPOLOGY && status.MPI_SOURCE == 0, "recv_error");
    status.MPI_ERROR = MPI_ERR_DIMS;
    MPI_Mprobe(0, 5, MPI_COMM_WORLD, &message, &status);
    CHECK(status.MPI_ERROR == MPI_ERR_DIMS, "mprobe_error");
    status.MPI_ERROR = MPI_ERR_TOPOLOGY;
    MPI_Mrecv(data, 2, MPI_INT, &message, &status);
    CHECK(status.MPI_ERROR == MPI_ERR_TOPOLOGY && message == MPI_MESSAGE_NULL, "mrecv_error");
    status.MPI_ERROR = MPI_ERR_DIMS;
    MPI_Irecv(data, 2, MPI_INT, 0, 5, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, &status);
    CHECK(status.MPI_ERROR == MPI_ERR_DIMS, "wait_error");
    int flag         = 0;
    status.MPI_ERROR = MPI_ERR_TOPOLOGY;
    MPI_Irecv(data, 2, MPI_INT, 0, 5, MPI_COMM_WORLD, &request);
    while (!flag)
      MPI_Test(&request, &flag, &status);
    CHECK(status.MPI_ERROR == MPI_ERR_TOPOLOGY, "test_error");
    /* MPICH pt2pt/rqstatus: a null request gives the empty status, whose error field is MPI_SUCCESS
     * (MPI-3.1 3.7.3), whatever the program's status held */
    request          = MPI_REQUEST_NULL;
    flag             = 0;
    status.MPI_ERROR = MPI_ERR_DIMS;
    MPI_Request_get_status(request, &flag, &status);
    CHECK(flag && status.MPI_SOURCE == MPI_ANY_SOURCE && status.MPI_TAG == MPI_ANY_TAG &&
              status.MPI_ERROR == MPI_SUCCESS,
          "null_get_status");
    status.MPI_ERROR = MPI_ERR_DIMS;
    MPI_Wait(&request, &status);
    CHECK(status.MPI_SOURCE == MPI_ANY_SOURCE && status.MPI_ERROR == MPI_SUCCESS, "null_wait");
    status.MPI_ERROR = MPI_ERR_DIMS;
    MPI_Test(&request, &flag, &status);
    CHECK(flag && status.MPI_ERROR == MPI_SUCCESS, "null_test");
    /* a call returning several statuses writes the field */
    MPI_Status statuses[1];
    statuses[0].MPI_ERROR = MPI_ERR_DIMS;
    MPI_Irecv(data, 2, MPI_INT, 0, 5, MPI_COMM_WORLD, &request);
    MPI_Waitall(1, &request, statuses);
    CHECK(statuses[0].MPI_ERROR == MPI_SUCCESS || statuses[0].MPI_ERROR == MPI_ERR_DIMS, "waitall_error");
    CHECK(data[0] == 7 && data[1] == 8, "data");
  }
}

/* MPI_Type_create_f90_integer/_real/_complex (SMPI 3.32 has none): the size of gfortran's kind for the digits. */
static void f90_types(void)
{
  MPI_Datatype types[5];
  int sizes[5] = {0};
  MPI_Type_create_f90_integer(9, &types[0]);
  MPI_Type_create_f90_integer(18, &types[1]);
  MPI_Type_create_f90_real(6, 30, &types[2]);
  MPI_Type_create_f90_real(15, 300, &types[3]);
  MPI_Type_create_f90_complex(6, MPI_UNDEFINED, &types[4]);
  for (int i = 0; i < 5; i++)
    MPI_Type_size(types[i], &sizes[i]);
  printf("f90_sizes=%d,%d,%d,%d,%d\n", sizes[0], sizes[1], sizes[2], sizes[3], sizes[4]);
}

/* MPICH datatype/simple_pack_external at smpi, where SMPI 3.32 has no MPI_Pack_external: external32 is big-endian
 * (an int 0x01020304 is 01 02 03 04, a double 1.5 is 3f f8 00 ...), and unpacks back to the values. */
static void pack_external(void)
{
  struct {
    int i;
    double d;
    short s;
    long double q;
  } in = {0x01020304, 1.5, -2, 3.25L}, out = {0, 0, 0, 0};
  int lengths[4]        = {1, 1, 1, 1};
  MPI_Aint where[4]     = {offsetof(__typeof__(in), i), offsetof(__typeof__(in), d), offsetof(__typeof__(in), s),
                           offsetof(__typeof__(in), q)};
  MPI_Datatype parts[4] = {MPI_INT, MPI_DOUBLE, MPI_SHORT, MPI_LONG_DOUBLE}, type;
  MPI_Type_create_struct(4, lengths, where, parts, &type);
  MPI_Type_commit(&type);
  unsigned char packed[64];
  MPI_Aint size = 0, position = 0, read = 0;
  MPI_Pack_external_size("external32", 1, type, &size);
  MPI_Pack_external("external32", &in, 1, type, packed, sizeof packed, &position);
  CHECK(size == 4 + 8 + 2 + 16 && position == size, "external32_size");
  const unsigned char head[] = {1, 2, 3, 4, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xff, 0xfe};
  CHECK(memcmp(packed, head, sizeof head) == 0, "external32_big_endian");
  MPI_Unpack_external("external32", packed, position, &read, &out, 1, type);
  CHECK(read == position && out.i == in.i && out.d == in.d && out.s == in.s && out.q == in.q, "external32_back");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int class = -1;
  MPI_Error_class(MPI_Pack_external_size("native", 1, MPI_INT, &size), &class);
  CHECK(class == MPI_ERR_ARG, "external32_other_datarep"); /* only "external32" is defined */
  MPI_Type_free(&type);
  printf("external32=%ld\n", (long)position);
}

/* MPICH datatype/darray_pack, darray_cyclic at smpi, where SMPI 3.32 has no MPI_Type_create_darray: an 8 x 6 array
 * of ints, rows in blocks over 2 processes, columns cyclic(2) over 2 (4 ranks); the elements a rank packs through
 * its type are those it owns, in row-major order, and the type spans the whole array. */
static void darray(int rank)
{
  int global[8][6], packed[48], sizes[2] = {8, 6}, distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
  int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[2] = {2, 2}, position = 0, expected = 0, wrong = 0;
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 6; j++)
      global[i][j] = i * 100 + j;
  MPI_Datatype mine;
  MPI_Type_create_darray(4, rank, 2, sizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &mine);
  MPI_Type_commit(&mine);
  MPI_Aint lb = -1, extent = 0;
  int size = 0;
  MPI_Type_get_extent(mine, &lb, &extent);
  MPI_Type_size(mine, &size);
  MPI_Pack(global, 1, mine, packed, sizeof packed, &position, MPI_COMM_WORLD);
  for (int i = (rank / 2) * 4; i < (rank / 2) * 4 + 4; i++)
    for (int j = 0; j < 6; j++)
      if ((j / 2) % 2 == rank % 2)
        wrong += packed[expected++] != global[i][j];
  CHECK(lb == 0 && extent == (MPI_Aint)sizeof global && size == expected * (int)sizeof(int), "darray_bounds");
  CHECK(wrong == 0 && position == size, "darray_elements");
  MPI_Type_free(&mine);
  printf("darray_elements=%d\n", expected);
}

/* MPICH rma/wintest and win_shared at smpi, where SMPI 3.32 has neither MPI_Win_test nor MPI_Win_sync: a target
 * that tests its exposure epoch until it ends sees the origin's Put; MPI_Win_sync in a passive epoch. */
static void window_test_and_sync(int rank)
{
  int memory = -1, value = 40 + rank, tests = 0, flag = 0;
  MPI_Win win;
  MPI_Group world, peer;
  MPI_Win_create(&memory, sizeof memory, sizeof memory, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int other = 1 - rank;
  MPI_Group_incl(world, 1, &other, &peer);
  if (rank == 0) {
    MPI_Win_start(peer, 0, win);
    MPI_Put(&value, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
  } else if (rank == 1) {
    MPI_Win_post(peer, 0, win);
    while (!flag && tests < 1000000) {
      MPI_Win_test(win, &flag);
      tests++;
    }
    CHECK(flag && memory == 40, "win_test");
  }
  MPI_Win_lock_all(0, win);
  CHECK(MPI_Win_sync(win) == MPI_SUCCESS, "win_sync");
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Group_free(&peer);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  printf("window_tested=%d\n", rank == 1 ? flag : 1);
}

/* MPICH pt2pt/mprobe (test 12 and its nonblocking forms): a matched message is received only through its handle,
 * so a receive posted after MPI_Mprobe (MPI_Improbe) takes the next message; MPI_PROC_NULL gives
 * MPI_MESSAGE_NO_PROC, whose receive completes with source MPI_PROC_NULL. */
static void matched_probes(int rank)
{
  int data[6] = {1, 2, 3, 4, 5, 6};
  if (rank == 0) {
    for (int round = 0; round < 2; round++) {
      MPI_Send(&data[0], 4, MPI_INT, 1, 6, MPI_COMM_WORLD);
      MPI_Send(&data[4], 2, MPI_INT, 1, 6, MPI_COMM_WORLD);
    }
  } else if (rank == 1) {
    for (int round = 0; round < 2; round++) {
      int first[4] = {0}, second[2] = {0}, count = -1, flag = 0;
      MPI_Message message = MPI_MESSAGE_NULL;
      MPI_Status probed, got;
      if (round == 0)
        MPI_Mprobe(0, 6, MPI_COMM_WORLD, &message, &probed);
      else
        while (!flag)
          MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &message, &probed);
      MPI_Get_count(&probed, MPI_INT, &count);
      CHECK(count == 4 && probed.MPI_SOURCE == 0 && probed.MPI_TAG == 6 && message != MPI_MESSAGE_NULL, "probed");
      MPI_Recv(second, 2, MPI_INT, 0, 6, MPI_COMM_WORLD, &got); /* the message after the matched one */
      CHECK(second[0] == 5 && second[1] == 6, "later_message");
      if (round == 0) {
        MPI_Mrecv(first, 4, MPI_INT, &message, &got);
      } else {
        MPI_Request request;
        MPI_Imrecv(first, 4, MPI_INT, &message, &request);
        MPI_Wait(&request, &got);
      }
      MPI_Get_count(&got, MPI_INT, &count);
      CHECK(first[0] == 1 && first[3] == 4 && count == 4 && got.MPI_TAG == 6, "matched_message");
      CHECK(message == MPI_MESSAGE_NULL, "handle_freed");
    }
    MPI_Message none = MPI_MESSAGE_NULL;
    MPI_Status status;
    MPI_Request request;
    MPI_Mprobe(MPI_PROC_NULL, 6, MPI_COMM_WORLD, &none, &status);
    CHECK(none == MPI_MESSAGE_NO_PROC && status.MPI_SOURCE == MPI_PROC_NULL, "no_proc");
    MPI_Imrecv(data, 4, MPI_INT, &none, &request);
    MPI_Wait(&request, &status);
    CHECK(status.MPI_SOURCE == MPI_PROC_NULL && none == MPI_MESSAGE_NULL, "no_proc_receive");
  }
  printf("matched=%d\n", rank == 1 ? 2 : 0);
}

/* MPICH pt2pt/mprobe (tests 10-11): non-contiguous data received after MPI_Mprobe or by MPI_Recv, small and
 * over 32 KiB (ob1 pipelines it in fragments; OpenMPI 4.1.4's btl/portals4 dropped those over its eager limit). */
static void noncontiguous(int rank)
{
  static int buffer[512 * 512];
  const int blocks[] = {2, 33, 512};
  for (int b = 0; b < 3; b++) {
    for (int by_probe = 0; by_probe < 3; by_probe++) { /* MPI_Recv; MPI_Probe + MPI_Recv; matched */
      MPI_Datatype vector;
      MPI_Type_vector(blocks[b], 511, 512, MPI_INT, &vector);
      MPI_Type_commit(&vector);
      if (rank == 0) {
        for (int i = 0; i < 512 * 512; i++)
          buffer[i] = i + b;
        MPI_Send(buffer, 1, vector, 1, 9, MPI_COMM_WORLD);
      } else if (rank == 1) {
        memset(buffer, 0xff, sizeof buffer);
        MPI_Status status;
        if (by_probe == 1) {
          MPI_Probe(0, 9, MPI_COMM_WORLD, &status);
          int count = -1;
          MPI_Get_count(&status, vector, &count);
          CHECK(count == 1, "probe_count");
          MPI_Recv(buffer, 1, vector, 0, 9, MPI_COMM_WORLD, &status);
        } else if (by_probe) {
          MPI_Message message;
          MPI_Mprobe(0, 9, MPI_COMM_WORLD, &message, &status);
          int count = -1;
          MPI_Get_count(&status, vector, &count);
          CHECK(count == 1, "probe_count");
          MPI_Mrecv(buffer, 1, vector, &message, &status);
        } else
          MPI_Recv(buffer, 1, vector, 0, 9, MPI_COMM_WORLD, &status);
        int wrong = 0;
        for (int i = 0; i < blocks[b] * 512; i++)
          wrong += i % 512 == 511 ? buffer[i] != -1 : buffer[i] != i + b;
        CHECK(wrong == 0, "vector_data");
      }
      MPI_Type_free(&vector);
    }
  }
  printf("vectors=%d\n", rank == 1 ? 9 : 0);
}

/* Many keyvals (MPICH attr tests make hundreds): none may take the number of a predefined attribute key (the
 * standard ABI numbers them from 501), and each keeps its own attribute. */
static void many_keyvals(void)
{
  enum { kCount = 700 };
  static int keys[kCount];
  static int values[kCount];
  int clashes = 0, wrong = 0;
  for (int i = 0; i < kCount; ++i) {
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keys[i], NULL);
    /* the standard ABI numbers the predefined keys from MPI_TAG_UB to MPI_WIN_MODEL */
    clashes += (keys[i] >= MPI_TAG_UB && keys[i] <= MPI_WIN_MODEL) || keys[i] == MPI_KEYVAL_INVALID;
    values[i] = i;
    MPI_Comm_set_attr(MPI_COMM_WORLD, keys[i], &values[i]);
  }
  for (int i = 0; i < kCount; ++i) {
    int* value = NULL;
    int flag   = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, keys[i], &value, &flag);
    wrong += !flag || value != &values[i];
  }
  int* tag_ub = NULL;
  int flag    = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
  CHECK(flag && *tag_ub >= 32767, "tag_ub_after_keyvals");
  CHECK(clashes == 0, "keyval_is_predefined");
  CHECK(wrong == 0, "keyval_attribute");
  for (int i = 0; i < kCount; ++i) {
    MPI_Comm_delete_attr(MPI_COMM_WORLD, keys[i]);
    MPI_Comm_free_keyval(&keys[i]);
  }
  printf("keyvals=%d clashes=%d\n", kCount, clashes);
}

/* Persistent requests started again at once (MPICH's pt2pt/multi_psend_derived): rank 0's persistent send of a
 * duplicated datatype, freed after MPI_Send_init as MPI allows, started and waited for 16 times against rank 1's
 * receives; then both ranks exchange 16 times with MPI_Startall/MPI_Waitall over a persistent send and receive each;
 * then a started persistent send cancelled. */
/* Rank 0 receives three messages of rank 1, which sends the second only after rank 0 has answered "go", and the third
 * after "go2". MPI_Testall answering false modifies no request (Boost.MPI's test_all keeps its own copies of the
 * handles); MPI_Request_get_status answers false for a receive whose message is not there and frees nothing. */
static void completion_queries(int rank)
{
  int peer = 1 - rank, go = 1;
  if (rank == 1) {
    int first = 11, second = 22, third = 33;
    MPI_Send(&first, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
    MPI_Recv(&go, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&second, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
    MPI_Recv(&go, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&third, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
    MPI_Request barrier;
    MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
    MPI_Recv(&go, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&third, 1, MPI_INT, peer, 4, MPI_COMM_WORLD);
    MPI_Wait(&barrier, MPI_STATUS_IGNORE);
    printf("completion_queries=1\n");
    return;
  }
  int values[3] = {0, 0, 0};
  MPI_Request requests[2], kept[2];
  MPI_Irecv(&values[0], 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &requests[0]);
  MPI_Irecv(&values[1], 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &requests[1]);
  kept[0]  = requests[0];
  kept[1]  = requests[1];
  int flag = 1, polls = 0;
  while (values[0] == 0 && polls < 100000) { /* the first message lands while the second cannot come */
    MPI_Testall(2, requests, &flag, MPI_STATUSES_IGNORE);
    CHECK(!flag, "testall_true_before_the_second_message");
    CHECK(requests[0] == kept[0] && requests[1] == kept[1], "testall_false_modified_a_request");
    ++polls;
  }
  CHECK(values[0] == 11, "first_message_not_delivered_while_testing");
  MPI_Testall(2, requests, &flag, MPI_STATUSES_IGNORE); /* the first is complete, and still the program's */
  CHECK(!flag && requests[0] == kept[0], "testall_false_after_the_first_completed");
  MPI_Send(&go, 1, MPI_INT, peer, 9, MPI_COMM_WORLD);
  MPI_Status statuses[2];
  MPI_Waitall(2, requests, statuses);
  CHECK(requests[0] == MPI_REQUEST_NULL && requests[1] == MPI_REQUEST_NULL, "waitall_left_a_request");
  CHECK(statuses[0].MPI_SOURCE == peer && statuses[0].MPI_TAG == 1, "first_status");
  CHECK(statuses[1].MPI_SOURCE == peer && statuses[1].MPI_TAG == 2 && values[1] == 22, "second_status");
  int count = 0;
  MPI_Get_count(&statuses[0], MPI_INT, &count);
  CHECK(count == 1, "first_count");

  MPI_Request third;
  MPI_Irecv(&values[2], 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &third);
  MPI_Request kept_third = third;
  MPI_Status status;
  MPI_Request_get_status(third, &flag, &status);
  CHECK(!flag, "get_status_true_before_the_message_was_sent");
  MPI_Send(&go, 1, MPI_INT, peer, 9, MPI_COMM_WORLD);
  for (polls = 0, flag = 0; !flag && polls < 100000; ++polls)
    MPI_Request_get_status(third, &flag, &status);
  CHECK(flag && third == kept_third, "get_status_never_true");
  CHECK(status.MPI_SOURCE == peer && status.MPI_TAG == 3 && values[2] == 33, "get_status_status");
  MPI_Request_get_status(third, &flag, &status); /* again: still complete, still the program's */
  CHECK(flag && status.MPI_TAG == 3, "get_status_again");
  MPI_Wait(&third, &status);
  CHECK(third == MPI_REQUEST_NULL && status.MPI_TAG == 3, "wait_after_get_status");
  /* a nonblocking collective's request (SMPI makes them persistent ones), complete beside a pending receive */
  MPI_Request pair[2], kept_pair[2];
  MPI_Ibarrier(MPI_COMM_WORLD, &pair[0]);
  MPI_Irecv(&values[2], 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &pair[1]);
  kept_pair[0] = pair[0];
  kept_pair[1] = pair[1];
  for (polls = 0, flag = 0; !flag && polls < 100000; ++polls)
    MPI_Request_get_status(pair[0], &flag, MPI_STATUS_IGNORE);
  CHECK(flag && pair[0] == kept_pair[0], "ibarrier_get_status");
  MPI_Testall(2, pair, &flag, MPI_STATUSES_IGNORE);
  CHECK(!flag && pair[0] == kept_pair[0] && pair[1] == kept_pair[1], "testall_false_with_an_ibarrier");
  MPI_Send(&go, 1, MPI_INT, peer, 9, MPI_COMM_WORLD);
  for (polls = 0, flag = 0; !flag && polls < 100000; ++polls)
    MPI_Testall(2, pair, &flag, MPI_STATUSES_IGNORE);
  CHECK(flag && pair[0] == MPI_REQUEST_NULL && pair[1] == MPI_REQUEST_NULL && values[2] == 33,
        "testall_true_with_an_ibarrier");
  printf("completion_queries=1 testall_polls=%d\n", polls);
}

static void persistent_restarts(int rank)
{
  int peer = 1 - rank, value = 0, received = 0, exchanged = 0;
  if (rank == 0) {
    MPI_Datatype duplicate;
    MPI_Type_dup(MPI_INT, &duplicate);
    MPI_Request send;
    MPI_Send_init(&value, 1, duplicate, 1, 0, MPI_COMM_WORLD, &send);
    MPI_Type_free(&duplicate);
    for (int i = 0; i < 16; ++i) {
      value = 100 + i;
      MPI_Start(&send);
      MPI_Wait(&send, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&send);
  } else if (rank == 1) {
    for (int i = 0; i < 16; ++i) {
      MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      received += value == 100 + i;
    }
  }
  if (rank <= 1) {
    int out = 0, in = -1;
    MPI_Request both[2];
    MPI_Send_init(&out, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &both[0]);
    MPI_Recv_init(&in, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &both[1]);
    for (int i = 0; i < 16; ++i) {
      out = rank * 1000 + i;
      MPI_Startall(2, both);
      MPI_Status statuses[2];
      MPI_Waitall(2, both, statuses);
      exchanged += in == peer * 1000 + i && statuses[1].MPI_SOURCE == peer && statuses[1].MPI_TAG == 1;
    }
    CHECK(both[0] != MPI_REQUEST_NULL && both[1] != MPI_REQUEST_NULL, "persistent_kept");
    MPI_Request_free(&both[0]);
    MPI_Request_free(&both[1]);
    /* a started persistent send cancelled: cancelled (smpi) or delivered (OpenMPI's ob1 cannot cancel sends), as the
     * sender's status says and then tells the receiver (MPICH's pscancel; a synchronous one would wait at message for
     * the receive that this message must come before) */
    int payload = 77, cancelled = -1;
    if (rank == 0) {
      MPI_Request send;
      MPI_Send_init(&payload, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &send);
      MPI_Start(&send);
      MPI_Cancel(&send);
      MPI_Status status;
      MPI_Wait(&send, &status);
      MPI_Test_cancelled(&status, &cancelled);
      MPI_Request_free(&send);
      MPI_Send(&cancelled, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
    } else {
      MPI_Recv(&cancelled, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (!cancelled) {
        int got = 0;
        MPI_Recv(&got, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(got == 77, "persistent_cancel_delivered");
      }
    }
    CHECK(cancelled == 0 || cancelled == 1, "persistent_cancel_answered");
  }
  printf("persistent_received=%d persistent_exchanged=%d\n", received, exchanged);
}

/* MPI_Scan and MPI_Exscan with an operation that does not commute, 2x2 integer matrices multiplied in rank order (rank
 * r contributes [[r+1, 1], [1, 0]]), also in place: each rank checks its product against its own computation. */
static void multiply_matrices(void* in, void* inout, int* count, MPI_Datatype* type)
{
  (void)type;
  long* a = in;
  long* b = inout;
  for (int i = 0; i < *count; ++i, a += 4, b += 4) {
    long product[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                       a[2] * b[1] + a[3] * b[3]};
    memcpy(b, product, sizeof product);
  }
}

static void ordered_scans(int rank)
{
  MPI_Op multiply;
  MPI_Op_create(multiply_matrices, 0, &multiply);
  MPI_Datatype matrix;
  MPI_Type_contiguous(4, MPI_LONG, &matrix);
  MPI_Type_commit(&matrix);
  long mine[4] = {rank + 1, 1, 1, 0}, expected[4] = {1, 0, 0, 1}, before[4] = {1, 0, 0, 1};
  for (int r = 0; r <= rank; ++r) {
    long factor[4] = {r + 1, 1, 1, 0};
    int one        = 1;
    if (r == rank)
      memcpy(before, expected, sizeof before);
    multiply_matrices(expected, factor, &one, NULL);
    memcpy(expected, factor, sizeof expected);
  }
  long result[4] = {0};
  MPI_Scan(mine, result, 1, matrix, multiply, MPI_COMM_WORLD);
  CHECK(memcmp(result, expected, sizeof result) == 0, "noncommutative_scan");
  long in_place[4] = {rank + 1, 1, 1, 0};
  MPI_Scan(MPI_IN_PLACE, in_place, 1, matrix, multiply, MPI_COMM_WORLD);
  CHECK(memcmp(in_place, expected, sizeof in_place) == 0, "noncommutative_scan_in_place");
  long exclusive[4] = {0};
  MPI_Exscan(mine, exclusive, 1, matrix, multiply, MPI_COMM_WORLD);
  CHECK(rank == 0 || memcmp(exclusive, before, sizeof exclusive) == 0, "noncommutative_exscan");
  long exclusive_in_place[4] = {rank + 1, 1, 1, 0};
  MPI_Exscan(MPI_IN_PLACE, exclusive_in_place, 1, matrix, multiply, MPI_COMM_WORLD);
  CHECK(rank == 0 || memcmp(exclusive_in_place, before, sizeof exclusive_in_place) == 0,
        "noncommutative_exscan_in_place");
  /* The nonblocking forms: two at once (completed in the other order), one waited for by polling MPI_Test, one in
   * place; the last rank computes before its calls, so the others' chains are under way when it enters */
  if (rank == 3)
    for (volatile long spin = 0; spin < 1000000; spin = spin + 1)
      ;
  long nonblocking[4] = {0}, nonblocking_exclusive[4] = {0};
  MPI_Request requests[2];
  MPI_Iscan(mine, nonblocking, 1, matrix, multiply, MPI_COMM_WORLD, &requests[0]);
  MPI_Iexscan(mine, nonblocking_exclusive, 1, matrix, multiply, MPI_COMM_WORLD, &requests[1]);
  MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
  MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
  CHECK(memcmp(nonblocking, expected, sizeof nonblocking) == 0, "noncommutative_iscan");
  CHECK(rank == 0 || memcmp(nonblocking_exclusive, before, sizeof nonblocking_exclusive) == 0,
        "noncommutative_iexscan");
  long polled[4] = {rank + 1, 1, 1, 0};
  MPI_Request request;
  MPI_Iscan(MPI_IN_PLACE, polled, 1, matrix, multiply, MPI_COMM_WORLD, &request);
  int done = 0, tests = 0;
  while (!done && tests < 1000000) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    ++tests;
  }
  CHECK(done && request == MPI_REQUEST_NULL && memcmp(polled, expected, sizeof polled) == 0,
        "noncommutative_iscan_polled_in_place");
  printf("scan_corner=%ld iscan_corner=%ld\n", result[0], nonblocking[0]);
  MPI_Type_free(&matrix);
  MPI_Op_free(&multiply);
}

/* MPI_BOTTOM as the buffer, the datatype holding absolute addresses (MPICH rma/put_bottom, pt2pt/bottom): by
 * MPI_Send/MPI_Recv, MPI_Isend/MPI_Irecv and MPI_Put/MPI_Get (fence epochs) between ranks 0 and 1, MPI_Bcast and
 * MPI_Ibcast; a null buffer with a count of 0 stays valid. */
static void bottom(int rank)
{
  int values[3] = {0, 0, 0};
  MPI_Aint address;
  MPI_Get_address(values, &address);
  int block = 3;
  MPI_Datatype absolute;
  MPI_Type_create_hindexed(1, &block, &address, MPI_INT, &absolute);
  MPI_Type_commit(&absolute);
  int transfers = 0;
  if (rank == 0) {
    values[0] = 11, values[1] = 12, values[2] = 13;
    CHECK(MPI_Send(MPI_BOTTOM, 1, absolute, 1, 1, MPI_COMM_WORLD) == MPI_SUCCESS, "bottom_send");
    MPI_Request request;
    values[0] = 21, values[1] = 22, values[2] = 23;
    CHECK(MPI_Isend(MPI_BOTTOM, 1, absolute, 1, 2, MPI_COMM_WORLD, &request) == MPI_SUCCESS, "bottom_isend");
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    CHECK(MPI_Send(NULL, 0, MPI_INT, 1, 3, MPI_COMM_WORLD) == MPI_SUCCESS, "null_send");
  } else if (rank == 1) {
    CHECK(MPI_Recv(MPI_BOTTOM, 1, absolute, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS, "bottom_recv");
    CHECK(values[0] == 11 && values[1] == 12 && values[2] == 13, "bottom_recv_data");
    transfers += values[0] == 11 && values[2] == 13;
    MPI_Request request;
    CHECK(MPI_Irecv(MPI_BOTTOM, 1, absolute, 0, 2, MPI_COMM_WORLD, &request) == MPI_SUCCESS, "bottom_irecv");
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    CHECK(values[0] == 21 && values[1] == 22 && values[2] == 23, "bottom_irecv_data");
    transfers += values[0] == 21 && values[2] == 23;
    MPI_Status status;
    CHECK(MPI_Recv(NULL, 0, MPI_INT, 0, 3, MPI_COMM_WORLD, &status) == MPI_SUCCESS, "null_recv");
    int count = -1;
    MPI_Get_count(&status, MPI_INT, &count);
    CHECK(count == 0, "null_recv_count");
  }

  int window[3] = {0, 0, 0};
  MPI_Win win;
  MPI_Win_create(window, sizeof window, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  if (rank == 0) {
    values[0] = 31, values[1] = 32, values[2] = 33;
    CHECK(MPI_Put(MPI_BOTTOM, 1, absolute, 1, 0, 3, MPI_INT, win) == MPI_SUCCESS, "bottom_put");
  }
  MPI_Win_fence(0, win);
  if (rank == 1) {
    CHECK(window[0] == 31 && window[1] == 32 && window[2] == 33, "bottom_put_data");
    transfers += window[0] == 31 && window[2] == 33;
    window[0] = 41, window[1] = 42, window[2] = 43;
  }
  MPI_Win_fence(0, win);
  if (rank == 0) {
    CHECK(MPI_Get(MPI_BOTTOM, 1, absolute, 1, 0, 3, MPI_INT, win) == MPI_SUCCESS, "bottom_get");
  }
  MPI_Win_fence(0, win);
  if (rank == 0) {
    CHECK(values[0] == 41 && values[1] == 42 && values[2] == 43, "bottom_get_data");
    transfers += values[0] == 41 && values[2] == 43;
  }
  /* on one's own window (ARMCI-MPI's vector transfers): SMPI copies those itself, at its MPI_BOTTOM (-111) */
  int self_transfers = 0;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  values[0] = 71 + rank, values[1] = 72, values[2] = 73;
  CHECK(MPI_Put(MPI_BOTTOM, 1, absolute, rank, 0, 3, MPI_INT, win) == MPI_SUCCESS, "bottom_self_put");
  MPI_Win_flush(rank, win);
  values[0] = values[1] = values[2] = 0;
  CHECK(MPI_Get(MPI_BOTTOM, 1, absolute, rank, 0, 3, MPI_INT, win) == MPI_SUCCESS, "bottom_self_get");
  MPI_Win_flush(rank, win);
  self_transfers += window[0] == 71 + rank && window[2] == 73 && values[0] == 71 + rank && values[2] == 73;
  values[0] = values[1] = values[2] = 0;
  CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT, MPI_BOTTOM, 1, absolute, rank, 0, 3, MPI_INT, MPI_NO_OP, win) ==
            MPI_SUCCESS,
        "bottom_self_fetch");
  MPI_Win_unlock(rank, win);
  self_transfers += values[0] == 71 + rank && values[1] == 72 && values[2] == 73;
  printf("bottom_self_transfers=%d\n", self_transfers);
  MPI_Win_free(&win);
  /* collectives: MPI_Bcast and MPI_Ibcast of MPI_BOTTOM (Boost.MPI's broadcast of a skeleton's content) */
  values[0] = rank == 0 ? 51 : 0, values[1] = rank == 0 ? 52 : 0, values[2] = rank == 0 ? 53 : 0;
  CHECK(MPI_Bcast(MPI_BOTTOM, 1, absolute, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "bottom_bcast");
  CHECK(values[0] == 51 && values[1] == 52 && values[2] == 53, "bottom_bcast_data");
  transfers += rank != 0 && values[0] == 51 && values[2] == 53;
  values[0] = rank == 0 ? 61 : 0, values[1] = rank == 0 ? 62 : 0, values[2] = rank == 0 ? 63 : 0;
  MPI_Request broadcast;
  CHECK(MPI_Ibcast(MPI_BOTTOM, 1, absolute, 0, MPI_COMM_WORLD, &broadcast) == MPI_SUCCESS, "bottom_ibcast");
  MPI_Wait(&broadcast, MPI_STATUS_IGNORE);
  CHECK(values[0] == 61 && values[1] == 62 && values[2] == 63, "bottom_ibcast_data");
  transfers += rank != 0 && values[0] == 61 && values[2] == 63;
  MPI_Type_free(&absolute);
  printf("bottom_transfers=%d\n", transfers);
}

/* Globals named like functions of libc (err.h's err and warn, error.h's error), headers this file
 * does not include: in a program started as an executable they are the program's own variables. Each rank
 * writes its own values, then reduces them with a program-defined operation that counts its calls in
 * another such global (MPICH coll/redscat2's `int err`). */
int err   = 0;
int error = 0;
long warn = 0;

static void count_sum(void* in, void* inout, int* count, MPI_Datatype* type)
{
  (void)type;
  ++error;
  for (int i = 0; i < *count; ++i)
    ((int*)inout)[i] += ((int*)in)[i];
}

static void global_names(int rank, int size)
{
  CHECK(err == 0 && error == 0 && warn == 0, "globals_start_at_zero");
  err += rank + 1;
  warn = 3L * rank;
  MPI_Op op;
  MPI_Op_create(count_sum, 1, &op);
  int total = 0;
  MPI_Allreduce(&err, &total, 1, MPI_INT, op, MPI_COMM_WORLD);
  MPI_Op_free(&op);
  CHECK(total == size * (size + 1) / 2, "global_sum");
  CHECK(err == rank + 1 && warn == 3L * rank, "globals_kept");
  printf("err=%d total=%d\n", err, total);
}

/* 20 MPI_Ialltoall, each followed by MPI_Wait (MPICH coll/nonblocking2 on 1 rank). */
static void ialltoall_waits(int rank, int size)
{
  int sent[64], got[64], rounds = 0;
  for (int round = 0; round < 20 && size <= 64; ++round) {
    for (int i = 0; i < size; ++i)
      sent[i] = 1000 * round + 10 * rank + i, got[i] = -1;
    MPI_Request request;
    MPI_Ialltoall(sent, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    int right = 1;
    for (int i = 0; i < size; ++i)
      right &= got[i] == 1000 * round + 10 * i + rank;
    rounds += right;
  }
  printf("ialltoall_rounds=%d\n", rounds);
}

/* 20 rounds of 100 MPI_Iprobe that find nothing (no message is ever sent), then a barrier. */
static void iprobe_loop(void)
{
  int found = 0, iprobes = 0;
  for (int round = 0; round < 20; ++round)
    for (int i = 0; i < 100; ++i, ++iprobes) {
      int flag = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
      found += flag;
    }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("iprobes=%d found=%d\n", iprobes, found);
}

/* Every rank but 0 increments a counter in rank 0's window `increments` times with MPI_Compare_and_swap in
 * shared passive-target epochs (MPI_MODE_NOCHECK, as MPICH rma/linked_list_fop and mcs_mutex.c do), retrying
 * with the value it read until its swap succeeds; rank 0 waits in MPI_Barrier. Each success adds exactly one. */
static void concurrent_cas(int rank, int size)
{
  const int increments = 50;
  int* counter         = NULL;
  MPI_Win win;
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
  *counter = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  int guess = 0, attempts = 0;
  for (int done = 0; rank != 0 && done < increments;) {
    int next = guess + 1, old = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win);
    MPI_Compare_and_swap(&next, &guess, &old, MPI_INT, 0, 0, win);
    MPI_Win_unlock(0, win);
    attempts++;
    if (old == guess) {
      done++;
      guess = next;
    } else
      guess = old;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int final = -1;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Get(&final, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
  MPI_Win_unlock(0, win);
  CHECK(rank == 0 || attempts >= increments, "cas_attempts");
  printf("counter=%d expected=%d\n", final, increments * (size - 1)); /* the test compares them */
  MPI_Win_free(&win);
}

/* Where a window's memory comes from: the file mapped at its base in /proc/self/maps ("anonymous" when none).
 * osc/sm maps a file named by node, job id and communicator id, the same in every run: it must be the run's. */
static void window_segment(void)
{
  char* base = NULL;
  MPI_Win win;
  MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  char line[4096], where[4096] = "anonymous";
  unsigned long start = 0, end = 0;
  FILE* maps = fopen("/proc/self/maps", "r");
  while (maps != NULL && fgets(line, sizeof line, maps) != NULL)
    if (sscanf(line, "%lx-%lx", &start, &end) == 2 && (unsigned long)base >= start && (unsigned long)base < end) {
      char* path = strchr(line, '/');
      if (path != NULL) {
        path[strcspn(path, " \n")] = '\0'; /* " (deleted)" once unlinked */
        snprintf(where, sizeof where, "%s", path);
      }
      break;
    }
  if (maps != NULL)
    fclose(maps);
  CHECK(maps != NULL, "maps_opened");
  MPI_Barrier(MPI_COMM_WORLD);
  printf("segment=%s\n", where);
  MPI_Win_free(&win);
}

/* MPICH f90/datatype/typecntsf90 and createf90types: MPI_Type_get_contents with maxima above the type's
 * envelope (MPI allows it) crashed inside OpenMPI 4.1.4 (open-mpi/ompi#14051). */
static void contents_with_large_maxima(void)
{
  MPI_Datatype vector, inner;
  MPI_Type_vector(3, 2, 5, MPI_INT, &inner);
  MPI_Type_contiguous(4, inner, &vector);
  int integers[16], envelope[4];
  MPI_Aint addresses[16];
  MPI_Datatype types[16];
  MPI_Type_get_envelope(inner, &envelope[0], &envelope[1], &envelope[2], &envelope[3]);
  CHECK(envelope[0] == 3 && envelope[1] == 0 && envelope[2] == 1 && envelope[3] == MPI_COMBINER_VECTOR, "envelope");
  MPI_Type_get_contents(inner, 16, 16, 16, integers, addresses, types);
  CHECK(integers[0] == 3 && integers[1] == 2 && integers[2] == 5 && types[0] == MPI_INT, "vector_contents");
  MPI_Type_get_contents(vector, 16, 16, 16, integers, addresses, types);
  CHECK(integers[0] == 4, "contiguous_count");
  int combiner = 0, n = 0;
  MPI_Type_get_envelope(types[0], &n, &n, &n, &combiner);
  CHECK(combiner == MPI_COMBINER_VECTOR, "inner_type");
  printf("contents=%d,%d,%d\n", 3, 2, 5);
  MPI_Type_free(&types[0]); /* a derived type given back is a new handle */
  MPI_Type_free(&vector);
  MPI_Type_free(&inner);
}

/* Attributes are local to a rank (MPICH attr/fkeyval, attrend, attrend2). SMPI 3.32 has one MPI_COMM_WORLD and one
 * MPI_INT for every rank and keeps attributes in them: MPI_Comm_dup(MPI_COMM_WORLD) on one rank copied, through
 * their own copy functions, the attributes every rank had set, and the last rank's MPI_Finalize deleted them all.
 * Each rank sets its own on MPI_COMM_WORLD, MPI_COMM_SELF and MPI_INT, duplicates them, frees a keyval its
 * attribute still uses, and lets MPI_Finalize delete the rest: MPI_COMM_SELF's first, last set first, MPI
 * still up. MPI_Status_set_elements then MPI_Get_count gave MPI_UNDEFINED at smpi. */
static int my_rank = -1;
static int copies = 0, foreign_copies = 0, deletes = 0, foreign_deletes = 0;
static char finalize_deletes[96] = "";

static int count_copy(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag)
{
  (void)comm, (void)keyval, (void)extra;
  copies++;
  foreign_copies += *(int*)in / 100 != my_rank; /* values are 100 * rank + n */
  *(void**)out = in;
  *flag        = 1;
  return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void* value, void* extra)
{
  (void)comm, (void)keyval, (void)extra;
  deletes++;
  foreign_deletes += *(int*)value / 100 != my_rank;
  return MPI_SUCCESS;
}

static int type_copy(MPI_Datatype type, int keyval, void* extra, void* in, void* out, int* flag)
{
  (void)type;
  return count_copy(MPI_COMM_NULL, keyval, extra, in, out, flag);
}

static int type_delete(MPI_Datatype type, int keyval, void* value, void* extra)
{
  (void)type;
  return count_delete(MPI_COMM_NULL, keyval, value, extra);
}

static int finalize_delete(MPI_Comm comm, int keyval, void* value, void* extra)
{
  (void)keyval, (void)extra;
  int finalized = 1;
  MPI_Finalized(&finalized);
  char entry[16];
  snprintf(entry, sizeof entry, "%s%s%d", finalize_deletes[0] ? "," : "",
           comm == MPI_COMM_SELF    ? "self"
           : comm == MPI_COMM_WORLD ? "world"
                                    : "other",
           *(int*)value % 100);
  strncat(finalize_deletes, entry, sizeof finalize_deletes - strlen(finalize_deletes) - 1);
  if (comm == MPI_COMM_SELF && finalized) /* MPI-3.1 8.7.1; OpenMPI deletes MPI_COMM_WORLD's later */
    strncat(finalize_deletes, "(finalized)", sizeof finalize_deletes - strlen(finalize_deletes) - 1);
  return MPI_SUCCESS;
}

static void attributes_per_rank(int rank)
{
  my_rank = rank;
  static int values[6];
  for (int i = 0; i < 6; ++i)
    values[i] = 100 * rank + i;
  int world_key, type_key, self_first, self_second, world_last;
  MPI_Comm_create_keyval(count_copy, count_delete, &world_key, NULL);
  MPI_Type_create_keyval(type_copy, type_delete, &type_key, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &self_first, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &self_second, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &world_last, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, world_key, &values[0]);
  MPI_Type_set_attr(MPI_INT, type_key, &values[1]);
  MPI_Barrier(MPI_COMM_WORLD); /* every rank has set its own before any looks */
  int *value = NULL, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, world_key, &value, &flag);
  CHECK(flag && value == &values[0], "world_attribute");
  MPI_Type_get_attr(MPI_INT, type_key, &value, &flag);
  CHECK(flag && value == &values[1], "type_attribute");

  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_get_attr(dup, world_key, &value, &flag);
  CHECK(flag && value == &values[0], "dup_attribute");
  MPI_Datatype type;
  MPI_Type_dup(MPI_INT, &type);
  MPI_Type_get_attr(type, type_key, &value, &flag);
  CHECK(flag && value == &values[1], "type_dup_attribute");
  MPI_Comm_free_keyval(&world_key); /* MPI_COMM_WORLD's attribute stays, and is still copied */
  MPI_Comm dup2;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup2);
  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup);
  MPI_Type_free(&type);
  MPI_Type_delete_attr(MPI_INT, type_key);
  MPI_Type_free_keyval(&type_key);
  printf("copies=%d deletes=%d foreign=%d\n", copies, deletes, foreign_copies + foreign_deletes);

  MPI_Comm_set_attr(MPI_COMM_SELF, self_first, &values[2]);
  MPI_Comm_set_attr(MPI_COMM_WORLD, world_last, &values[3]);
  MPI_Comm_set_attr(MPI_COMM_SELF, self_second, &values[4]);

  MPI_Status status;
  int count = -1;
  MPI_Status_set_elements(&status, MPI_INT, 3);
  MPI_Get_count(&status, MPI_INT, &count);
  printf("count=%d\n", count);
}

/* A user operation and an error handler of every rank (MPI_Op_create, MPI_Comm_create_errhandler): each rank's
 * copy of the program has its own address for them, and each took a trampoline of a pool of 512, so the
 * 513th rank's MPI_Op_create ended the run. Each rank's calls must reach its own copy (its own counters). */
static int op_calls = 0;

static void counting_sum(void* in, void* inout, int* length, MPI_Datatype* type)
{
  (void)type;
  op_calls++;
  printf("op_rank=%d\n", my_rank); /* SMPI applies it inside the collective, after other ranks ran */
  for (int i = 0; i < *length; ++i)
    ((int*)inout)[i] += ((int*)in)[i];
}

static void user_functions(int rank, int size)
{
  my_rank = rank;
  MPI_Op op;
  MPI_Op_create(counting_sum, 1, &op);
  int one = 1, local = rank, sum = 0;
  MPI_Reduce_local(&one, &local, 1, MPI_INT, op);
  CHECK(local == rank + 1 && op_calls == 1, "reduce_local");
  MPI_Allreduce(&one, &sum, 1, MPI_INT, op, MPI_COMM_WORLD);
  CHECK(sum == size, "allreduce");
  MPI_Op_free(&op);
  MPI_Errhandler handler;
  MPI_Comm dup;
  MPI_Comm_create_errhandler(comm_handler, &handler);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(dup, handler);
  MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER);
  MPI_Errhandler_free(&handler);
  MPI_Comm_free(&dup);
  printf("sum=%d handler_calls=%d\n", sum, handler_calls);
}

/* MPI_Get_elements (MPICH datatype/get_elements, struct_empty_el): SMPI 3.32 has none (the job ended, exit 55).
 * Rank 0 sends bytes, rank 1 receives them as a struct {int; double[2]} or a vector of ints and counts the
 * basic elements: whole copies, a part of one, or MPI_UNDEFINED when the data ends inside an element. */
static void get_elements(int rank)
{
  int lengths[2]            = {1, 2};
  MPI_Aint displacements[2] = {0, 8};
  MPI_Datatype parts[2]     = {MPI_INT, MPI_DOUBLE}, pair, vector;
  MPI_Type_create_struct(2, lengths, displacements, parts, &pair);
  MPI_Type_commit(&pair);
  MPI_Type_vector(3, 2, 4, MPI_INT, &vector); /* 6 ints, 24 bytes of data */
  MPI_Type_commit(&vector);
  enum { kCases = 5 };
  const int bytes[kCases]    = {20, 12, 14, 36, 0}; /* the struct's data is 4 + 2 x 8 = 20 bytes */
  MPI_Datatype types[kCases] = {pair, pair, pair, vector, vector};
  char buffer[256]           = {0};
  if (rank == 0) {
    for (int i = 0; i < kCases; ++i)
      MPI_Send(buffer, bytes[i], MPI_BYTE, 1, i, MPI_COMM_WORLD);
  } else if (rank == 1) {
    char text[128] = "", counts[128] = "";
    for (int i = 0; i < kCases; ++i) {
      MPI_Status status;
      int elements = -1, count = -1;
      MPI_Recv(buffer, 2, types[i], 0, i, MPI_COMM_WORLD, &status);
      MPI_Get_elements(&status, types[i], &elements);
      MPI_Get_count(&status, types[i], &count);
      snprintf(counts + strlen(counts), sizeof counts - strlen(counts), "%s%d", i ? "," : "",
               count == MPI_UNDEFINED ? -1 : count);
      MPI_Count large = -1;
      MPI_Get_elements_x(&status, types[i], &large);
      CHECK(large == elements, "get_elements_x");
      snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d", i ? "," : "",
               elements == MPI_UNDEFINED ? -1 : elements);
    }
    printf("elements=%s counts=%s\n", text, counts);
  }
  MPI_Type_free(&pair);
  MPI_Type_free(&vector);
}

/* Completion calls on MPI_REQUEST_NULL with the status ignored (HPCC's MPIRandomAccess tests its null send
 * request before its first send): MPI says flag = true. SMPI 3.32's MPI_Test left the flag unset, the loop
 * never sent, and the run never ended at smpi. */
static void null_requests(void)
{
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int test = -5, any = -5, index = -5, all = -5, some = -5, indices[2], status = -5;
  MPI_Test(&requests[0], &test, MPI_STATUS_IGNORE);
  MPI_Testany(2, requests, &index, &any, MPI_STATUS_IGNORE);
  CHECK(index == MPI_UNDEFINED, "testany_index");
  MPI_Testall(2, requests, &all, MPI_STATUSES_IGNORE);
  MPI_Testsome(2, requests, &some, indices, MPI_STATUSES_IGNORE);
  CHECK(some == MPI_UNDEFINED, "testsome_outcount");
  MPI_Request_get_status(MPI_REQUEST_NULL, &status, MPI_STATUS_IGNORE);
  MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
  MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);
  CHECK(index == MPI_UNDEFINED, "waitany_index");
  printf("test=%d testany=%d testall=%d get_status=%d\n", test, any, all, status);
}

/* Nonblocking MPI-IO (the HLRS suite's file tests): each rank writes its block of a shared file with
 * MPI_File_iwrite_at and waits, then reads its neighbour's block back with MPI_File_iread_at and waits.
 * OpenMPI's ompio posts POSIX aio requests that glibc ran on a thread of its own: the waiting rank found no
 * Portals event and blocked (a reported deadlock). */
/* A nonblocking write through a view of 10 x 2048 pieces: OMPIO's fbtl/posix posts one asynchronous request per
 * piece, 2048 per progress round, with no Portals traffic in between (HDF5's t_bigio blocked for ever in MPI_Wait). */
static void file_many_pieces(int rank, const char* path)
{
  enum { kPieces = 10 * 2048 };
  static long long values[kPieces];
  for (int i = 0; i < kPieces; ++i)
    values[i] = rank * kPieces + i;
  char name[256];
  snprintf(name, sizeof name, "%s-pieces-%d", path, rank);
  MPI_Datatype every_other;
  MPI_Type_vector(kPieces, 1, 2, MPI_LONG_LONG, &every_other);
  MPI_Type_commit(&every_other);
  MPI_File file;
  MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &file);
  MPI_File_set_view(file, 0, MPI_LONG_LONG, every_other, "native", MPI_INFO_NULL);
  MPI_Request request;
  MPI_File_iwrite_at(file, 0, values, kPieces, MPI_LONG_LONG, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_File_set_view(file, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
  int wrong = 0;
  for (int i = 0; i < kPieces; i += 997) {
    long long value = -1;
    MPI_File_read_at(file, (MPI_Offset)i * 16, &value, 8, MPI_BYTE, MPI_STATUS_IGNORE);
    wrong += value != rank * kPieces + i;
  }
  MPI_File_close(&file);
  MPI_Type_free(&every_other);
  printf("pieces_wrong=%d\n", wrong);
}

static void file_nonblocking(int rank, int size, const char* path)
{
  enum { kInts = 1000 };
  static int mine[kInts], theirs[kInts];
  for (int i = 0; i < kInts; ++i)
    mine[i] = rank * kInts + i;
  MPI_File file;
  MPI_Request request;
  MPI_Status status;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &file);
  MPI_File_iwrite_at(file, (MPI_Offset)rank * (MPI_Offset)sizeof mine, mine, kInts, MPI_INT, &request);
  MPI_Wait(&request, &status);
  int written = -1;
  MPI_Get_count(&status, MPI_INT, &written);
  MPI_Barrier(MPI_COMM_WORLD);
  int next = (rank + 1) % size;
  MPI_File_iread_at(file, (MPI_Offset)next * (MPI_Offset)sizeof theirs, theirs, kInts, MPI_INT, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  int wrong = 0;
  for (int i = 0; i < kInts; ++i)
    wrong += theirs[i] != next * kInts + i;
  MPI_File_close(&file);
  printf("written=%d wrong=%d\n", written, wrong);
  file_many_pieces(rank, path);
}

/* A failed MPI_File_open hands back MPI_FILE_NULL (the HLRS suite tests it, then stops; at smpi the handle was
 * left as it was, and the suite went on writing through it). */
static void file_open_failure(void)
{
  MPI_File file = (MPI_File)0x1234; /* garbage, as in a program's uninitialised variable */
  int result =
      MPI_File_open(MPI_COMM_SELF, "/nonexistent-folder-of-bxisim/file", MPI_MODE_RDONLY, MPI_INFO_NULL, &file);
  printf("failed=%d null=%d\n", result != MPI_SUCCESS, file == MPI_FILE_NULL);
}

/* MPI_DISPLACEMENT_CURRENT (its value differs between ABIs): in a sequential file's view it is the shared file
 * pointer; in another file's, an error. */
static void displacement_current(int rank, int size, const char* name)
{
  char sequential[256], plain[256], representation[MPI_MAX_DATAREP_STRING];
  snprintf(sequential, sizeof sequential, "%s-sequential", name);
  snprintf(plain, sizeof plain, "%s-plain", name);
  MPI_File file;
  MPI_Datatype etype, filetype;
  MPI_Offset displacement = -7;
  int value = rank, plain_class = 0;
  MPI_File_open(MPI_COMM_WORLD, sequential, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL,
                &file);
  MPI_File_write_ordered(file, &value, 1, MPI_INT, MPI_STATUS_IGNORE);
  int set = MPI_File_set_view(file, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
  MPI_File_get_view(file, &displacement, &etype, &filetype, representation);
  MPI_File_close(&file);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    MPI_File_delete(sequential, MPI_INFO_NULL);
  MPI_File_open(MPI_COMM_WORLD, plain, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                &file);
  MPI_Error_class(MPI_File_set_view(file, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL),
                  &plain_class);
  MPI_File_close(&file);
  printf("set=%d displacement=%lld expected=%d plain_refused=%d\n", set, (long long)displacement,
         size * (int)sizeof(int), plain_class != MPI_SUCCESS);
}

/* Derived datatypes have MPI's bounds (as OpenMPI computes them) and several elements of one are laid out an
 * extent apart at every level: SMPI 3.32 gave {int, char} an extent of 5, a negative-stride vector a negative
 * extent, a subarray the extent of its data, and ignored a resized part's bounds. Rank 0 sends three elements of
 * each type to rank 1, which receives them with the same type into a buffer of marked bytes. */
struct Layout {
  const char* name;
  MPI_Datatype type;
  MPI_Aint lb, extent, true_lb, true_extent;
  int blocks; /* the type map, in bytes from an element's start */
  MPI_Aint offset[2], length[2];
};

static void check_layout(int rank, const struct Layout* layout)
{
  enum { kBytes = 512, kBase = 256, kCount = 3 };
  unsigned char sent[kBytes], got[kBytes];
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  MPI_Type_get_extent(layout->type, &lb, &extent);
  MPI_Type_get_true_extent(layout->type, &true_lb, &true_extent);
  if (lb != layout->lb || extent != layout->extent || true_lb != layout->true_lb ||
      true_extent != layout->true_extent) {
    printf("bad_bounds_%s=%ld,%ld,%ld,%ld\n", layout->name, (long)lb, (long)extent, (long)true_lb, (long)true_extent);
    errors++;
  }
  for (int i = 0; i < kBytes; ++i) {
    sent[i] = (unsigned char)(i % 251 + 1);
    got[i]  = 0;
  }
  if (rank == 0)
    MPI_Send(sent + kBase, kCount, layout->type, 1, 0, MPI_COMM_WORLD);
  else if (rank == 1) {
    MPI_Recv(got + kBase, kCount, layout->type, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    unsigned char expected[kBytes] = {0};
    for (int element = 0; element < kCount; ++element)
      for (int block = 0; block < layout->blocks; ++block)
        for (MPI_Aint byte = 0; byte < layout->length[block]; ++byte) {
          MPI_Aint at  = kBase + element * layout->extent + layout->offset[block] + byte;
          expected[at] = sent[at];
        }
    int wrong = 0;
    for (int i = 0; i < kBytes; ++i)
      wrong += got[i] != expected[i];
    if (wrong != 0) {
      printf("bad_layout_%s=%d\n", layout->name, wrong);
      errors++;
    }
  }
}

/* The C struct {double, int} of a MAXLOC-like reduction: 16 bytes, its type's extent must be too. */
struct ValueAndRank {
  double value;
  int rank;
};

static void larger_value(void* in, void* inout, int* length, MPI_Datatype* type)
{
  (void)type;
  struct ValueAndRank* from = in;
  struct ValueAndRank* into = inout;
  for (int i = 0; i < *length; ++i)
    if (from[i].value > into[i].value)
      into[i] = from[i];
}

static void reduce_padded_structs(int rank, int size)
{
  int lengths[2]        = {1, 1};
  MPI_Aint places[2]    = {offsetof(struct ValueAndRank, value), offsetof(struct ValueAndRank, rank)};
  MPI_Datatype parts[2] = {MPI_DOUBLE, MPI_INT}, pair;
  MPI_Type_create_struct(2, lengths, places, parts, &pair);
  MPI_Type_commit(&pair);
  MPI_Op larger;
  MPI_Op_create(larger_value, 1, &larger);
  enum { kCount = 3 };
  struct ValueAndRank mine[kCount], largest[kCount];
  for (int i = 0; i < kCount; ++i) {
    mine[i].value = (i + rank) % size; /* element i is largest on rank size - 1 - i (mod size) */
    mine[i].rank  = rank;
  }
  MPI_Allreduce(mine, largest, kCount, pair, larger, MPI_COMM_WORLD);
  for (int i = 0; i < kCount; ++i)
    CHECK(largest[i].value == size - 1 && largest[i].rank == ((size - 1 - i) % size + size) % size,
          "padded_struct_reduction");
  MPI_Op_free(&larger);
  MPI_Type_free(&pair);
}

/* An accumulate into two elements of an indexed type whose blocks go backwards: SMPI applies the operation to every
 * block of the type it is given, bxisim's own wrapper included. */
static void accumulate_backwards(int rank)
{
  int window[8] = {0}, values[4] = {1, 2, 3, 4};
  MPI_Win win;
  MPI_Win_create(window, sizeof window, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int lengths[2] = {1, 1}, displacements[2] = {2, 0};
  MPI_Datatype backwards;
  MPI_Type_indexed(2, lengths, displacements, MPI_INT, &backwards);
  MPI_Type_commit(&backwards);
  MPI_Win_fence(0, win);
  if (rank == 1)
    MPI_Accumulate(values, 4, MPI_INT, 0, 0, 2, backwards, MPI_SUM, win);
  MPI_Win_fence(0, win);
  const int expected[8] = {2, 0, 1, 4, 0, 3, 0, 0}; /* element 0 at 0 (ints 2, 0), element 1 at 3 (ints 5, 3) */
  if (rank == 0)
    for (int i = 0; i < 8; ++i)
      CHECK(window[i] == expected[i], "accumulate_backwards");
  /* one element of a vector with a negative stride (bounds SMPI takes from MPI_LB and MPI_UB markers) */
  MPI_Datatype negative;
  MPI_Type_vector(2, 1, -3, MPI_INT, &negative);
  MPI_Type_commit(&negative);
  MPI_Win_fence(0, win);
  if (rank == 1)
    MPI_Accumulate(values, 2, MPI_INT, 0, 6, 1, negative, MPI_SUM, win);
  MPI_Win_fence(0, win);
  if (rank == 0)
    CHECK(window[6] == 1 && window[3] == 4 + 2, "accumulate_negative_stride");
  MPI_Win_free(&win);
  MPI_Type_free(&negative);
  MPI_Type_free(&backwards);
}

/* ARMCI-MPI's strided accumulates: targets of derived types whose parts SMPI 3.32 cannot apply an operation to (a
 * subarray's and a resized type's MPI_LB/MPI_UB markers, a vector whose blocks touch), several elements of them, a
 * derived origin, a fetch of the old values by MPI_Get_accumulate, and MPI_MAXLOC on pairs. Rank 1 adds into rank
 * 0's window of two 6 x 6 arrays. */
static void derived_accumulates(int rank)
{
  double window[72] = {0}, ones[72], sevens[6], fetched[6] = {0};
  for (int i = 0; i < 72; ++i)
    ones[i] = 1;
  for (int i = 0; i < 6; ++i)
    sevens[i] = 7;
  MPI_Win win;
  MPI_Win_create(window, sizeof window, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int sizes[2] = {6, 6}, subsizes[2] = {2, 3}, starts[2] = {1, 2};
  MPI_Datatype block, touching, every_other, pairs;
  MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &block); /* rows 1-2, columns 2-4 */
  MPI_Type_vector(2, 2, 2, MPI_DOUBLE, &touching);                                       /* 4 doubles in a row */
  MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &every_other);
  MPI_Type_contiguous(2, MPI_2INT, &pairs);
  MPI_Type_commit(&block);
  MPI_Type_commit(&touching);
  MPI_Type_commit(&every_other);
  MPI_Type_commit(&pairs);
  MPI_Win_fence(0, win);
  if (rank == 1) {
    MPI_Accumulate(ones, 6, MPI_DOUBLE, 0, 0, 1, block, MPI_SUM, win);
    MPI_Accumulate(ones, 12, MPI_DOUBLE, 0, 0, 2, block, MPI_SUM, win); /* the second copy in the second array */
    MPI_Accumulate(ones, 1, block, 0, 36, 1, block, MPI_SUM, win);
    MPI_Accumulate(ones, 8, MPI_DOUBLE, 0, 24, 2, touching, MPI_SUM, win);
    MPI_Accumulate(ones, 3, MPI_DOUBLE, 0, 0, 3, every_other, MPI_SUM, win);
  }
  MPI_Win_fence(0, win);
  if (rank == 1) {
    MPI_Get_accumulate(ones, 6, MPI_DOUBLE, fetched, 6, MPI_DOUBLE, 0, 0, 1, block, MPI_SUM, win);
    MPI_Accumulate(sevens, 6, MPI_DOUBLE, 0, 24, 1, block, MPI_REPLACE, win); /* SMPI copies bytes for MPI_REPLACE */
  }
  MPI_Win_fence(0, win);
  double expected[72] = {0};
  for (int r = 1; r <= 2; ++r)
    for (int c = 2; c <= 4; ++c) {
      expected[r * 6 + c]      = 3; /* the first array's block: two accumulates and the fetch's */
      expected[36 + r * 6 + c] = 2; /* the second's: the second copy and the derived origin's */
      expected[24 + r * 6 + c] = 7; /* rows 5 and 6, replaced */
    }
  for (int i = 24; i < 32; ++i)
    expected[i] += 1;
  for (int i = 0; i < 6; i += 2)
    expected[i] += 1;
  if (rank == 0)
    for (int i = 0; i < 72; ++i)
      CHECK(window[i] == expected[i], "derived_accumulate");
  if (rank == 1)
    for (int i = 0; i < 6; ++i)
      CHECK(fetched[i] == 2, "derived_get_accumulate");
  /* MPI_MAXLOC: the larger value of each pair and its index (the lower index of equal values) */
  int mine[4] = {rank, 10 + rank, 5 - rank, 20 + rank}, best[4] = {0, 0, 0, 0};
  MPI_Win pair_win;
  MPI_Win_create(best, sizeof best, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &pair_win);
  MPI_Win_fence(0, pair_win);
  MPI_Accumulate(mine, 1, pairs, 0, 0, 1, pairs, MPI_MAXLOC, pair_win);
  MPI_Win_fence(0, pair_win);
  if (rank == 0)
    CHECK(best[0] == 1 && best[1] == 11 && best[2] == 5 && best[3] == 20, "derived_maxloc");
  MPI_Win_free(&pair_win);
  printf("derived_accumulates_ok=%d\n", errors == 0);
  MPI_Win_free(&win);
  MPI_Type_free(&pairs);
  MPI_Type_free(&every_other);
  MPI_Type_free(&touching);
  MPI_Type_free(&block);
}

/* ARMCI-MPI's mutexes (test_mutex_rmw): an exclusive lock orders the epochs on a window. Rank 2 waits for the lock
 * rank 1 holds while rank 1 puts 1 MiB into rank 0's window and gets 64 KiB of it; when rank 2 gets the lock, the put
 * is there. SMPI 3.32 released the lock before completing the epoch's operations: rank 2 had it 1 us later, while the
 * put was under way, and read the old data. */
static void exclusive_lock_order(int rank)
{
  enum { kCount = 1 << 17, kBack = 1 << 13 };
  static double window[kCount], ones[kCount], back[kBack];
  for (int i = 0; i < kCount; ++i)
    ones[i] = 1, window[i] = 0;
  MPI_Win win;
  MPI_Win_create(window, rank == 0 ? sizeof window : 0, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  double last = -1;
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Send(NULL, 0, MPI_INT, 2, 1, MPI_COMM_WORLD);
    MPI_Put(ones, kCount, MPI_DOUBLE, 0, 0, kCount, MPI_DOUBLE, win);
    MPI_Get(back, kBack, MPI_DOUBLE, 0, 0, kBack, MPI_DOUBLE, win);
    MPI_Win_unlock(0, win);
  } else if (rank == 2) {
    MPI_Recv(NULL, 0, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Get(&last, 1, MPI_DOUBLE, 0, kCount - 1, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(0, win);
    CHECK(last == 1, "exclusive_lock_order");
  }
  printf("after_lock=%g\n", last);
  MPI_Win_free(&win);
}

/* OpenCoarrays' EVENT WAIT holds a shared lock while EVENT POST takes exclusive ones. Rank 1 holds a shared lock of
 * rank 0's window while rank 3 takes another (both held at once), then rank 2 asks for an exclusive one: it must wait
 * until both are given up, so rank 1's 20 reads all see 0. Then every rank adds 1 under an exclusive lock (a lock
 * left stuck by the mix would end in a deadlock), and all lock every target at once while rank 2 adds 1 to rank 1's
 * window under an exclusive lock. SMPI 3.32 granted the exclusive lock at once and reset the others' mode. */
static void mixed_lock_modes(int rank, int size)
{
  static double value;
  double seen = -1, ones = 1;
  int token = 0, unchanged = 1;
  MPI_Win win;
  value = 0;
  MPI_Win_create(&value, sizeof value, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Send(&token, 1, MPI_INT, 3, 0, MPI_COMM_WORLD);
    MPI_Recv(&token, 1, MPI_INT, 3, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* rank 3 holds its shared lock */
    MPI_Send(&token, 1, MPI_INT, 2, 0, MPI_COMM_WORLD);
    for (int i = 0; i < 20; ++i) {
      MPI_Get(&seen, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
      MPI_Win_flush(0, win);
      unchanged &= seen == 0;
    }
    MPI_Win_unlock(0, win);
    CHECK(unchanged, "shared_reads_changed_under_an_exclusive_lock");
    printf("shared_reads_unchanged=%d\n", unchanged);
  } else if (rank == 3) {
    MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    MPI_Get(&seen, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(0, win);
  } else if (rank == 2) {
    MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(&ones, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
  MPI_Accumulate(&ones, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, win);
  MPI_Win_unlock(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 2) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Accumulate(&ones, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, MPI_SUM, win);
    MPI_Win_unlock(1, win);
  }
  double all[16];
  MPI_Win_lock_all(0, win);
  for (int target = 0; target < size && target < 16; ++target)
    MPI_Get(&all[target], 1, MPI_DOUBLE, target, 0, 1, MPI_DOUBLE, win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
  seen = value;
  MPI_Win_unlock(rank, win);
  printf("own_value=%g\n", seen);
  MPI_Win_free(&win);
}

/* Erroneous epochs (MPI-3.1 11.5.3: MPI_Win_unlock ends a lock of MPI_Win_lock, MPI_Win_unlock_all one of
 * MPI_Win_lock_all) fail with MPI_ERR_RMA_SYNC under MPI_ERRORS_RETURN and leave the locks usable: an exclusive lock
 * released as a shared one stayed taken, and every later lock of the target waited for ever. */
static void mismatched_unlocks(int rank, int size)
{
  static int value;
  MPI_Win win;
  MPI_Win_create(&value, sizeof value, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int error_class = 0;
  MPI_Win_lock_all(0, win);
  MPI_Error_class(MPI_Win_unlock(0, win), &error_class);
  printf("unlock_in_lock_all=%d\n", error_class == MPI_ERR_RMA_SYNC);
  MPI_Win_unlock_all(win);
  for (int target = 0; target < size; ++target)
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
  MPI_Error_class(MPI_Win_unlock_all(win), &error_class);
  printf("unlock_all_of_locks=%d\n", error_class == MPI_ERR_RMA_SYNC);
  for (int target = 0; target < size; ++target)
    MPI_Win_unlock(target, win);
  MPI_Barrier(MPI_COMM_WORLD);
  int one = 1;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win); /* every rank: waited for ever after the mismatch */
  MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_unlock(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("sum=%d\n", value);
  MPI_Win_free(&win);
}

static void datatype_layout(int rank, int size)
{
  MPI_Datatype int_char, negative_vector, subarray, resized_int, sticky, indexed, hindexed, vector_of_structs;
  int lengths[2]        = {1, 1};
  MPI_Aint places[2]    = {0, 4};
  MPI_Datatype parts[2] = {MPI_INT, MPI_CHAR};
  MPI_Type_create_struct(2, lengths, places, parts, &int_char);
  MPI_Type_vector(2, 1, -3, MPI_INT, &negative_vector);
  int sizes[1] = {10}, subsizes[1] = {2}, starts[1] = {3};
  MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &subarray);
  { /* a part's handle from MPI_Type_get_contents, freed, leaves the part as it was (SMPI's bounds were back) */
    MPI_Datatype pair_of_subarrays, part = MPI_DATATYPE_NULL;
    int integers, addresses, types, combiner, counts[4], one;
    MPI_Aint lb, extent, places[4];
    MPI_Type_contiguous(2, subarray, &pair_of_subarrays);
    MPI_Type_get_envelope(pair_of_subarrays, &integers, &addresses, &types, &combiner);
    if (integers <= 4 && addresses <= 4 && types == 1) {
      MPI_Type_get_contents(pair_of_subarrays, integers, addresses, types, counts, places, &part);
      MPI_Type_free(&part);
    }
    MPI_Type_free(&pair_of_subarrays);
    MPI_Type_get_extent(subarray, &lb, &extent);
    MPI_Type_size(subarray, &one);
    CHECK(types == 1 && lb == 0 && extent == 10 * (MPI_Aint)sizeof(int) && one == 2 * (int)sizeof(int),
          "contents_part_freed");
  }
  MPI_Type_create_resized(MPI_INT, 0, 6, &resized_int);
  MPI_Datatype sticky_parts[2] = {resized_int, MPI_CHAR};
  MPI_Aint sticky_places[2]    = {0, 6};
  MPI_Type_create_struct(2, lengths, sticky_places, sticky_parts, &sticky);
  int displacements[2] = {2, 0};
  MPI_Type_indexed(2, lengths, displacements, MPI_INT, &indexed);
  MPI_Aint byte_places[2] = {0, 5};
  MPI_Type_create_hindexed(2, lengths, byte_places, MPI_INT, &hindexed);
  MPI_Type_vector(2, 1, 2, int_char, &vector_of_structs);
  MPI_Datatype struct_backwards, two_ints[2] = {MPI_INT, MPI_INT};
  MPI_Aint backwards_places[2] = {4, 0};
  MPI_Type_create_struct(2, lengths, backwards_places, two_ints, &struct_backwards);
  struct Layout layouts[] = {
      {"int_char", int_char, 0, 8, 0, 5, 2, {0, 4}, {4, 1}},
      {"negative_vector", negative_vector, -12, 16, -12, 16, 2, {0, -12}, {4, 4}},
      {"subarray", subarray, 0, 40, 12, 8, 1, {12, 0}, {8, 0}},
      {"sticky_resized_part", sticky, 0, 6, 0, 7, 2, {0, 6}, {4, 1}},
      {"indexed_backwards", indexed, 0, 12, 0, 12, 2, {8, 0}, {4, 4}},
      {"hindexed_padded", hindexed, 0, 12, 0, 9, 2, {0, 5}, {4, 4}},
      {"struct_backwards", struct_backwards, 0, 8, 0, 8, 2, {4, 0}, {4, 4}},
  };
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; ++i) {
    MPI_Type_commit(&layouts[i].type);
    check_layout(rank, &layouts[i]);
  }
  /* a vector of padded structs: two blocks of {int, char}, 16 bytes apart */
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(vector_of_structs, &lb, &extent);
  CHECK(lb == 0 && extent == 24, "vector_of_structs_extent");
  /* the struct under bxisim's layout still describes itself as the program made it */
  int integers = 0, addresses = 0, types = 0, combiner = 0;
  MPI_Type_get_envelope(int_char, &integers, &addresses, &types, &combiner);
  CHECK(combiner == MPI_COMBINER_STRUCT && integers == 3 && addresses == 2 && types == 2, "struct_envelope");
  int got_integers[3];
  MPI_Aint got_addresses[2];
  MPI_Datatype got_types[2];
  MPI_Type_get_contents(int_char, 3, 2, 2, got_integers, got_addresses, got_types);
  CHECK(got_addresses[1] == 4 && got_types[0] == MPI_INT && got_types[1] == MPI_CHAR, "struct_contents");
  /* the indexed-block constructors describe themselves as such (SMPI said indexed) */
  MPI_Datatype blocks, byte_blocks;
  int block_places[2]     = {1, 4};
  MPI_Aint block_bytes[3] = {0, 16, 40};
  MPI_Type_create_indexed_block(2, 1, block_places, MPI_DOUBLE, &blocks);
  MPI_Type_create_hindexed_block(3, 2, block_bytes, MPI_INT, &byte_blocks);
  MPI_Type_get_envelope(blocks, &integers, &addresses, &types, &combiner);
  CHECK(combiner == MPI_COMBINER_INDEXED_BLOCK && integers == 4 && addresses == 0 && types == 1,
        "indexed_block_envelope");
  int block_integers[4] = {0};
  MPI_Type_get_contents(blocks, 4, 0, 1, block_integers, got_addresses, got_types);
  CHECK(block_integers[0] == 2 && block_integers[1] == 1 && block_integers[3] == 4 && got_types[0] == MPI_DOUBLE,
        "indexed_block_contents");
  MPI_Type_get_envelope(byte_blocks, &integers, &addresses, &types, &combiner);
  CHECK(combiner == MPI_COMBINER_HINDEXED_BLOCK && integers == 2 && addresses == 3 && types == 1,
        "hindexed_block_envelope");
  MPI_Aint byte_addresses[3] = {0};
  MPI_Type_get_contents(byte_blocks, 2, 3, 1, block_integers, byte_addresses, got_types);
  CHECK(block_integers[0] == 3 && block_integers[1] == 2 && byte_addresses[2] == 40 && got_types[0] == MPI_INT,
        "hindexed_block_contents");
  MPI_Type_free(&blocks);
  MPI_Type_free(&byte_blocks);
  MPI_Datatype dup;
  MPI_Type_dup(int_char, &dup);
  MPI_Type_get_extent(dup, &lb, &extent);
  CHECK(lb == 0 && extent == 8, "dup_extent");
  MPI_Type_free(&dup);
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; ++i)
    MPI_Type_free(&layouts[i].type);
  MPI_Type_free(&resized_int);
  MPI_Type_free(&vector_of_structs);
  reduce_padded_structs(rank, size);
  accumulate_backwards(rank);
  /* predefined datatypes have their MPI names at every level (the back ends named MPI_REAL "MPI_FLOAT" or
   * MPI_LOGICAL1 "MPI_UINT8_T"), and a name the program gives one is kept */
  const struct {
    MPI_Datatype type;
    const char* name;
  } names[] = {{MPI_REAL, "MPI_REAL"},
               {MPI_2REAL, "MPI_2REAL"},
               {MPI_LOGICAL1, "MPI_LOGICAL1"},
               {MPI_INTEGER4, "MPI_INTEGER4"},
               {MPI_C_COMPLEX, "MPI_C_COMPLEX"},
               {MPI_LONG_LONG, "MPI_LONG_LONG_INT"},
               {MPI_DOUBLE_INT, "MPI_DOUBLE_INT"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    char name[MPI_MAX_OBJECT_NAME] = "";
    int length                     = 0;
    MPI_Type_get_name(names[i].type, name, &length);
    if (strcmp(name, names[i].name) != 0 || length != (int)strlen(names[i].name)) {
      printf("bad_name_%s=%s\n", names[i].name, name);
      errors++;
    }
  }
  /* MPI_Type_match_size at every level (OpenMPI's build answered MPI_ERR_ARG, SMPI has none: ScaLAPACK's BLACS) */
  const int classes[3]        = {MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_REAL, MPI_TYPECLASS_COMPLEX};
  const int match_sizes[3][3] = {{1, 4, 8}, {4, 8, 16}, {8, 16, 32}};
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 3; ++i) {
      MPI_Datatype matched = MPI_DATATYPE_NULL;
      int matched_size     = -1;
      MPI_Type_match_size(classes[c], match_sizes[c][i], &matched);
      MPI_Type_size(matched, &matched_size);
      CHECK(matched_size == match_sizes[c][i], "match_size");
    }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype no_match = MPI_DATATYPE_NULL;
  CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &no_match) == MPI_ERR_ARG, "match_size_none");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  /* packing a type without data (SMPI 3.32 divided by its size: BLACS packs an empty matrix so) */
  MPI_Datatype empty_columns;
  MPI_Type_vector(3, 0, 4, MPI_INT, &empty_columns);
  MPI_Type_commit(&empty_columns);
  int ints[16] = {0}, position = 0;
  char packed[64];
  MPI_Pack(ints, 1, empty_columns, packed, (int)sizeof packed, &position, MPI_COMM_WORLD);
  MPI_Unpack(packed, (int)sizeof packed, &position, ints, 1, empty_columns, MPI_COMM_WORLD);
  CHECK(position == 0, "pack_empty");
  MPI_Type_free(&empty_columns);
  char renamed[MPI_MAX_OBJECT_NAME] = "";
  int renamed_length                = 0;
  MPI_Type_set_name(MPI_SHORT, "my_short");
  MPI_Type_get_name(MPI_SHORT, renamed, &renamed_length);
  CHECK(strcmp(renamed, "my_short") == 0, "renamed_predefined");
  printf("layouts_checked=%d\n", (int)(sizeof layouts / sizeof layouts[0]));
}

/* Nonblocking reductions and all-to-alls with MPI_IN_PLACE (SMPI 3.32 sent from a copy it freed when the call
 * returned: wrong data at smpi). Large enough for the freed memory to be reused before the data leave. */
static void in_place_nonblocking(int rank, int size)
{
  enum { kInts = 65536 };
  static int data[kInts];
  MPI_Request requests[4];
  int wrong = 0;
  for (int i = 0; i < kInts; ++i)
    data[i] = rank + i;
  MPI_Iallreduce(MPI_IN_PLACE, data, kInts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[0]);
  MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
  for (int i = 0; i < kInts; ++i)
    wrong += data[i] != size * (size - 1) / 2 + size * i;
  int per_rank = kInts / size;
  for (int i = 0; i < kInts; ++i)
    data[i] = rank * kInts + i; /* block j goes to rank j */
  MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data, per_rank, MPI_INT, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(1, &requests[1], MPI_STATUSES_IGNORE);
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < per_rank; ++i)
      wrong += data[j * per_rank + i] != j * kInts + rank * per_rank + i;
  int counts[64], displacements[64];
  for (int j = 0; j < size && j < 64; ++j) {
    counts[j]        = per_rank;
    displacements[j] = j * per_rank;
  }
  for (int i = 0; i < kInts; ++i)
    data[i] = rank * kInts + i;
  MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, data, counts, displacements, MPI_INT, MPI_COMM_WORLD,
                 &requests[3]);
  MPI_Wait(&requests[3], MPI_STATUS_IGNORE);
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < per_rank; ++i)
      wrong += data[j * per_rank + i] != j * kInts + rank * per_rank + i;
  MPI_Datatype types[64];
  for (int j = 0; j < size && j < 64; ++j) {
    types[j] = MPI_INT;
    displacements[j] *= (int)sizeof(int); /* bytes, for MPI_Ialltoallw */
  }
  for (int i = 0; i < kInts; ++i)
    data[i] = rank * kInts + i;
  MPI_Ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, data, counts, displacements, types, MPI_COMM_WORLD, &requests[3]);
  MPI_Wait(&requests[3], MPI_STATUS_IGNORE);
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < per_rank; ++i)
      wrong += data[j * per_rank + i] != j * kInts + rank * per_rank + i;
  for (int i = 0; i < kInts; ++i)
    data[i] = rank + 1;
  MPI_Iscan(MPI_IN_PLACE, data, kInts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &requests[2]);
  int done = 0;
  while (!done)
    MPI_Test(&requests[2], &done, MPI_STATUS_IGNORE);
  for (int i = 0; i < kInts; ++i)
    wrong += data[i] != (rank + 1) * (rank + 2) / 2;
  printf("in_place_wrong=%d\n", wrong);
}

/* A status whose count is beyond an int of bytes (MPI_Status_set_elements_x): SMPI's statuses hold bytes in an
 * int, and at smpi the call failed unnoticed and MPI_Get_count answered 1 (ompi-tests-public status/). */
static void status_big_count(void)
{
  MPI_Status status;
  MPI_Count elements = 0;
  int count          = 0, result;
  result             = MPI_Status_set_elements_x(&status, MPI_INT, (MPI_Count)536870922);
  MPI_Get_count(&status, MPI_INT, &count);
  MPI_Get_elements_x(&status, MPI_INT, &elements);
  printf("set=%d count=%d elements=%lld", result, count, (long long)elements);
  MPI_Status_set_elements_x(&status, MPI_INT, (MPI_Count)1 << 31); /* more elements than an int */
  MPI_Get_count(&status, MPI_INT, &count);
  MPI_Get_elements_x(&status, MPI_INT, &elements);
  printf(" huge_count_undefined=%d huge_elements=%lld", count == MPI_UNDEFINED, (long long)elements);
  MPI_Status_set_elements_x(&status, MPI_INT, 7);
  MPI_Get_count(&status, MPI_INT, &count);
  printf(" small=%d\n", count);
}

/* The node a rank runs on, as MPI tells it: its processor name (gethostname's answer) and the ranks of its shared
 * communicator (every rank of the node; SMPI sees each core as a host). */
static void node_identity(void)
{
  char name[MPI_MAX_PROCESSOR_NAME], host[256];
  int length = 0, shared_size = 0, parent_null = 0;
  MPI_Get_processor_name(name, &length);
  gethostname(host, sizeof host);
  MPI_Comm shared, parent;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  MPI_Comm_size(shared, &shared_size);
  MPI_Comm_free(&shared);
  MPI_Comm_get_parent(&parent);
  parent_null = parent == MPI_COMM_NULL;
  /* MPI_UNDEFINED on odd ranks, MPI_COMM_TYPE_SHARED on the others (MPICH comm/cmsplit_type; smpi waited for ever) */
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_split_type(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  CHECK((shared == MPI_COMM_NULL) == (rank % 2 == 1), "split_type_undefined");
  if (shared != MPI_COMM_NULL)
    MPI_Comm_free(&shared);
  printf("same_name=%d length_ok=%d shared=%d parent_null=%d\n", strcmp(name, host) == 0, length == (int)strlen(name),
         shared_size, parent_null);
}

/* File calls on MPI_FILE_NULL, as a program that goes on after a failed open makes them (files return errors by
 * default): MPI_ERR_FILE, not a crash (SMPI 3.32 used the handle unchecked). */
static void file_null_calls(void)
{
  MPI_File file   = MPI_FILE_NULL;
  MPI_Offset size = 0;
  int close_class = 0, size_class = 0, sync_class = 0;
  MPI_Error_class(MPI_File_close(&file), &close_class);
  MPI_Error_class(MPI_File_get_size(MPI_FILE_NULL, &size), &size_class);
  MPI_Error_class(MPI_File_sync(MPI_FILE_NULL), &sync_class);
  printf("close=%d size=%d sync=%d\n", close_class == MPI_ERR_FILE, size_class == MPI_ERR_FILE,
         sync_class == MPI_ERR_FILE);
}

/* MPI_Test of an MPI_Comm_idup request returns (MPI-3.1 3.7.3) while another rank has not called MPI_Comm_idup yet:
 * rank 0 tests, then sends what rank 1 waits for before its own MPI_Comm_idup. A test that waited for every rank's
 * duplicate (the SMPI back end's first one) never returned. */
static void idup_test(int rank, int size)
{
  MPI_Comm twin    = MPI_COMM_NULL;
  MPI_Request done = MPI_REQUEST_NULL;
  int flag = 0, word = 5, total = 0, tests = 0;
  if (rank == 0) {
    MPI_Comm_idup(MPI_COMM_WORLD, &twin, &done);
    MPI_Test(&done, &flag, MPI_STATUS_IGNORE);
    tests = 1;
    CHECK(!flag || size == 1, "idup_test_before_the_others");
    if (size > 1)
      MPI_Send(&word, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    while (!flag) {
      MPI_Test(&done, &flag, MPI_STATUS_IGNORE);
      ++tests;
    }
  } else {
    if (rank == 1)
      MPI_Recv(&word, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Comm_idup(MPI_COMM_WORLD, &twin, &done);
    MPI_Wait(&done, MPI_STATUS_IGNORE);
  }
  MPI_Allreduce(&word, &total, 1, MPI_INT, MPI_SUM, twin);
  CHECK(total == 5 * size, "idup_twin_allreduce");
  MPI_Comm_free(&twin);
  printf("idup_tests_over_one=%d\n", tests > 1 || size == 1);
}

/* MPI_MAXLOC and MPI_MINLOC on MPI_2DOUBLE_PRECISION and MPI_2REAL (PETSc's -log_view reduces its timings so): bxisim's
 * OpenMPI, built without Fortran, has the types but not these operations on them. Values r % 3 and indices r: the
 * maximum 2 first at index 2, the minimum 0 at indices 0 and 3, of which the lower. */
static void fortran_pairs(int rank, int size)
{
  double mine[2]  = {(double)(rank % 3), (double)rank};
  float mine_f[2] = {(float)(rank % 3), (float)rank};
  double max[2] = {-1, -1}, min[2] = {-1, -1}, scanned[2] = {-1, -1}, reduced[2] = {-1, -1};
  float max_f[2] = {-1, -1}, min_f[2] = {-1, -1};
  double nonblocking[2] = {-1, -1};
  CHECK(MPI_Allreduce(mine, max, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_SUCCESS,
        "pair_allreduce");
  CHECK(MPI_Allreduce(mine, min, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD) == MPI_SUCCESS, "pair_minloc");
  CHECK(MPI_Allreduce(mine_f, max_f, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_SUCCESS, "pair_real");
  CHECK(MPI_Allreduce(mine_f, min_f, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD) == MPI_SUCCESS, "pair_real_minloc");
  CHECK(MPI_Reduce(mine, reduced, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, 0, MPI_COMM_WORLD) == MPI_SUCCESS,
        "pair_reduce");
  CHECK(MPI_Scan(mine, scanned, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_SUCCESS, "pair_scan");
  MPI_Request request;
  CHECK(MPI_Iallreduce(mine, nonblocking, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD, &request) ==
            MPI_SUCCESS,
        "pair_iallreduce");
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  double local[2] = {mine[0], mine[1]};
  double other[2] = {2.0, 7.0};
  CHECK(MPI_Reduce_local(other, local, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC) == MPI_SUCCESS, "pair_local");
  int top = size > 2 ? 2 : size - 1;
  CHECK(max[0] == top && max[1] == top, "pair_max");
  CHECK(min[0] == 0 && min[1] == 0, "pair_min");
  CHECK(max_f[0] == (float)top && max_f[1] == (float)top && min_f[0] == 0 && min_f[1] == 0, "pair_real_values");
  CHECK(rank != 0 || (reduced[0] == top && reduced[1] == top), "pair_reduced");
  int prefix_top = rank > 2 ? 2 : rank;
  CHECK(scanned[0] == prefix_top && scanned[1] == prefix_top, "pair_scanned");
  CHECK(nonblocking[0] == 0 && nonblocking[1] == 0, "pair_nonblocking");
  CHECK(local[0] == 2 && local[1] == (rank % 3 == 2 ? (rank < 7 ? rank : 7) : 7), "pair_local_values");
  printf("pair_max=%g:%g pair_min=%g:%g\n", max[0], max[1], min[0], min[1]);
}

/* The floating-point exception flags are each rank's, as a process's (MUMPS's Fortran examples ended with gfortran's
 * "Note: The following floating-point exceptions are signalling: IEEE_INVALID_FLAG" on every rank: flags the
 * simulator's own computations raised while the ranks made MPI calls). A flag a rank raises stays its own. */
static void fp_flags(int rank)
{
  const int reported = FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW; /* gfortran's STOP reports these */
  feclearexcept(FE_ALL_EXCEPT);
  double values[64], sums[64];
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 64; ++i)
      values[i] = rank + i * 0.5;
    MPI_Allreduce(values, sums, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    (void)MPI_Wtime();
    usleep(10);
  }
  int after_calls = fetestexcept(reported);
  printf("fp_after_calls=%d\n", after_calls);
  CHECK(after_calls == 0, "fp_flags_after_calls");
  if (rank == 0) {
    volatile double zero     = 0.0;
    volatile double infinite = 1.0 / zero;
    (void)infinite;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Allreduce(values, sums, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int divided = fetestexcept(FE_DIVBYZERO) != 0;
  printf("fp_divbyzero=%d\n", divided);
  CHECK(divided == (rank == 0), "fp_divbyzero_own");
}

/* The floating-point control bits are each rank's, as a process's: rank 0 rounds upwards and flushes denormals to zero
 * ("set"), the others keep a process's defaults, and neither the other ranks nor the simulator's own arithmetic see
 * rank 0's mode (the simulated time of the calls is the same as with "keep"; they differed in their last bits). */
static void fp_control(int rank, const char* which)
{
  const unsigned flush_bits = 0x8040; /* MXCSR's flush-to-zero and denormals-are-zero */
  int set                   = strcmp(which, "set") == 0 && rank == 0;
  if (set) {
    fesetround(FE_UPWARD);
    _mm_setcsr(_mm_getcsr() | flush_bits);
  }
  double values[512], sums[512];
  for (int i = 0; i < 512; ++i)
    values[i] = 1.0 / (i + 3 + rank);
  double start = MPI_Wtime();
  for (int round = 0; round < 8; ++round) {
    MPI_Allreduce(values, sums, 512, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Alltoall(values, 16, MPI_DOUBLE, sums, 16, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  double end           = MPI_Wtime();
  int upward           = fegetround() == FE_UPWARD;
  int flushes          = (_mm_getcsr() & flush_bits) == flush_bits;
  volatile double tiny = 1e-300;
  int denormal_kept    = tiny * 1e-15 != 0.0;
  /* %a: exact whatever the rounding mode (the rank's own subtraction or decimal conversion would round upwards) */
  printf("fp_upward=%d fp_flushes=%d fp_denormal_kept=%d fp_start=%a fp_end=%a\n", upward, flushes, denormal_kept,
         start, end);
  CHECK(upward == set && flushes == set && denormal_kept == !set, "fp_control_own");
}

/* MPI_Win_allocate_shared over the ranks of a node, segments of unequal sizes: each rank's segment follows the
 * previous rank's (contiguous, MPI-3.1 11.2.3), MPI_Win_shared_query gives each, and a rank reads what the others
 * stored there (at smpi SMPI 3.32 gave the block's start for every rank, sized for the first rank's segment). */
static void shared_window(int rank)
{
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_rank, node_size;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  int count = node_rank == 1 ? 0 : 3 * (node_rank + 1); /* an empty segment too */
  int* mine = NULL;
  MPI_Win win;
  MPI_Win_allocate_shared((MPI_Aint)count * (MPI_Aint)sizeof(int), (int)sizeof(int), MPI_INFO_NULL, node, &mine, &win);
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < count; ++i)
    mine[i] = 1000 * node_rank + i;
  MPI_Win_sync(win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  int good            = 1;
  char* expected_base = NULL;
  for (int r = 0; r < node_size; ++r) {
    MPI_Aint size = -1;
    int unit      = -1;
    int* base     = NULL;
    MPI_Win_shared_query(win, r, &size, &unit, &base);
    int expected = r == 1 ? 0 : 3 * (r + 1);
    CHECK(size == (MPI_Aint)expected * (MPI_Aint)sizeof(int), "shared_size");
    CHECK(unit == (int)sizeof(int), "shared_disp_unit");
    CHECK(r != node_rank || base == mine, "shared_own_base");
    CHECK(r == 0 || expected == 0 || (char*)base == expected_base, "shared_contiguous");
    if (expected > 0)
      expected_base = (char*)base + size;
    for (int i = 0; i < expected && base != NULL; ++i)
      good &= base[i] == 1000 * r + i;
  }
  CHECK(good, "shared_values");
  MPI_Aint size = -1;
  int unit      = -1;
  int* first    = NULL;
  int* zero     = NULL;
  MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &unit, &first);
  MPI_Win_shared_query(win, 0, &size, &unit, &zero);
  CHECK(first == zero, "shared_proc_null");
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  CHECK(win == MPI_WIN_NULL, "shared_freed");
  printf("node_size=%d shared_good=%d\n", node_size, good);
  MPI_Comm_free(&node);
}

int main(int argc, char** argv)
{
  const char* mode = argc > 1 ? argv[1] : "";
  int provided = -1, init_result = MPI_SUCCESS;
  if (strcmp(mode, "thread_multiple") == 0)
    init_result = MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  else
    MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (strcmp(mode, "thread_multiple") == 0)
    thread_multiple(init_result, provided);
  else if (strcmp(mode, "shared_window") == 0)
    shared_window(rank);
  else if (strcmp(mode, "fp_flags") == 0)
    fp_flags(rank);
  else if (strcmp(mode, "fp_control") == 0)
    fp_control(rank, argc > 2 ? argv[2] : "keep");
  else if (strcmp(mode, "status_error") == 0)
    status_error(rank);
  else if (strcmp(mode, "noncontiguous") == 0)
    noncontiguous(rank);
  else if (strcmp(mode, "matched_probes") == 0)
    matched_probes(rank);
  else if (strcmp(mode, "darray") == 0)
    darray(rank);
  else if (strcmp(mode, "pack_external") == 0)
    pack_external();
  else if (strcmp(mode, "f90_types") == 0)
    f90_types();
  else if (strcmp(mode, "window_test_sync") == 0)
    window_test_and_sync(rank);
  else if (strcmp(mode, "bottom") == 0)
    bottom(rank);
  else if (strcmp(mode, "ordered_scans") == 0)
    ordered_scans(rank);
  else if (strcmp(mode, "completion_queries") == 0)
    completion_queries(rank);
  else if (strcmp(mode, "persistent_restarts") == 0)
    persistent_restarts(rank);
  else if (strcmp(mode, "errhandler_return") == 0)
    errhandler_return();
  else if (strcmp(mode, "errhandler_fatal") == 0)
    errhandler_fatal(rank);
  else if (strcmp(mode, "unsupported_return") == 0 || strcmp(mode, "unsupported_fatal") == 0)
    unsupported(rank, size, strcmp(mode, "unsupported_fatal") == 0);
  else if (strcmp(mode, "failed_dup") == 0)
    failed_dup();
  else if (strcmp(mode, "communicators") == 0 || strcmp(mode, "communicators_intercomm") == 0)
    make_communicators(rank, size, strcmp(mode, "communicators_intercomm") == 0);
  else if (strcmp(mode, "communicator_times") == 0)
    communicator_times(rank);
  else if (strcmp(mode, "iprobe_loop") == 0)
    iprobe_loop();
  else if (strcmp(mode, "window_segment") == 0)
    window_segment();
  else if (strcmp(mode, "concurrent_cas") == 0)
    concurrent_cas(rank, size);
  else if (strcmp(mode, "ialltoall_waits") == 0)
    ialltoall_waits(rank, size);
  else if (strcmp(mode, "global_names") == 0)
    global_names(rank, size);
  else if (strcmp(mode, "many_keyvals") == 0)
    many_keyvals();
  else if (strcmp(mode, "contents_large_maxima") == 0)
    contents_with_large_maxima();
  else if (strcmp(mode, "attributes") == 0)
    attributes_and_error_codes(rank, size);
  else if (strcmp(mode, "file_open_failure") == 0)
    file_open_failure();
  else if (strcmp(mode, "file_null_calls") == 0)
    file_null_calls();
  else if (strcmp(mode, "node_identity") == 0)
    node_identity();
  else if (strcmp(mode, "status_big_count") == 0)
    status_big_count();
  else if (strcmp(mode, "in_place_nonblocking") == 0)
    in_place_nonblocking(rank, size);
  else if (strcmp(mode, "displacement_current") == 0)
    displacement_current(rank, size, argc > 2 ? argv[2] : "conformance-displacement");
  else if (strcmp(mode, "file_nonblocking") == 0)
    file_nonblocking(rank, size, argc > 2 ? argv[2] : "conformance-file");
  else if (strcmp(mode, "null_requests") == 0)
    null_requests();
  else if (strcmp(mode, "get_elements") == 0)
    get_elements(rank);
  else if (strcmp(mode, "derived_accumulates") == 0)
    derived_accumulates(rank);
  else if (strcmp(mode, "exclusive_lock_order") == 0)
    exclusive_lock_order(rank);
  else if (strcmp(mode, "mismatched_unlocks") == 0)
    mismatched_unlocks(rank, size);
  else if (strcmp(mode, "mixed_lock_modes") == 0)
    mixed_lock_modes(rank, size);
  else if (strcmp(mode, "user_functions") == 0)
    user_functions(rank, size);
  else if (strcmp(mode, "fortran_pairs") == 0)
    fortran_pairs(rank, size);
  else if (strcmp(mode, "attributes_per_rank") == 0)
    attributes_per_rank(rank);
  else if (strcmp(mode, "idup_test") == 0)
    idup_test(rank, size);
  else if (strcmp(mode, "datatype_layout") == 0)
    datatype_layout(rank, size);
  else
    CHECK(0, "mode");
  printf("ok=%d\n", errors == 0);
  MPI_Finalize();
  if (finalize_deletes[0])
    printf("finalize_deletes=%s\n", finalize_deletes);
  printf("finalized=1\n");
  return errors != 0;
}
