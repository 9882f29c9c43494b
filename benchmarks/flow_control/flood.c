/* The flow-control experiment of thesis 7.1 (figure 7.1), in Portals: on two switches joined by one
 * link, pair p joins node p (switch 0) to node k+p (switch 1), k nodes per switch, `ppn` ranks per
 * node (rank = node * ppn + local rank). Pair 0 is the victim: its first ranks send `count`
 * messages of `size` bytes one after the other (Put with ACK), after `warmup_us` microseconds, and
 * print the mean latency. Pairs 1..k-1 flood: every rank of node p sends `size`-byte Puts to the
 * same local rank of node k+p as fast as its NIC takes them, until the victim tells it to stop.
 *
 *   flood <size> <count> <warmup_us> [window]
 *
 * A flooding process keeps at most `window` Puts (default 32) not yet sent (a benchmark's in-flight
 * window, as ptlperf's): without it, and without NIC flow control, the backlog on the shared link
 * grows without bound while the victim measures.
 *
 * Prints "victim,<size>,<count>,<mean seconds>,<first>,<last>" from the victim's initiator.
 * Runs with bxisim run -n 2*k*ppn --ppn ppn --platform two-switches --set platform.nodes_per_switch=k
 * (the default placement fills nodes in order: rank = node * ppn + local rank). */
#include <bxisim/rank.h>
#include <portals4.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { kDataPt = 0, kStopPt = 1 };
static const ptl_match_bits_t kBits = 0xF10;

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    int rc_ = (call);                                                                                                  \
    if (rc_ != PTL_OK) {                                                                                               \
      fprintf(stderr, "%s failed: %d (line %d)\n", #call, rc_, __LINE__);                                              \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static ptl_handle_ni_t ni;

/* A persistent ME on `pt` over `buffer` counting its Puts in a CT; returns the CT. */
static ptl_handle_ct_t expose(ptl_pt_index_t pt, void* buffer, size_t length)
{
  ptl_handle_ct_t ct;
  ptl_pt_index_t index;
  CHECK(PtlCTAlloc(ni, &ct));
  CHECK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, pt, &index));
  ptl_me_t me;
  memset(&me, 0, sizeof me);
  me.start             = buffer;
  me.length            = length;
  me.ct_handle         = ct;
  me.uid               = PTL_UID_ANY;
  me.options           = PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_SUCCESS_DISABLE;
  me.match_id.phys.nid = PTL_NID_ANY;
  me.match_id.phys.pid = PTL_PID_ANY;
  me.match_bits        = kBits;
  ptl_handle_me_t handle;
  CHECK(PtlMEAppend(ni, pt, &me, PTL_PRIORITY_LIST, NULL, &handle));
  return ct;
}

static ptl_handle_md_t bind(void* buffer, size_t length, ptl_handle_ct_t ct, ptl_handle_eq_t eq, unsigned options)
{
  ptl_md_t md;
  memset(&md, 0, sizeof md);
  md.start     = buffer;
  md.length    = length;
  md.options   = options;
  md.eq_handle = eq;
  md.ct_handle = ct;
  ptl_handle_md_t handle;
  CHECK(PtlMDBind(ni, &md, &handle));
  return handle;
}

static ptl_process_t address(int node, int local)
{
  ptl_process_t id;
  id.phys.nid = (ptl_nid_t)node;
  id.phys.pid = (ptl_pid_t)(local + 1); /* bxisim's pid for PTL_PID_ANY: 1 + the local rank */
  return id;
}

static void wait_count(ptl_handle_ct_t ct, ptl_size_t count)
{
  ptl_ct_event_t event;
  CHECK(PtlCTWait(ct, count, &event));
  if (event.failure != 0) {
    fprintf(stderr, "flood: %lu operations failed (E2E gave up on them: congestion beyond nic.e2e_timeout?)\n",
            (unsigned long)event.failure);
    exit(3);
  }
}

