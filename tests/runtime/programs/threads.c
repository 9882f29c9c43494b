/* Threads a rank's own code creates (simulated threads), 2 ranks. argv[1] picks the scenario:
 * - "portals": on each rank one thread waits for the peer's Put (PtlCTWait) while another Puts to the peer
 *   and waits for its acknowledgement; main joins both;
 * - "abort": two threads block in PtlCTWait and PtlEQWait, main calls PtlAbort 1 ms later;
 * - "sync": a mutex held across a sleep, a condition signalled after a sleep, a timed wait that expires,
 *   pthread_self, pthread_exit's value, a detached thread, a thread's own thread-specific data;
 * - "meet": a barrier of main and two threads that arrive 100 and 300 us late; a semaphore posted 50 us late,
 *   a try that finds it empty, a timed wait that expires;
 * - "rwlock": a read-write lock held for writing across a sleep, then for reading by two threads at once, a
 *   writer waiting for both readers, a try that finds it taken, a timed wait that expires, a writer asking again;
 * - "timedjoin": a try to join a running thread, a timed join that expires, one on the monotonic clock that sees
 *   the thread end at 50 us; a semaphore's wait on the monotonic clock that expires;
 * - "once": main and two threads call pthread_once, whose init routine sleeps 100 us; "once_again": the init
 *   routine calls pthread_once on its own control (a deadlock);
 * - "spin": a spin lock held across a 100 us sleep by a thread, which main waits for; "spin_again": main locks it
 *   twice (a deadlock);
 * Prints key=value lines, simulated times in ns since the scenario started. */
#define _GNU_SOURCE /* pthread_tryjoin_np, pthread_timedjoin_np, pthread_clockjoin_np, sem_clockwait */
#include "deadline.h"
#include "elapsed.h"
#include "portals_check.h"

#include <bxisim/rank.h>

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank;
static ptl_handle_ni_t ni;
static ptl_handle_eq_t eq;
static ptl_process_t peer;

static void set_up(void)
{
  CHECK(PtlInit());
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &ni));
  CHECK(PtlEQAlloc(ni, 64, &eq));
  ptl_process_t me;
  CHECK(PtlGetPhysId(ni, &me));
  char key[32];
  snprintf(key, sizeof key, "id-%d", rank);
  bxisim_kv_put(key, &me, sizeof me);
  snprintf(key, sizeof key, "id-%d", 1 - rank);
  bxisim_kv_get(key, &peer, sizeof peer, NULL);
}

/* --- portals ------------------------------------------------------------------------------------ */

static uint64_t inbox;
static uint64_t outbox;
static ptl_handle_ct_t arrived;
static ptl_handle_ct_t acknowledged;
static ptl_handle_md_t md;
static long long received_at, acknowledged_at;

static void* wait_for_peer(void* argument)
{
  (void)argument;
  ptl_ct_event_t count;
  CHECK(PtlCTWait(arrived, 1, &count));
  received_at = now_ns();
  return NULL;
}

static void* put_to_peer(void* argument)
{
  (void)argument;
  ptl_ct_event_t count;
  CHECK(PtlPut(md, 0, sizeof outbox, PTL_CT_ACK_REQ, peer, 0, 0, 0, NULL, 0));
  CHECK(PtlCTWait(acknowledged, 1, &count));
  acknowledged_at = now_ns();
  return NULL;
}

static void portals(void)
{
  set_up();
  CHECK(PtlCTAlloc(ni, &arrived));
  CHECK(PtlCTAlloc(ni, &acknowledged));
  expose_counted_to_anyone(ni, eq, &inbox, sizeof inbox, PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM, arrived);
  outbox = 100 + rank;
  md     = bind_counted(ni, eq, &outbox, sizeof outbox, PTL_MD_EVENT_CT_ACK, acknowledged);
  bxisim_barrier();
  pthread_t waiter, sender;
  pthread_create(&waiter, NULL, wait_for_peer, NULL);
  pthread_create(&sender, NULL, put_to_peer, NULL);
  pthread_join(waiter, NULL);
  pthread_join(sender, NULL);
  printf("received=%llu received_at=%lld acknowledged_at=%lld joined_at=%lld\n", (unsigned long long)inbox, received_at,
         acknowledged_at, now_ns());
  CHECK(PtlNIFini(ni));
  PtlFini();
}

/* --- abort -------------------------------------------------------------------------------------- */

static ptl_handle_ct_t never;
static ptl_handle_eq_t quiet;

static void* wait_on_counter(void* argument)
{
  (void)argument;
  ptl_ct_event_t count;
  return (void*)(intptr_t)PtlCTWait(never, 1, &count);
}

