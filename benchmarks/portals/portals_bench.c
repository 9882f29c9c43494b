/* Portals micro-benchmarks of thesis 4.6.1 and ptlperf-like modes, built with bxicc and run on two
 * ranks, one per node or both on one node (through the NIC's loopback):
 *   bxisim run -n 2 --ppn 1 ./portals_bench MODE COUNT SIZE...     (or --ppn 2)
 *
 *   put-waitack   one Put at a time, next after its ACK event
 *   put-nowait    COUNT Puts posted back to back, then wait for all ACKs
 *   put-waitsend  next Put after the SEND event of the previous one
 *   put-pair      a Put of SIZE bytes then at once one of 8 B, both with an ACK; the next pair after both
 *                 ACKs (seconds_per_request: per pair); the 8 B payload reaches the target right behind
 *                 the large one (the cycle NIC's DMA writer then has both to write)
 *   get-waitreply one Get at a time, next after its REPLY event
 *   get-nowait    COUNT Gets back to back, then wait for all REPLYs
 *   ack           ptlperf ACK mode: Put with a full ACK, one in flight
 *   ct            ptlperf CT mode: Put with a counting ACK, one in flight, completion read on a CT
 *   reply         ptlperf reply mode: Get, one in flight
 *   match         ptlperf match mode: matched Puts, 256 in flight
 *   pingpong      both ranks: rank 0 Puts SIZE bytes to rank 1, which Puts them back on its PUT event
 *                 (no ACKs), COUNT round trips; seconds_per_request is the one-way time (half a trip),
 *                 the exchange of MPI's ping-pong written directly in Portals (benchmarks/mpi_overhead)
 *
 * Rank 0 prints one CSV line per size: mode,size,seconds_per_request,bandwidth_Bps,requests_per_second
 * (simulated time, read with clock_gettime). */