int main(int argc, char** argv)
{
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: %s <size> <count> <warmup_us> [window]\n", argv[0]);
    return 2;
  }
  size_t size       = strtoul(argv[1], NULL, 10);
  int count         = atoi(argv[2]);
  long warmup       = atol(argv[3]);
  ptl_size_t window = argc == 5 ? strtoul(argv[4], NULL, 10) : 32;
  int rank          = bxisim_rank();
  int ranks         = bxisim_size();
  int ppn           = bxisim_local_size();
  if (ranks % (2 * ppn) != 0) {
    fprintf(stderr, "flood: run with bxisim run -n 2*k*ppn --ppn ppn on two-switches (k nodes per switch)\n");
    return 2;
  }
  int k      = ranks / ppn / 2;
  int node   = rank / ppn;
  int local  = rank % ppn;
  int pair   = node % k;
  int left   = node < k; /* initiators are on switch 0 */
  int victim = pair == 0;
  if (victim && local != 0)
    return 0; /* the victim pair runs one process per node */

  CHECK(PtlInit());
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &ni));
  char* buffer = calloc(size > 0 ? size : 1, 1);
  static char stop_word[8];
  ptl_handle_ct_t stop = expose(kStopPt, stop_word, sizeof stop_word);
  if (!left) { /* a target: takes the Puts until its initiator says it is done */
    expose(kDataPt, buffer, size);
    wait_count(stop, 1);
    CHECK(PtlNIFini(ni));
    PtlFini();
    return 0;
  }
  ptl_process_t peer = address(node + k, local);
  ptl_handle_ct_t sent;
  CHECK(PtlCTAlloc(ni, &sent));
  ptl_handle_md_t none = bind(stop_word, sizeof stop_word, PTL_CT_NONE, PTL_EQ_NONE, 0);
  if (victim) {
    ptl_handle_md_t md    = bind(buffer, size, sent, PTL_EQ_NONE, PTL_MD_EVENT_CT_ACK);
    struct timespec pause = {warmup / 1000000, (warmup % 1000000) * 1000};
    nanosleep(&pause, NULL);
    double total = 0, first = 0, last = 0;
    for (int i = 0; i < count; ++i) {
      double start = now();
      CHECK(PtlPut(md, 0, size, PTL_ACK_REQ, peer, kDataPt, kBits, 0, NULL, 0));
      wait_count(sent, (ptl_size_t)i + 1);
      last = now() - start;
      if (i == 0)
        first = last;
      total += last;
    }
    printf("victim,%zu,%d,%.12e,%.12e,%.12e\n", size, count, total / count, first, last);
    fflush(stdout);
    /* Stop the flooders (every rank of nodes 1..k-1) and the victim's target. */
    for (int p = 1; p < k; ++p)
      for (int l = 0; l < ppn; ++l)
        CHECK(PtlPut(none, 0, 0, PTL_NO_ACK_REQ, address(p, l), kStopPt, kBits, 0, NULL, 0));
    CHECK(PtlPut(none, 0, 0, PTL_NO_ACK_REQ, peer, kStopPt, kBits, 0, NULL, 0));
  } else {
    ptl_handle_md_t md = bind(buffer, size, sent, PTL_EQ_NONE, PTL_MD_EVENT_CT_SEND);
    ptl_size_t posted  = 0;
    ptl_ct_event_t stopped;
    for (;;) {
      CHECK(PtlCTGet(stop, &stopped));
      if (stopped.success > 0)
        break;
      if (posted >= window)
        wait_count(sent, posted - window + 1);
      CHECK(PtlPut(md, 0, size, PTL_NO_ACK_REQ, peer, kDataPt, kBits, 0, NULL, 0));
      ++posted;
    }
    wait_count(sent, posted);
    CHECK(PtlPut(none, 0, 0, PTL_NO_ACK_REQ, peer, kStopPt, kBits, 0, NULL, 0));
  }
  /* Let the last Puts leave before the NI goes (PtlNIFini would copy their payloads otherwise). */
  struct timespec drain = {0, 100000};
  nanosleep(&drain, NULL);
  CHECK(PtlNIFini(ni));
  PtlFini();
  return 0;
}