static void* wait_on_queue(void* argument)
{
  (void)argument;
  ptl_event_t event;
  return (void*)(intptr_t)PtlEQWait(quiet, &event);
}

static void abort_waits(void)
{
  set_up();
  CHECK(PtlCTAlloc(ni, &never));
  CHECK(PtlEQAlloc(ni, 8, &quiet));
  pthread_t counter, queue;
  pthread_create(&counter, NULL, wait_on_counter, NULL);
  pthread_create(&queue, NULL, wait_on_queue, NULL);
  usleep(1000);
  PtlAbort();
  void *counter_rc, *queue_rc;
  pthread_join(counter, &counter_rc);
  pthread_join(queue, &queue_rc);
  printf("ct_wait=%s eq_wait=%s joined_at=%lld\n", (intptr_t)counter_rc == PTL_ABORTED ? "PTL_ABORTED" : "other",
         (intptr_t)queue_rc == PTL_ABORTED ? "PTL_ABORTED" : "other", now_ns());
}

/* --- sync --------------------------------------------------------------------------------------- */

static pthread_mutex_t lock   = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int flag;
static long long woken_at, timed_out_at;
static int timed_wait_rc;
static pthread_t main_thread;
static int detached_done;

static void* hold_lock(void* argument)
{
  (void)argument;
  pthread_mutex_lock(&lock);
  usleep(100); /* a simulator call with the lock held */
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void* wait_for_flag(void* argument)
{
  (void)argument;
  pthread_mutex_lock(&lock);
  while (!flag)
    pthread_cond_wait(&changed, &lock);
  woken_at                 = now_ns();
  struct timespec deadline = deadline_in(CLOCK_REALTIME, 200000); /* 200 us, nobody signals */
  long long before         = now_ns();
  timed_wait_rc            = pthread_cond_timedwait(&changed, &lock, &deadline);
  timed_out_at             = now_ns() - before;
  pthread_mutex_unlock(&lock);
  return NULL;
}

static pthread_t leaver; /* written by pthread_create before the thread runs */

static void* leave_with_value(void* argument)
{
  (void)argument;
  int same = pthread_equal(pthread_self(), main_thread);
  int mine = pthread_equal(pthread_self(), leaver);
  pthread_exit((void*)(intptr_t)(40 + 2 * mine - same));
}

static pthread_key_t own_key;
static int main_value, thread_value, own_destructor_calls, thread_saw_own;

static void count_own_destructor(void* value)
{
  own_destructor_calls += value == &thread_value;
}

static void* set_own_value(void* argument)
{
  (void)argument;
  thread_saw_own = pthread_getspecific(own_key) == NULL; /* a new thread starts with none */
  pthread_setspecific(own_key, &thread_value);
  thread_saw_own += pthread_getspecific(own_key) == &thread_value;
  return NULL;
}

static void* detached(void* argument)
{
  (void)argument;
  detached_done = 1;
  return NULL;
}

static void sync_threads(void)
{
  main_thread = pthread_self();
  pthread_t holder, waiter, lone;
  pthread_create(&holder, NULL, hold_lock, NULL);
  usleep(10); /* the holder takes the lock */
  pthread_mutex_lock(&lock);
  long long locked_at = now_ns();
  pthread_mutex_unlock(&lock);
  pthread_join(holder, NULL);

  pthread_create(&waiter, NULL, wait_for_flag, NULL);
  usleep(500);
  pthread_mutex_lock(&lock);
  flag = 1;
  pthread_cond_signal(&changed);
  pthread_mutex_unlock(&lock);
  pthread_join(waiter, NULL);

  void* value;
  pthread_create(&leaver, NULL, leave_with_value, NULL);
  pthread_join(leaver, &value);
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_create(&lone, &attributes, detached, NULL);
  usleep(1);

  pthread_t keeper;
  pthread_key_create(&own_key, count_own_destructor);
  pthread_setspecific(own_key, &main_value);
  pthread_create(&keeper, NULL, set_own_value, NULL);
  pthread_join(keeper, NULL);
  printf("own_values=%d main_value_kept=%d own_destructor_calls=%d\n", thread_saw_own,
         pthread_getspecific(own_key) == &main_value, own_destructor_calls);
  printf("locked_at=%lld woken_at=%lld timed_wait=%s timed_out_after=%lld exit_value=%ld detached_done=%d\n", locked_at,
         woken_at, timed_wait_rc == ETIMEDOUT ? "ETIMEDOUT" : "other", timed_out_at, (long)(intptr_t)value,
         detached_done);
}

/* --- meet -------------------------------------------------------------------------------------- */

static pthread_barrier_t meeting;
static sem_t ready;
static long long left_at[3];

static void* arrive_late(void* argument)
{
  int me = (int)(intptr_t)argument;
  usleep(me == 1 ? 100 : 300);
  pthread_barrier_wait(&meeting);
  left_at[me] = now_ns();
  return NULL;
}

static void* post_late(void* argument)
{
  (void)argument;
  usleep(50);
  sem_post(&ready);
  return NULL;
}

static void meet(void)
{
  pthread_barrier_init(&meeting, NULL, 3);
  pthread_t first, second, poster;
  long long start = now_ns();
  pthread_create(&first, NULL, arrive_late, (void*)(intptr_t)1);
  pthread_create(&second, NULL, arrive_late, (void*)(intptr_t)2);
  int serial = pthread_barrier_wait(&meeting) == PTHREAD_BARRIER_SERIAL_THREAD;
  left_at[0] = now_ns();
  pthread_join(first, NULL);
  pthread_join(second, NULL);
  pthread_barrier_destroy(&meeting);

  sem_init(&ready, 0, 0);
  int empty             = sem_trywait(&ready) == -1 && errno == EAGAIN;
  long long posted_from = now_ns();
  pthread_create(&poster, NULL, post_late, NULL);
  sem_wait(&ready);
  long long posted_after = now_ns() - posted_from;
  pthread_join(poster, NULL);
  struct timespec deadline = deadline_in(CLOCK_REALTIME, 20000);
  long long before         = now_ns();
  int timed_out            = sem_timedwait(&ready, &deadline) == -1 && errno == ETIMEDOUT;
  long long waited         = now_ns() - before;
  sem_destroy(&ready);
  printf("main_left_after=%lld first_left_after=%lld second_left_after=%lld main_serial=%d empty=%d "
         "posted_after=%lld timed_out=%d timed_out_after=%lld\n",
         left_at[0] - start, left_at[1] - start, left_at[2] - start, serial, empty, posted_after, timed_out, waited);
}

/* --- rwlock ------------------------------------------------------------------------------------- */

static pthread_rwlock_t table = PTHREAD_RWLOCK_INITIALIZER;
static long long read_at[3];
static int try_while_written = -1, both_reading;

static void* read_table(void* argument)
{
  int index = (int)(intptr_t)argument;
  pthread_rwlock_rdlock(&table);
  read_at[index] = now_ns();
  usleep(100 + 100 * index); /* the first two hold it 100 and 200 us, together; the third 300 us */
  both_reading += 1;
  pthread_rwlock_unlock(&table);
  return NULL;
}

static void* try_write(void* argument)
{
  (void)argument;
  try_while_written = pthread_rwlock_trywrlock(&table);
  return NULL;
}

static void rwlock_threads(void)
{
  pthread_t readers[2], trier;
  pthread_rwlock_wrlock(&table);
  long long written_at = now_ns();
  pthread_create(&trier, NULL, try_write, NULL);
  pthread_join(trier, NULL);
  for (int i = 0; i < 2; ++i)
    pthread_create(&readers[i], NULL, read_table, (void*)(intptr_t)i);
  usleep(300); /* a simulator call with the write lock held: the readers wait */
  int again = pthread_rwlock_wrlock(&table);
  pthread_rwlock_unlock(&table);
  usleep(10); /* the readers take it */
  long long asked = now_ns();
  pthread_rwlock_wrlock(&table); /* waits for both readers */
  long long written_again = now_ns() - asked;
  pthread_rwlock_unlock(&table);
  for (int i = 0; i < 2; ++i)
    pthread_join(readers[i], NULL);

  pthread_create(&readers[0], NULL, read_table, (void*)(intptr_t)2);
  usleep(10);
  struct timespec deadline = deadline_in(CLOCK_REALTIME, 50000); /* 50 us, the reader holds it 300 */
  long long before         = now_ns();
  int timed                = pthread_rwlock_timedwrlock(&table, &deadline);
  long long timed_after    = now_ns() - before;
  pthread_join(readers[0], NULL);
  printf("rank=%d written_at=%lld trywrlock=%s read_at=%lld second_read_at=%lld wrlock_again=%s "
         "written_again_after=%lld timedwrlock=%s timed_out_after=%lld readers=%d\n",
         rank, written_at, try_while_written == EBUSY ? "EBUSY" : "other", read_at[0], read_at[1],
         again == EDEADLK ? "EDEADLK" : "other", written_again, timed == ETIMEDOUT ? "ETIMEDOUT" : "other", timed_after,
         both_reading);
}

/* --- timedjoin ----------------------------------------------------------------------------------- */

static void* sleep_50us(void* argument)
{
  (void)argument;
  usleep(50);
  return (void*)(intptr_t)7;
}

static void timed_joins(void)
{
  pthread_t thread;
  pthread_create(&thread, NULL, sleep_50us, NULL);
  void* value              = NULL;
  int tried                = pthread_tryjoin_np(thread, &value);
  struct timespec deadline = deadline_in(CLOCK_REALTIME, 20000);
  int timed                = pthread_timedjoin_np(thread, &value, &deadline);
  long long timed_out_at   = now_ns();
  deadline                 = deadline_in(CLOCK_MONOTONIC, 1000000);
  int clocked              = pthread_clockjoin_np(thread, &value, CLOCK_MONOTONIC, &deadline);
  long long joined_at      = now_ns();
  sem_t empty;
  sem_init(&empty, 0, 0);
  long long before = now_ns();
  deadline         = deadline_in(CLOCK_MONOTONIC, 15000);
  int waited       = sem_clockwait(&empty, CLOCK_MONOTONIC, &deadline);
  int error        = errno;
  printf("tryjoin=%s timedjoin=%s timed_out_at=%lld clockjoin=%d joined_at=%lld value=%d sem_clockwait=%s "
         "sem_waited=%lld\n",
         tried == EBUSY ? "EBUSY" : "other", timed == ETIMEDOUT ? "ETIMEDOUT" : "other", timed_out_at, clocked,
         joined_at, (int)(intptr_t)value, waited == -1 && error == ETIMEDOUT ? "ETIMEDOUT" : "other",
         now_ns() - before);
  sem_destroy(&empty);
}

/* --- once -------------------------------------------------------------------------------------- */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int inits;
static long long returned_at[3];

static void slow_init(void)
{
  usleep(100);
  ++inits;
}

static void* call_once_at(void* slot)
{
  pthread_once(&once, slow_init);
  returned_at[(intptr_t)slot] = now_ns();
  return NULL;
}

static void init_again(void)
{
  pthread_once(&once, init_again);
}

static void once_threads(int again)
{
  if (again) {
    pthread_once(&once, init_again);
    return;
  }
  pthread_t first, second;
  pthread_create(&first, NULL, call_once_at, (void*)1);
  pthread_create(&second, NULL, call_once_at, (void*)2);
  call_once_at((void*)0);
  pthread_join(first, NULL);
  pthread_join(second, NULL);
  printf("inits=%d main_returned_at=%lld first_returned_at=%lld second_returned_at=%lld\n", inits, returned_at[0],
         returned_at[1], returned_at[2]);
}

/* --- spin --------------------------------------------------------------------------------------- */

static pthread_spinlock_t spin;

static void* hold_spin(void* argument)
{
  (void)argument;
  pthread_spin_lock(&spin);
  usleep(100);
  pthread_spin_unlock(&spin);
  return NULL;
}

static void spin_threads(int again)
{
  pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
  if (again) {
    pthread_spin_lock(&spin);
    pthread_spin_lock(&spin);
    return;
  }
  pthread_t holder;
  pthread_create(&holder, NULL, hold_spin, NULL);
  usleep(1); /* the holder takes the lock */
  int busy = pthread_spin_trylock(&spin) == EBUSY;
  pthread_spin_lock(&spin);
  long long locked_at = now_ns();
  pthread_spin_unlock(&spin);
  pthread_join(holder, NULL);
  printf("spin_busy=%d spin_locked_at=%lld\n", busy, locked_at);
  pthread_spin_destroy(&spin);
}

int main(int argc, char** argv)
{
  rank = bxisim_rank();
  start_elapsed();
  if (argc < 2)
    return 2;
  if (strcmp(argv[1], "portals") == 0)
    portals();
  else if (strcmp(argv[1], "abort") == 0)
    abort_waits();
  else if (strcmp(argv[1], "sync") == 0)
    sync_threads();
  else if (strcmp(argv[1], "meet") == 0)
    meet();
  else if (strcmp(argv[1], "rwlock") == 0)
    rwlock_threads();
  else if (strcmp(argv[1], "timedjoin") == 0)
    timed_joins();
  else if (strcmp(argv[1], "once") == 0 || strcmp(argv[1], "once_again") == 0)
    once_threads(strcmp(argv[1], "once_again") == 0);
  else if (strcmp(argv[1], "spin") == 0 || strcmp(argv[1], "spin_again") == 0)
    spin_threads(strcmp(argv[1], "spin_again") == 0);
  return 0;
}
