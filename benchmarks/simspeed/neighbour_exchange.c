/* A neighbour exchange for the simulator-speed benchmark: every rank Puts BYTES to the next rank
 * (rank + 1 mod N), ROUNDS times, each time waiting for its ACK and for its own neighbour's Put.
 *   bxisim run -n N ./neighbour_exchange [rounds] [bytes]
 * Rank 0 prints: ranks,rounds,bytes,simulated_seconds. */
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
      fprintf(stderr, "rank %d: %s failed: %d\n", bxisim_rank(), #call, rc_);                                          \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char** argv)
{
  long rounds  = argc > 1 ? atol(argv[1]) : 1;
  size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 8;
  int rank = bxisim_rank(), size = bxisim_size();
  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  ptl_pt_index_t pt;
  CHECK(PtlInit());
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &ni));
  CHECK(PtlEQAlloc(ni, 64, &eq));
  CHECK(PtlPTAlloc(ni, 0, eq, 0, &pt));
  char* buffer = calloc(2, bytes > 0 ? bytes : 1);

  ptl_process_t me, next;
  CHECK(PtlGetPhysId(ni, &me));
  char key[32];
  snprintf(key, sizeof key, "id-%d", rank);
  bxisim_kv_put(key, &me, sizeof me);
  snprintf(key, sizeof key, "id-%d", (rank + 1) % size);
  size_t got;
  bxisim_kv_get(key, &next, sizeof next, &got);

  ptl_me_t entry;
  memset(&entry, 0, sizeof entry);
  entry.start             = buffer + bytes;
  entry.length            = bytes;
  entry.ct_handle         = PTL_CT_NONE;
  entry.uid               = PTL_UID_ANY;
  entry.options           = PTL_ME_OP_PUT;
  entry.match_id.phys.nid = PTL_NID_ANY;
  entry.match_id.phys.pid = PTL_PID_ANY;
  ptl_handle_me_t me_handle;
  CHECK(PtlMEAppend(ni, pt, &entry, PTL_PRIORITY_LIST, NULL, &me_handle));
  ptl_md_t descriptor;
  memset(&descriptor, 0, sizeof descriptor);
  descriptor.start     = buffer;
  descriptor.length    = bytes;
  descriptor.eq_handle = eq;
  descriptor.ct_handle = PTL_CT_NONE;
  descriptor.options   = PTL_MD_EVENT_SEND_DISABLE;
  ptl_handle_md_t md;
  CHECK(PtlMDBind(ni, &descriptor, &md));
  bxisim_barrier();

  /* Counted over the whole run: the previous rank may already have sent its next round. */
  long acked = 0, received = 0;
  double start = now();
  for (long round = 0; round < rounds; ++round) {
    CHECK(PtlPut(md, 0, bytes, PTL_ACK_REQ, next, pt, 0, 0, NULL, 0));
    while (acked <= round || received <= round) {
      ptl_event_t event;
      CHECK(PtlEQWait(eq, &event));
      if (event.ni_fail_type != PTL_NI_OK) {
        fprintf(stderr, "rank %d: event %d failed: %d\n", rank, event.type, event.ni_fail_type);
        return 1;
      }
      acked += event.type == PTL_EVENT_ACK;
      received += event.type == PTL_EVENT_PUT;
    }
  }
  double seconds = now() - start;
  bxisim_barrier();
  if (rank == 0)
    printf("%d,%ld,%zu,%.12e\n", size, rounds, bytes, seconds);
  CHECK(PtlMDRelease(md));
  CHECK(PtlMEUnlink(me_handle));
  PtlNIFini(ni);
  PtlFini();
  free(buffer);
  return 0;
}
