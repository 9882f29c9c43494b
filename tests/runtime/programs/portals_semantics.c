/* Portals behaviour that programs written against the reference implementation rely on, and misuse
 * that must not crash the simulator, between rank 0 (initiator) and rank 1 (target), run by
 *   bxisim run -n 2 --ppn 1|2 ./portals_semantics <scenario>
 * Each rank prints key=value words that tests/runtime/portals_semantics_test.cpp checks. */
#include <bxisim/rank.h>
#include <portals4.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    int rc_ = (call);                                                                                                  \
    if (rc_ != PTL_OK) {                                                                                               \
      fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, rc_);                                       \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

static int rank;
static ptl_handle_ni_t ni;
static ptl_handle_eq_t eq;
static ptl_pt_index_t pt;
static ptl_process_t peer;
static ptl_ni_limits_t limits; /* granted at PtlNIInit */

static ptl_event_t wait_for(ptl_handle_eq_t queue, ptl_event_kind_t type)
{
  ptl_event_t event;
  do
    CHECK(PtlEQWait(queue, &event));
  while (event.type != type);
  return event;
}

static ptl_me_t make_me(void* start, ptl_size_t length, ptl_match_bits_t bits, ptl_match_bits_t ignore,
                        unsigned options)
{
  ptl_me_t me;
  memset(&me, 0, sizeof me);
  me.start             = start;
  me.length            = length;
  me.ct_handle         = PTL_CT_NONE;
  me.uid               = PTL_UID_ANY;
  me.options           = options;
  me.match_id.phys.nid = PTL_NID_ANY;
  me.match_id.phys.pid = PTL_PID_ANY;
  me.match_bits        = bits;
  me.ignore_bits       = ignore;
  return me;
}

static ptl_handle_md_t bind_md(void* start, ptl_size_t length, ptl_handle_ct_t ct, unsigned options)
{
  ptl_md_t md = {start, length, options, eq, ct};
  ptl_handle_md_t handle;
  CHECK(PtlMDBind(ni, &md, &handle));
  return handle;
}

/* PtlInit, a matching physical NI, an EQ of `eq_size`, PT 0, and the peer's id. */
static void set_up(ptl_size_t eq_size)
{
  CHECK(PtlInit());
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, &limits, &ni));
  CHECK(PtlEQAlloc(ni, eq_size, &eq));
  CHECK(PtlPTAlloc(ni, 0, eq, 0, &pt));
  ptl_process_t me;
  CHECK(PtlGetPhysId(ni, &me));
  char key[32];
  snprintf(key, sizeof key, "id-%d", rank);
  bxisim_kv_put(key, &me, sizeof me);
  snprintf(key, sizeof key, "id-%d", 1 - rank);
  bxisim_kv_get(key, &peer, sizeof peer, NULL);
}

static void tear_down(void)
{
  CHECK(PtlNIFini(ni));
  PtlFini();
}

static char overflow[4096];

static void append_overflow(void)
{
  ptl_me_t me = make_me(overflow, sizeof overflow, 0, ~0ull, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL);
  ptl_handle_me_t handle;
  CHECK(PtlMEAppend(ni, pt, &me, PTL_OVERFLOW_LIST, NULL, &handle));
  wait_for(eq, PTL_EVENT_LINK);
}