#include <bxisim/rank.h>
#include <portals4.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    int rc_ = (call);                                                                                                  \
    if (rc_ != PTL_OK) {                                                                                               \
      fprintf(stderr, "%s failed: %d\n", #call, rc_);                                                                  \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

enum { MATCH_BITS = 0x5eed, MATCH_IN_FLIGHT = 256 };

static ptl_handle_ni_t ni;
static ptl_handle_eq_t eq;
static ptl_handle_ct_t ct;
static ptl_handle_md_t md;
static ptl_process_t peer;

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void wait_events(ptl_event_kind_t type, long count)
{
  ptl_event_t event;
  while (count > 0) {
    CHECK(PtlEQWait(eq, &event));
    if (event.ni_fail_type != PTL_NI_OK) {
      fprintf(stderr, "operation failed: ni_fail_type %d\n", event.ni_fail_type);
      exit(1);
    }
    if (event.type == type)
      count--;
  }
}

static void put(size_t size, ptl_ack_req_t ack)
{
  CHECK(PtlPut(md, 0, size, ack, peer, 0, MATCH_BITS, 0, NULL, 0));
}

static void get(size_t size)
{
  CHECK(PtlGet(md, 0, size, peer, 0, MATCH_BITS, 0, NULL));
}

/* Runs COUNT requests of `size` bytes in `mode`; returns the simulated seconds they took. */
static double run(const char* mode, long count, size_t size)
{
  double start = now();
  if (strcmp(mode, "put-waitack") == 0 || strcmp(mode, "ack") == 0) {
    for (long i = 0; i < count; ++i) {
      put(size, PTL_ACK_REQ);
      wait_events(PTL_EVENT_ACK, 1);
    }
  } else if (strcmp(mode, "put-nowait") == 0) {
    for (long i = 0; i < count; ++i)
      put(size, PTL_ACK_REQ);
    wait_events(PTL_EVENT_ACK, count);
  } else if (strcmp(mode, "put-pair") == 0) {
    for (long i = 0; i < count; ++i) {
      put(size, PTL_ACK_REQ);
      put(8, PTL_ACK_REQ);
      wait_events(PTL_EVENT_ACK, 2);
    }
  } else if (strcmp(mode, "put-waitsend") == 0) {
    for (long i = 0; i < count; ++i) {
      put(size, PTL_NO_ACK_REQ);
      wait_events(PTL_EVENT_SEND, 1);
    }
  } else if (strcmp(mode, "get-waitreply") == 0 || strcmp(mode, "reply") == 0) {
    for (long i = 0; i < count; ++i) {
      get(size);
      wait_events(PTL_EVENT_REPLY, 1);
    }
  } else if (strcmp(mode, "get-nowait") == 0) {
    for (long i = 0; i < count; ++i)
      get(size);
    wait_events(PTL_EVENT_REPLY, count);
  } else if (strcmp(mode, "ct") == 0) {
    ptl_ct_event_t done;
    for (long i = 0; i < count; ++i) {
      put(size, PTL_CT_ACK_REQ);
      CHECK(PtlCTWait(ct, (ptl_size_t)(i + 1), &done));
    }
    CHECK(PtlCTSet(ct, (ptl_ct_event_t){0, 0}));
  } else if (strcmp(mode, "match") == 0) {
    long posted = 0, acked = 0;
    while (acked < count) {
      while (posted < count && posted - acked < MATCH_IN_FLIGHT) {
        put(size, PTL_ACK_REQ);
        posted++;
      }
      wait_events(PTL_EVENT_ACK, 1);
      acked++;
    }
  } else {
    fprintf(stderr, "unknown mode '%s': see the comment at the top of portals_bench.c\n", mode);
    exit(2);
  }
  return now() - start;
}

int main(int argc, char** argv)
{
  if (argc < 4) {
    fprintf(stderr, "usage: portals_bench MODE COUNT SIZE... (run with bxisim run -n 2 --ppn 1 or --ppn 2)\n");
    return 2;
  }
  const char* mode = argv[1];
  long count       = atol(argv[2]);
  size_t largest   = 1;
  for (int i = 3; i < argc; ++i)
    if ((size_t)atol(argv[i]) > largest)
      largest = (size_t)atol(argv[i]);
  int rank = bxisim_rank();
  if (bxisim_size() != 2) {
    fprintf(stderr, "portals_bench runs on exactly 2 ranks (bxisim run -n 2 --ppn 1 or --ppn 2)\n");
    return 2;
  }

  CHECK(PtlInit());
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &ni));
  CHECK(PtlEQAlloc(ni, (ptl_size_t)(2 * count + 16), &eq));
  CHECK(PtlCTAlloc(ni, &ct));
  ptl_pt_index_t pt;
  CHECK(PtlPTAlloc(ni, 0, eq, 0, &pt));
  char* buffer = calloc(largest, 1);

  ptl_process_t me;
  CHECK(PtlGetPhysId(ni, &me));
  char key[32];
  snprintf(key, sizeof key, "bench-id-%d", rank);
  bxisim_kv_put(key, &me, sizeof me);
  snprintf(key, sizeof key, "bench-id-%d", 1 - rank);
  size_t got;
  bxisim_kv_get(key, &peer, sizeof peer, &got);

  if (strcmp(mode, "pingpong") == 0) {
    /* Both ranks: an entry that posts a PUT event for each arrival, and a descriptor without ACKs. */
    ptl_me_t entry;
    memset(&entry, 0, sizeof entry);
    entry.start             = buffer;
    entry.length            = largest;
    entry.ct_handle         = PTL_CT_NONE;
    entry.uid               = PTL_UID_ANY;
    entry.options           = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE;
    entry.match_id.phys.nid = PTL_NID_ANY;
    entry.match_id.phys.pid = PTL_PID_ANY;
    entry.match_bits        = MATCH_BITS;
    ptl_handle_me_t handle;
    CHECK(PtlMEAppend(ni, pt, &entry, PTL_PRIORITY_LIST, NULL, &handle));
    ptl_md_t descriptor;
    memset(&descriptor, 0, sizeof descriptor);
    descriptor.start     = buffer;
    descriptor.length    = largest;
    descriptor.options   = PTL_MD_EVENT_SEND_DISABLE;
    descriptor.eq_handle = eq;
    descriptor.ct_handle = PTL_CT_NONE;
    CHECK(PtlMDBind(ni, &descriptor, &md));
    bxisim_barrier();
    for (int i = 3; i < argc; ++i) {
      size_t size  = (size_t)atol(argv[i]);
      double start = now();
      for (long n = 0; n < count; ++n) {
        if (rank == 0)
          put(size, PTL_NO_ACK_REQ);
        wait_events(PTL_EVENT_PUT, 1);
        if (rank == 1)
          put(size, PTL_NO_ACK_REQ);
      }
      double seconds = now() - start;
      if (rank == 0)
        printf("%s,%zu,%.12e,%.12e,%.12e\n", mode, size, seconds / (2.0 * (double)count),
               (double)size * 2.0 * (double)count / seconds, 2.0 * (double)count / seconds);
      bxisim_barrier();
    }
  } else if (rank == 1) {
    /* The target: one persistent entry for every request, no events of its own. */
    ptl_me_t entry;
    memset(&entry, 0, sizeof entry);
    entry.start             = buffer;
    entry.length            = largest;
    entry.ct_handle         = PTL_CT_NONE;
    entry.uid               = PTL_UID_ANY;
    entry.options           = PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_COMM_DISABLE;
    entry.match_id.phys.nid = PTL_NID_ANY;
    entry.match_id.phys.pid = PTL_PID_ANY;
    entry.match_bits        = MATCH_BITS;
    ptl_handle_me_t handle;
    CHECK(PtlMEAppend(ni, pt, &entry, PTL_PRIORITY_LIST, NULL, &handle));
    bxisim_barrier();
    bxisim_barrier(); /* until rank 0 is done */
  } else {
    ptl_md_t descriptor;
    memset(&descriptor, 0, sizeof descriptor);
    descriptor.start     = buffer;
    descriptor.length    = largest;
    descriptor.options   = PTL_MD_EVENT_CT_ACK;
    descriptor.eq_handle = eq;
    descriptor.ct_handle = ct;
    CHECK(PtlMDBind(ni, &descriptor, &md));
    bxisim_barrier();
    for (int i = 3; i < argc; ++i) {
      size_t size    = (size_t)atol(argv[i]);
      double seconds = run(mode, count, size);
      printf("%s,%zu,%.12e,%.12e,%.12e\n", mode, size, seconds / (double)count, (double)size * (double)count / seconds,
             (double)count / seconds);
    }
    bxisim_barrier();
  }
  free(buffer);
  PtlNIFini(ni);
  PtlFini();
  return 0;
}
