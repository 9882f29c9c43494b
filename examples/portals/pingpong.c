/* Portals ping-pong between rank 0 and the last rank, built with bxicc and run by
 *   bxisim run -n 2 --ppn 1 --level message ./pingpong [size] [iterations] [wait|poll]
 * Each rank exposes one buffer on PT 0; rank 0 Puts `size` bytes, the peer answers with a Put of the
 * same size when its PUT event arrives. Prints the simulated half round-trip time. Peers find each
 * other's physical id through bxisim's key/value store. */
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

static int polling; /* wait for events with a PtlEQGet loop, as MPI libraries do, instead of PtlEQWait */

static ptl_event_t wait_for(ptl_handle_eq_t eq, ptl_event_kind_t type)
{
  ptl_event_t event;
  do {
    if (polling) {
      int rc;
      while ((rc = PtlEQGet(eq, &event)) == PTL_EQ_EMPTY)
        ;
      CHECK(rc);
    } else {
      CHECK(PtlEQWait(eq, &event));
    }
  } while (event.type != type);
  return event;
}

int main(int argc, char** argv)
{
  size_t size    = argc > 1 ? (size_t)atol(argv[1]) : 8;
  int iterations = argc > 2 ? atoi(argv[2]) : 10;
  polling        = argc > 3 && strcmp(argv[3], "poll") == 0;
  int rank = bxisim_rank(), peer_rank = rank == 0 ? bxisim_size() - 1 : 0;
  if (rank != 0 && rank != bxisim_size() - 1) {
    bxisim_barrier(); /* every rank takes part in the start-up barrier; only the two ends play */
    return 0;
  }

  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  ptl_pt_index_t pt;
  ptl_process_t me, peer;
  CHECK(PtlInit());
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &ni));
  CHECK(PtlEQAlloc(ni, 64, &eq));
  CHECK(PtlPTAlloc(ni, 0, eq, 0, &pt));
  CHECK(PtlGetPhysId(ni, &me));

  char* buffer = calloc(size ? size : 1, 1);
  ptl_me_t me_entry;
  memset(&me_entry, 0, sizeof me_entry);
  me_entry.start             = buffer;
  me_entry.length            = size;
  me_entry.ct_handle         = PTL_CT_NONE;
  me_entry.uid               = PTL_UID_ANY;
  me_entry.options           = PTL_ME_OP_PUT;
  me_entry.match_id.phys.nid = PTL_NID_ANY;
  me_entry.match_id.phys.pid = PTL_PID_ANY;
  ptl_handle_me_t me_handle;
  CHECK(PtlMEAppend(ni, pt, &me_entry, PTL_PRIORITY_LIST, NULL, &me_handle));

  ptl_md_t md;
  memset(&md, 0, sizeof md);
  md.start     = buffer;
  md.length    = size;
  md.eq_handle = eq;
  md.ct_handle = PTL_CT_NONE;
  ptl_handle_md_t md_handle;
  CHECK(PtlMDBind(ni, &md, &md_handle));

  char key[32];
  snprintf(key, sizeof key, "portals-id-%d", rank);
  bxisim_kv_put(key, &me, sizeof me);
  snprintf(key, sizeof key, "portals-id-%d", peer_rank);
  size_t got;
  bxisim_kv_get(key, &peer, sizeof peer, &got);
  bxisim_barrier();

  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (int i = 0; i < iterations; ++i) {
    if (rank == 0) {
      CHECK(PtlPut(md_handle, 0, size, PTL_NO_ACK_REQ, peer, pt, 0, 0, NULL, 0));
      wait_for(eq, PTL_EVENT_PUT);
    } else {
      wait_for(eq, PTL_EVENT_PUT);
      CHECK(PtlPut(md_handle, 0, size, PTL_NO_ACK_REQ, peer, pt, 0, 0, NULL, 0));
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  if (rank == 0) {
    double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) * 1e-9;
    printf("pingpong: %zu bytes, %d iterations, half round trip %.6f us (nodes %u and %u)\n", size, iterations,
           seconds / iterations / 2 * 1e6, me.phys.nid, peer.phys.nid);
  }
  /* The last Put may still be reading the buffer: release the MD (PTL_IN_USE until its operations are
   * done; polling lets simulated time advance) before freeing the memory. */
  ptl_event_t pending;
  while (PtlMDRelease(md_handle) == PTL_IN_USE)
    PtlEQGet(eq, &pending);
  free(buffer);
  PtlNIFini(ni);
  PtlFini();
  return 0;
}
