/* C11's threads (<threads.h>) of a rank, 2 ranks: the C library builds them on its own pthread functions, which
 * bxisim did not see (they were real threads outside simulated time).
 * - one C11 thread waits for the peer's Put (PtlCTWait) while another Puts to the peer and waits for its
 *   acknowledgement; main joins both and gets their int results;
 * - a mutex held across thrd_sleep, a condition signalled after a sleep, a timed wait that expires, a try that finds
 *   the mutex taken, thrd_current, thrd_exit's value, a detached thread, a thread's own tss value and its destructor.
 * Prints key=value lines, simulated times in ns since the program started. */
#include "deadline.h"
#include "elapsed.h"
#include "portals_check.h"

#include <bxisim/rank.h>

#include <stdint.h>
#include <threads.h>
#include <time.h>

static int rank;

static void sleep_us(long microseconds)
{
  struct timespec duration = {0, microseconds * 1000};
  thrd_sleep(&duration, NULL);
}

/* --- Portals from two C11 threads at once ------------------------------------------------------- */

static ptl_process_t peer;
static uint64_t inbox, outbox;
static ptl_handle_ct_t arrived, acknowledged;
static ptl_handle_md_t md;
static long long received_at, acknowledged_at;

static int wait_for_peer(void* argument)
{
  (void)argument;
  ptl_ct_event_t count;
  CHECK(PtlCTWait(arrived, 1, &count));
  received_at = now_ns();
  return 7;
}

static int put_to_peer(void* argument)
{
  (void)argument;
  ptl_ct_event_t count;
  CHECK(PtlPut(md, 0, sizeof outbox, PTL_CT_ACK_REQ, peer, 0, 0, 0, NULL, 0));
  CHECK(PtlCTWait(acknowledged, 1, &count));
  acknowledged_at = now_ns();
  return 8;
}

static void portals(void)
{
  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  ptl_process_t me = open_matching_interface(&ni, &eq);
  char key[32];
  snprintf(key, sizeof key, "id-%d", rank);
  bxisim_kv_put(key, &me, sizeof me);
  snprintf(key, sizeof key, "id-%d", 1 - rank);
  bxisim_kv_get(key, &peer, sizeof peer, NULL);
  CHECK(PtlCTAlloc(ni, &arrived));
  CHECK(PtlCTAlloc(ni, &acknowledged));
  expose_counted_to_anyone(ni, eq, &inbox, sizeof inbox, PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM, arrived);
  outbox = 100 + rank;
  md     = bind_counted(ni, eq, &outbox, sizeof outbox, PTL_MD_EVENT_CT_ACK, acknowledged);
  bxisim_barrier();
  long long started = now_ns();
  thrd_t waiter, sender;
  int waited = 0, sent = 0;
  if (thrd_create(&waiter, wait_for_peer, NULL) != thrd_success ||
      thrd_create(&sender, put_to_peer, NULL) != thrd_success)
    return;
  thrd_join(waiter, &waited);
  thrd_join(sender, &sent);
  printf("received=%llu received_after=%lld acknowledged_after=%lld joined_after=%lld results=%d\n",
         (unsigned long long)inbox, received_at - started, acknowledged_at - started, now_ns() - started,
         waited * 10 + sent);
  CHECK(PtlNIFini(ni));
  PtlFini();
}

/* --- mutexes, conditions, identities, thread-specific storage ----------------------------------- */

static mtx_t mutex;
static cnd_t condition;
static int signalled;
static long long woken_at;
static tss_t key;
static int destructor_calls;
static int own_values;
static thrd_t seen_as;

static int hold_across_sleep(void* argument)
{
  (void)argument;
  mtx_lock(&mutex);
  sleep_us(100);
  mtx_unlock(&mutex);
  return 0;
}

static int wait_for_signal(void* argument)
{
  (void)argument;
  mtx_lock(&mutex);
  while (!signalled)
    cnd_wait(&condition, &mutex);
  woken_at = now_ns();
  mtx_unlock(&mutex);
  return 0;
}

static void count_destructor(void* value)
{
  if (value == &own_values)
    ++destructor_calls;
}

static int own_storage(void* argument)
{
  (void)argument;
  own_values += tss_get(key) == NULL; /* none at its start, though main set one */
  tss_set(key, &own_values);
  sleep_us(10); /* main runs meanwhile */
  own_values += tss_get(key) == &own_values;
  seen_as = thrd_current();
  thrd_exit(42);
}

static int finish_detached(void* argument)
{
  sleep_us(5);
  *(int*)argument = 1;
  return 0;
}

static void sync_threads(void)
{
  mtx_init(&mutex, mtx_plain | mtx_timed);
  cnd_init(&condition);
  thrd_t holder;
  thrd_create(&holder, hold_across_sleep, NULL);
  sleep_us(1); /* the holder takes the mutex first */
  int busy = mtx_trylock(&mutex) == thrd_busy;
  mtx_lock(&mutex);
  long long locked_at = now_ns();
  mtx_unlock(&mutex);
  thrd_join(holder, NULL);

  long long signal_from = now_ns();
  thrd_t waiter;
  thrd_create(&waiter, wait_for_signal, NULL);
  sleep_us(500);
  mtx_lock(&mutex);
  signalled = 1;
  cnd_signal(&condition);
  mtx_unlock(&mutex);
  thrd_join(waiter, NULL);

  mtx_lock(&mutex);
  long long timed_from   = now_ns();
  struct timespec limit  = deadline_in(CLOCK_REALTIME, 200000);
  int timed_out          = cnd_timedwait(&condition, &mutex, &limit) == thrd_timedout;
  long long timed_out_at = now_ns();
  mtx_unlock(&mutex);

  tss_create(&key, count_destructor);
  int main_value = 5;
  tss_set(key, &main_value);
  thrd_t storage;
  int exit_value = 0;
  thrd_create(&storage, own_storage, NULL);
  thrd_join(storage, &exit_value);
  int main_value_kept = tss_get(key) == &main_value;
  int distinct        = !thrd_equal(seen_as, thrd_current());

  int detached_done = 0;
  thrd_t detached;
  thrd_create(&detached, finish_detached, &detached_done);
  thrd_detach(detached);
  sleep_us(50);
  printf("busy=%d locked_at=%lld woken_after=%lld timed_out=%d timed_out_after=%lld exit_value=%d own_values=%d "
         "main_value_kept=%d destructor_calls=%d distinct=%d detached_done=%d\n",
         busy, locked_at, woken_at - signal_from, timed_out, timed_out_at - timed_from, exit_value, own_values,
         main_value_kept, destructor_calls, distinct, detached_done);
  tss_delete(key);
  cnd_destroy(&condition);
  mtx_destroy(&mutex);
}

int main(int argc, char** argv)
{
  (void)argc;
  (void)argv;
  rank = bxisim_rank();
  start_elapsed();
  sync_threads();
  portals();
  return 0;
}