/* Use-once entry consumed at append (AUTO_UNLINK), and the list an ACK reports. */
static void lists(void)
{
  set_up(64);
  static char source[16] = "0123456789abcdef";
  if (rank == 1)
    append_overflow();
  bxisim_barrier();
  if (rank == 0) {
    ptl_handle_md_t md = bind_md(source, sizeof source, PTL_CT_NONE, 0);
    CHECK(PtlPut(md, 0, 16, PTL_ACK_REQ, peer, pt, 0x5, 0, NULL, 0));
    ptl_event_t ack = wait_for(eq, PTL_EVENT_ACK);
    printf("overflow_ack_list=%d overflow_ack_fail=%d\n", ack.ptl_list, ack.ni_fail_type);
  }
  bxisim_barrier();
  if (rank == 1) {
    wait_for(eq, PTL_EVENT_PUT); /* the unexpected message, in the overflow buffer */
    char dest[16];
    ptl_me_t once = make_me(dest, sizeof dest, 0x5, 0, PTL_ME_OP_PUT | PTL_ME_USE_ONCE);
    ptl_handle_me_t handle;
    CHECK(PtlMEAppend(ni, pt, &once, PTL_PRIORITY_LIST, NULL, &handle));
    ptl_event_t first, second;
    CHECK(PtlEQWait(eq, &first));
    CHECK(PtlEQWait(eq, &second));
    printf("append_first=%d append_second=%d overflow_data_ok=%d stale_handle=%d\n", first.type, second.type,
           memcmp(first.start, source, 16) == 0, PtlMEUnlink(handle));
    static char dest6[16];
    ptl_me_t persistent = make_me(dest6, sizeof dest6, 0x6, 0, PTL_ME_OP_PUT);
    CHECK(PtlMEAppend(ni, pt, &persistent, PTL_PRIORITY_LIST, NULL, &handle));
    wait_for(eq, PTL_EVENT_LINK);
  }
  bxisim_barrier();
  if (rank == 0) {
    ptl_handle_md_t md = bind_md(source, sizeof source, PTL_CT_NONE, 0);
    CHECK(PtlPut(md, 0, 16, PTL_ACK_REQ, peer, pt, 0x6, 0, NULL, 0));
    ptl_event_t ack = wait_for(eq, PTL_EVENT_ACK);
    printf("priority_ack_list=%d priority_ack_fail=%d\n", ack.ptl_list, ack.ni_fail_type);
  }
  bxisim_barrier();
  tear_down();
}

/* Counting search (Portals 4.3): one SEARCH event per matching header, the CT counts them. */
static void search(void)
{
  set_up(64);
  static char source[64];
  if (rank == 1)
    append_overflow();
  bxisim_barrier();
  if (rank == 0) {
    ptl_handle_md_t md             = bind_md(source, sizeof source, PTL_CT_NONE, 0);
    const ptl_match_bits_t bits[3] = {0x10, 0x11, 0x10};
    for (int i = 0; i < 3; ++i) {
      CHECK(PtlPut(md, 0, 8 * (i + 1), PTL_ACK_REQ, peer, pt, bits[i], 0, NULL, 0));
      wait_for(eq, PTL_EVENT_ACK);
    }
  }
  bxisim_barrier();
  if (rank == 1) {
    for (int i = 0; i < 3; ++i)
      wait_for(eq, PTL_EVENT_PUT);
    ptl_handle_ct_t ct;
    CHECK(PtlCTAlloc(ni, &ct));
    ptl_me_t probe  = make_me(NULL, 0, 0x10, 0, PTL_ME_OP_PUT | PTL_ME_EVENT_CT_OVERFLOW | PTL_ME_EVENT_CT_BYTES);
    probe.ct_handle = ct;
    CHECK(PtlMESearch(ni, pt, &probe, PTL_SEARCH_ONLY, NULL));
    ptl_ct_event_t count;
    CHECK(PtlCTWait(ct, 1, &count)); /* returns when the search is over: failure counts 1 */
    int events = 0, bytes = 0;
    ptl_event_t event;
    while (PtlEQGet(eq, &event) == PTL_OK) {
      events += event.type == PTL_EVENT_SEARCH && event.ni_fail_type == PTL_NI_OK;
      bytes += (int)event.mlength;
    }
    printf("search_events=%d search_bytes=%d ct_success=%d ct_failure=%d\n", events, bytes, (int)count.success,
           (int)count.failure);
    CHECK(PtlCTSet(ct, (ptl_ct_event_t){0, 0}));
    probe.options = PTL_ME_OP_PUT | PTL_ME_EVENT_CT_OVERFLOW;
    CHECK(PtlMESearch(ni, pt, &probe, PTL_SEARCH_DELETE, NULL));
    CHECK(PtlCTWait(ct, 1, &count));
    events = 0;
    while (PtlEQGet(eq, &event) == PTL_OK)
      events += event.type == PTL_EVENT_PUT_OVERFLOW;
    probe.match_bits = 0x10;
    probe.ct_handle  = PTL_CT_NONE;
    probe.options    = PTL_ME_OP_PUT;
    CHECK(PtlMESearch(ni, pt, &probe, PTL_SEARCH_ONLY, NULL));
    CHECK(PtlEQWait(eq, &event));
    printf("delete_events=%d delete_success=%d delete_failure=%d after_delete=%d\n", events, (int)count.success,
           (int)count.failure, event.ni_fail_type);
  }
  bxisim_barrier();
  tear_down();
}

