/* MPI_THREAD_MULTIPLE: several threads of a rank in MPI calls at the same time. Two ranks, each:
 * 1. a thread blocked in MPI_Recv (tag 3) and a thread polling an MPI_Irecv with MPI_Test (tag 2) while a third
 *    sends to the peer, tag 3 at 200 us and tag 2 at 400 us: each receiver gets its message when it comes;
 * 2. two threads in MPI_Allreduce at once, on two communicators;
 * 3. two threads each making 50 round trips with the peer's thread of the same tag, both at once;
 * 4. main waits in MPI_Wait for a generalized request that a thread completes 300 us later, and a thread blocked in
 *    MPI_Recv from its own rank gets what another thread sends it 100 us later: neither goes through the network;
 * 5. while a thread waits in MPI_Recv for a message the peer sends at 500 us (its progress loop blocked until then),
 *    another duplicates MPI_COMM_SELF at 100 us: a request only that loop carries on, which must not wait for 500 us;
 * 6. two threads duplicate two communicators at once, three times: OpenMPI lets the one of lower id agree first
 *    and the other retries meanwhile.
 * Prints what each rank received and when (microseconds since the first barrier). */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int rank, peer;
static double start;
/** A blocking receive of one int made by a thread: from whom, with which tag, what came and when. */
struct Receipt {
  int source, tag, value;
  double at;
};
static struct Receipt blocked, from_self, late;
static int polled_value = -1;
static double polled_at;
static MPI_Comm comms[2];
static int sums[2];
static int round_trips[2];
static MPI_Request generalized;
static double generalized_at, self_dup_at;
static int duplicated[2];

static double microseconds(void)
{
  return (MPI_Wtime() - start) * 1e6;
}

static void* receiver(void* receipt)
{
  struct Receipt* mine = receipt;
  MPI_Recv(&mine->value, 1, MPI_INT, mine->source, mine->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  mine->at = microseconds();
  return NULL;
}

static void* polling_receiver(void* unused)
{
  (void)unused;
  MPI_Request request;
  int done = 0;
  MPI_Irecv(&polled_value, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, &request);
  while (!done) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done)
      usleep(1);
  }
  polled_at = microseconds();
  return NULL;
}