/* PtlMDRelease succeeds as soon as the last event (or counter increment) of its operations is seen. */
static void md_release(void)
{
  set_up(64);
  static char target[65536];
  if (rank == 1) {
    ptl_me_t me = make_me(target, sizeof target, 0, ~0ull, PTL_ME_OP_PUT | PTL_ME_OP_GET);
    ptl_handle_me_t handle;
    CHECK(PtlMEAppend(ni, pt, &me, PTL_PRIORITY_LIST, NULL, &handle));
  }
  bxisim_barrier();
  if (rank == 0) {
    static char source[65536];
    ptl_handle_md_t md = bind_md(source, 4096, PTL_CT_NONE, 0);
    CHECK(PtlPut(md, 0, 4096, PTL_NO_ACK_REQ, peer, pt, 0, 0, NULL, 0));
    wait_for(eq, PTL_EVENT_SEND);
    int after_send = PtlMDRelease(md);
    md             = bind_md(source, 65536, PTL_CT_NONE, 0);
    CHECK(PtlPut(md, 0, 65536, PTL_ACK_REQ, peer, pt, 0, 0, NULL, 0));
    wait_for(eq, PTL_EVENT_ACK);
    int after_ack = PtlMDRelease(md);
    md            = bind_md(source, 65536, PTL_CT_NONE, 0);
    CHECK(PtlGet(md, 0, 65536, peer, pt, 0, 0, NULL));
    wait_for(eq, PTL_EVENT_REPLY);
    int after_reply = PtlMDRelease(md);
    ptl_handle_ct_t ct;
    CHECK(PtlCTAlloc(ni, &ct));
    ptl_md_t counted = {source, 256, PTL_MD_EVENT_CT_ACK, PTL_EQ_NONE, ct};
    CHECK(PtlMDBind(ni, &counted, &md));
    CHECK(PtlPut(md, 0, 256, PTL_CT_ACK_REQ, peer, pt, 0, 0, NULL, 0));
    ptl_ct_event_t value;
    CHECK(PtlCTWait(ct, 1, &value));
    int after_count = PtlMDRelease(md);
    printf("release_after_send=%d release_after_ack=%d release_after_reply=%d release_after_count=%d\n", after_send,
           after_ack, after_reply, after_count);
  }
  bxisim_barrier();
  tear_down();
}