static void* sender(void* unused)
{
  (void)unused;
  int to_blocked = 30 + rank, to_polling = 20 + rank;
  usleep(200);
  MPI_Send(&to_blocked, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
  usleep((useconds_t)(400 - microseconds()));
  MPI_Send(&to_polling, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
  return NULL;
}

static void* reducer(void* which)
{
  int i = *(int*)which, mine = (rank + 1) * (i == 0 ? 1 : 10);
  MPI_Allreduce(&mine, &sums[i], 1, MPI_INT, MPI_SUM, comms[i]);
  return NULL;
}

static void* ping_pong(void* which)
{
  int i = *(int*)which, ball = 0;
  for (int k = 0; k < 50; k++) {
    if (rank == 0) {
      MPI_Send(&ball, 1, MPI_INT, peer, 10 + i, MPI_COMM_WORLD);
      MPI_Recv(&ball, 1, MPI_INT, peer, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&ball, 1, MPI_INT, peer, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      ball++;
      MPI_Send(&ball, 1, MPI_INT, peer, 10 + i, MPI_COMM_WORLD);
    }
  }
  round_trips[i] = ball;
  return NULL;
}

static int query_nothing(void* state, MPI_Status* status)
{
  (void)state;
  MPI_Status_set_elements(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_UNDEFINED;
  status->MPI_TAG    = MPI_UNDEFINED;
  return MPI_SUCCESS;
}

static int free_nothing(void* state)
{
  (void)state;
  return MPI_SUCCESS;
}

static int cancel_nothing(void* state, int complete)
{
  (void)state;
  (void)complete;
  return MPI_SUCCESS;
}

static void* completer(void* unused)
{
  (void)unused;
  usleep(300);
  MPI_Grequest_complete(generalized);
  return NULL;
}

static void* waiter(void* unused)
{
  (void)unused;
  MPI_Wait(&generalized, MPI_STATUS_IGNORE);
  generalized_at = microseconds();
  return NULL;
}

static void* self_sender(void* unused)
{
  (void)unused;
  int value = 70 + rank;
  usleep(100);
  MPI_Send(&value, 1, MPI_INT, rank, 7, MPI_COMM_WORLD);
  return NULL;
}

static void* self_duplicator(void* unused)
{
  (void)unused;
  MPI_Comm copy;
  usleep(100);
  MPI_Comm_dup(MPI_COMM_SELF, &copy);
  self_dup_at = microseconds();
  MPI_Comm_free(&copy);
  int value = 90 + rank;
  usleep((useconds_t)(500 - microseconds()));
  MPI_Send(&value, 1, MPI_INT, peer, 9, MPI_COMM_WORLD);
  return NULL;
}

static void* duplicator(void* which)
{
  int i = *(int*)which;
  for (int k = 0; k < 3; k++) {
    MPI_Comm copy;
    MPI_Comm_dup(comms[i], &copy);
    duplicated[i] += copy != MPI_COMM_NULL;
    MPI_Comm_free(&copy);
  }
  return NULL;
}

static void run_threads(int count, void* (*functions[])(void*), void* arguments[])
{
  pthread_t threads[3];
  for (int i = 0; i < count; i++)
    pthread_create(&threads[i], NULL, functions[i], arguments[i]);
  for (int i = 0; i < count; i++)
    pthread_join(threads[i], NULL);
}

/** From a new start: a thread receives `receipt` (from `source`, with `tag`) while another runs `other`. */
static void receive_beside(struct Receipt* receipt, int source, int tag, void* (*other)(void*))
{
  start                       = MPI_Wtime();
  *receipt                    = (struct Receipt){source, tag, -1, 0};
  void* (*functions[])(void*) = {receiver, other};
  void* arguments[]           = {receipt, NULL};
  run_threads(2, functions, arguments);
}

int main(int argc, char** argv)
{
  int provided = -1, queried = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Query_thread(&queried);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  peer = 1 - rank;
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
  int first = 0, second = 1;

  MPI_Barrier(MPI_COMM_WORLD);
  start                       = MPI_Wtime();
  blocked                     = (struct Receipt){peer, 3, -1, 0};
  void* (*receiving[])(void*) = {receiver, polling_receiver, sender};
  void* none[]                = {NULL, NULL, NULL};
  void* receipts[]            = {&blocked, NULL, NULL};
  run_threads(3, receiving, receipts);

  MPI_Barrier(MPI_COMM_WORLD);
  void* (*reducing[])(void*) = {reducer, reducer};
  void* which[]              = {&first, &second};
  run_threads(2, reducing, which);

  MPI_Barrier(MPI_COMM_WORLD);
  void* (*bouncing[])(void*) = {ping_pong, ping_pong};
  run_threads(2, bouncing, which);

  MPI_Barrier(MPI_COMM_WORLD);
  start = MPI_Wtime();
  MPI_Grequest_start(query_nothing, free_nothing, cancel_nothing, NULL, &generalized);
  void* (*generalizing[])(void*) = {completer, waiter};
  run_threads(2, generalizing, none);
  receive_beside(&from_self, rank, 7, self_sender);

  MPI_Barrier(MPI_COMM_WORLD);
  receive_beside(&late, peer, 9, self_duplicator);

  MPI_Barrier(MPI_COMM_WORLD);
  void* (*concurrent_dups[])(void*) = {duplicator, duplicator};
  run_threads(2, concurrent_dups, which);

  printf("multiple=%d queried=%d blocked=%d blocked_us=%.3f polled=%d polled_us=%.3f sum0=%d sum1=%d trips0=%d "
         "trips1=%d generalized_us=%.3f from_self=%d from_self_us=%.3f self_dup_us=%.3f late=%d late_us=%.3f "
         "duplicated0=%d duplicated1=%d\n",
         provided == MPI_THREAD_MULTIPLE, queried == provided, blocked.value, blocked.at, polled_value, polled_at,
         sums[0], sums[1], round_trips[0], round_trips[1], generalized_at, from_self.value, from_self.at, self_dup_at,
         late.value, late.at, duplicated[0], duplicated[1]);
  MPI_Comm_free(&comms[0]);
  MPI_Comm_free(&comms[1]);
  MPI_Finalize();
  return 0;
}