/* A full EQ: circular, the newest events are kept, the next PtlEQGet says PTL_EQ_DROPPED. */
static void eq_overflow(void)
{
  set_up(4);
  static char target[64];
  if (rank == 1) {
    ptl_me_t me = make_me(target, sizeof target, 0, ~0ull, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
    ptl_handle_me_t handle;
    CHECK(PtlMEAppend(ni, pt, &me, PTL_PRIORITY_LIST, NULL, &handle));
  }
  bxisim_barrier();
  if (rank == 0) {
    static char source[8];
    ptl_handle_md_t md = bind_md(source, sizeof source, PTL_CT_NONE, PTL_MD_EVENT_SEND_DISABLE);
    for (int i = 1; i <= 6; ++i) {
      CHECK(PtlPut(md, 0, 8, PTL_ACK_REQ, peer, pt, 0, 0, NULL, (ptl_hdr_data_t)i));
      wait_for(eq, PTL_EVENT_ACK);
    }
  }
  bxisim_barrier();
  if (rank == 1) {
    ptl_event_t event;
    int rc;
    printf("drained=");
    while ((rc = PtlEQGet(eq, &event)) != PTL_EQ_EMPTY)
      printf("%s%d,", rc == PTL_EQ_DROPPED ? "dropped:" : "", (int)event.hdr_data);
    printf("\n");
  }
  bxisim_barrier();
  tear_down();
}

/* Misuse: error codes and failure events, never a crash. */
static void misuse(void)
{
  int sync_before_init = PtlAtomicSync();
  set_up(64);
  if (rank == 0) {
    ptl_md_t null_md = {NULL, 8, 0, eq, PTL_CT_NONE};
    ptl_handle_md_t md;
    int null_bind    = PtlMDBind(ni, &null_md, &md);
    ptl_me_t null_me = make_me(NULL, 8, 0, 0, PTL_ME_OP_PUT);
    ptl_handle_me_t me;
    int null_append = PtlMEAppend(ni, pt, &null_me, PTL_PRIORITY_LIST, NULL, &me);
    static char source[4096];
    md                   = bind_md(source, sizeof source, PTL_CT_NONE, 0);
    int beyond_pt        = PtlPut(md, 0, 8, PTL_ACK_REQ, peer, 300, 0, 0, NULL, 0);
    ptl_process_t nobody = peer;
    nobody.phys.nid      = 1000;
    CHECK(PtlPut(md, 0, 4096, PTL_ACK_REQ, nobody, pt, 0, 0, NULL, 0));
    ptl_event_t send = wait_for(eq, PTL_EVENT_SEND);
    ptl_event_t ack  = wait_for(eq, PTL_EVENT_ACK);
    CHECK(PtlGet(md, 0, 8, nobody, pt, 0, 0, NULL));
    ptl_event_t reply = wait_for(eq, PTL_EVENT_REPLY);
    printf("sync_before_init=%d null_bind=%d null_append=%d beyond_pt=%d nowhere_send=%d nowhere_ack=%d "
           "nowhere_reply=%d\n",
           sync_before_init, null_bind, null_append, beyond_pt, send.ni_fail_type, ack.ni_fail_type,
           reply.ni_fail_type);
  }
  bxisim_barrier();
  if (rank == 1) { /* an EQ still attached to a PT may be freed; later messages are delivered quietly */
    static char target[8];
    ptl_me_t me = make_me(target, sizeof target, 0, ~0ull, PTL_ME_OP_PUT);
    ptl_handle_me_t handle;
    CHECK(PtlMEAppend(ni, pt, &me, PTL_PRIORITY_LIST, NULL, &handle));
    printf("eq_free_attached=%d\n", PtlEQFree(eq));
  }
  bxisim_barrier();
  if (rank == 0) {
    static char source[8] = "payload";
    ptl_handle_md_t md    = bind_md(source, sizeof source, PTL_CT_NONE, 0);
    CHECK(PtlPut(md, 0, 8, PTL_ACK_REQ, peer, pt, 0, 0, NULL, 0));
    printf("ack_after_eq_free=%d\n", wait_for(eq, PTL_EVENT_ACK).ni_fail_type);
  }
  bxisim_barrier();
  tear_down();
}

/* Rank 0 leaves with thousands of operations in flight: by PtlNIFini/PtlFini, or by returning from
 * main without them (then its buffer is on its stack). Rank 1 counts what arrives. */
#define kInFlight 50
#define kTriggered 2000
#define kSize 65536

static void post_many(char* buffer)
{
  ptl_handle_ct_t trigger;
  CHECK(PtlCTAlloc(ni, &trigger));
  ptl_handle_md_t md = bind_md(buffer, kSize, PTL_CT_NONE, 0);
  CHECK(PtlPut(md, 0, kSize, PTL_ACK_REQ, peer, pt, 0, 0, NULL, 0)); /* one that surely arrives */
  wait_for(eq, PTL_EVENT_ACK);
  for (int i = 0; i < kInFlight; ++i)
    CHECK(PtlPut(md, 0, kSize, PTL_ACK_REQ, peer, pt, 0, 0, NULL, 0));
  for (int i = 0; i < kTriggered; ++i)
    CHECK(PtlTriggeredPut(md, 0, 1 + i % kSize, PTL_ACK_REQ, peer, pt, 0, 0, NULL, 0, trigger, 1 + i % 2));
  CHECK(PtlCTInc(trigger, (ptl_ct_event_t){1, 0})); /* half of them fire */
}

static void leave_in_flight(int finalize)
{
  set_up(8192);
  static char target[kSize];
  if (rank == 1) {
    ptl_me_t me = make_me(target, sizeof target, 0, ~0ull, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
    ptl_handle_me_t handle;
    CHECK(PtlMEAppend(ni, pt, &me, PTL_PRIORITY_LIST, NULL, &handle));
  }
  bxisim_barrier();
  if (rank == 0) {
    if (finalize) {
      char* buffer = malloc(kSize);
      memset(buffer, 1, kSize);
      post_many(buffer);
      tear_down();
      free(buffer);
    } else {
      char buffer[kSize];
      memset(buffer, 1, kSize);
      post_many(buffer);
    }
    printf("left=1\n");
    return;
  }
  usleep(20000); /* simulated: long after everything */
  int puts = 0;
  ptl_event_t event;
  while (PtlEQGet(eq, &event) == PTL_OK)
    puts += event.type == PTL_EVENT_PUT;
  printf("received=%d data_ok=%d\n", puts, target[0] == 1 && target[kSize - 1] == 1);
  tear_down();
}

static void* call_from_thread(void* argument)
{
  (void)argument;
  ptl_event_t event;
  PtlEQGet(eq, &event);
  return NULL;
}

/* A Portals call from a thread the rank created. */
static void from_thread(void)
{
  set_up(64);
  if (rank == 0) {
    pthread_t thread;
    pthread_create(&thread, NULL, call_from_thread, NULL);
    pthread_join(thread, NULL);
  }
  bxisim_barrier();
  tear_down();
}

/* Rank 0 Puts 3 messages without acknowledgement to rank 1, whose PT 0 has no entry and no flow control: all
 * dropped (PTL_SR_DROP_COUNT 3), and the sender never told. Then one with an ACK: PTL_NI_DROPPED. */
static void silent_drop(void)
{
  set_up(64);
  static char source[8] = "dropped";
  ptl_handle_md_t md    = bind_md(source, sizeof source, PTL_CT_NONE, 0);
  bxisim_barrier(); /* rank 1's PT exists */
  if (rank == 0) {
    for (int i = 0; i < 3; ++i) {
      CHECK(PtlPut(md, 0, sizeof source, PTL_NO_ACK_REQ, peer, pt, 0, 0, NULL, 0));
      wait_for(eq, PTL_EVENT_SEND);
    }
    CHECK(PtlPut(md, 0, sizeof source, PTL_ACK_REQ, peer, pt, 0, 0, NULL, 0));
    ptl_event_t ack = wait_for(eq, PTL_EVENT_ACK);
    printf("acked_fail_type=%d\n", (int)ack.ni_fail_type);
  }
  bxisim_barrier(); /* every Put has reached rank 1 */
  if (rank == 1) {
    ptl_sr_value_t drops = 0;
    CHECK(PtlNIStatus(ni, PTL_SR_DROP_COUNT, &drops));
    printf("drops=%ld\n", (long)drops);
  }
  CHECK(PtlMDRelease(md));
  bxisim_barrier();
  tear_down();
}

/* Each rank fires as many triggered Gets at rank 0 as its NI allows, at once, and leaves after the first reply (as the
 * reference suite's test_*_no_space_triggered_get does): tens of thousands of requests queue on the NICs, and on
 * rank 0's the replies, those to a rank that has left without a payload to read. */
static void triggered_burst(void)
{
  set_up(64);
  static uint64_t source = 42;
  ptl_process_t first    = peer;
  if (rank == 0) {
    CHECK(PtlGetPhysId(ni, &first));
    ptl_me_t me = make_me(&source, sizeof source, 0, ~0ull, PTL_ME_OP_GET | PTL_ME_EVENT_COMM_DISABLE);
    ptl_handle_me_t handle;
    CHECK(PtlMEAppend(ni, pt, &me, PTL_PRIORITY_LIST, NULL, &handle));
  }
  bxisim_barrier();
  int count       = limits.max_triggered_ops;
  uint64_t landed = 0;
  ptl_handle_ct_t trigger, replies;
  CHECK(PtlCTAlloc(ni, &trigger));
  CHECK(PtlCTAlloc(ni, &replies));
  ptl_md_t md = {&landed, sizeof landed, PTL_MD_EVENT_CT_REPLY, PTL_EQ_NONE, replies};
  ptl_handle_md_t handle;
  CHECK(PtlMDBind(ni, &md, &handle));
  for (int i = 0; i < count; ++i)
    CHECK(PtlTriggeredGet(handle, 0, sizeof landed, first, pt, 0, 0, NULL, trigger, 1));
  CHECK(PtlCTInc(trigger, (ptl_ct_event_t){1, 0}));
  ptl_ct_event_t done;
  CHECK(PtlCTWait(replies, 1, &done));
  printf("fired=%d failures=%lu landed=%lu\n", count, (unsigned long)done.failure, (unsigned long)landed);
  bxisim_barrier();
  tear_down();
}

/* Registering triggered operations: each is a command the CPU posts to its NIC, as a Put is. Rank 0 registers
 * kRegistered triggered Puts of 8 B to rank 1 and prints the simulated time that took, then fires them; rank 1 counts
 * what arrived. */
#define kRegistered 2000
static void triggered_registration(void)
{
  set_up(4 * kRegistered);
  static uint64_t word = 7;
  if (rank == 1) {
    ptl_me_t me = make_me(&word, sizeof word, 0, ~0ull, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
    ptl_handle_me_t handle;
    CHECK(PtlMEAppend(ni, pt, &me, PTL_PRIORITY_LIST, NULL, &handle));
  }
  bxisim_barrier();
  if (rank == 0) {
    ptl_handle_ct_t trigger;
    CHECK(PtlCTAlloc(ni, &trigger));
    ptl_handle_md_t md = bind_md(&word, sizeof word, PTL_CT_NONE, 0);
    double start       = bxisim_time();
    for (int i = 0; i < kRegistered; ++i)
      CHECK(PtlTriggeredPut(md, 0, sizeof word, PTL_NO_ACK_REQ, peer, pt, 0, 0, NULL, 0, trigger, 1));
    printf("registered_s=%.12f\n", bxisim_time() - start);
    CHECK(PtlCTInc(trigger, (ptl_ct_event_t){1, 0}));
  }
  bxisim_barrier();
  if (rank == 1) {
    usleep(1000); /* simulated: long after the last Put */
    int puts = 0;
    ptl_event_t event;
    while (PtlEQGet(eq, &event) == PTL_OK)
      puts += event.type == PTL_EVENT_PUT;
    printf("received=%d\n", puts);
  }
  bxisim_barrier();
  tear_down();
}

int main(int argc, char** argv)
{
  rank             = bxisim_rank();
  const char* what = argc > 1 ? argv[1] : "";
  if (strcmp(what, "lists") == 0)
    lists();
  else if (strcmp(what, "search") == 0)
    search();
  else if (strcmp(what, "md_release") == 0)
    md_release();
  else if (strcmp(what, "eq_overflow") == 0)
    eq_overflow();
  else if (strcmp(what, "misuse") == 0)
    misuse();
  else if (strcmp(what, "fini_in_flight") == 0)
    leave_in_flight(1);
  else if (strcmp(what, "return_in_flight") == 0)
    leave_in_flight(0);
  else if (strcmp(what, "silent_drop") == 0)
    silent_drop();
  else if (strcmp(what, "thread") == 0)
    from_thread();
  else if (strcmp(what, "triggered_burst") == 0)
    triggered_burst();
  else if (strcmp(what, "triggered_registration") == 0)
    triggered_registration();
  else {
    fprintf(stderr, "unknown scenario '%s'\n", what);
    return 2;
  }
  return 0;
}
