/* The smallest Portals program worth launching at scale: every rank opens its NI, exposes a buffer,
 * Puts 8 bytes to the next rank (rank + 1 mod N) and waits for its neighbour's Put and for its own
 * SEND. Rank 0 prints the simulated time at the end. */
#include <bxisim/rank.h>
#include <portals4.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    int rc_ = (call);                                                                                                  \
    if (rc_ != PTL_OK) {                                                                                               \
      fprintf(stderr, "rank %d: %s failed: %d\n", bxisim_rank(), #call, rc_);                                          \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

int main(void)
{
  int rank = bxisim_rank(), size = bxisim_size();
  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  ptl_pt_index_t pt;
  ptl_process_t me, next;
  char buffer[16] = {0};
  CHECK(PtlInit());
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &ni));
  CHECK(PtlEQAlloc(ni, 8, &eq));
  CHECK(PtlPTAlloc(ni, 0, eq, 0, &pt));
  CHECK(PtlGetPhysId(ni, &me));

  char key[32];
  snprintf(key, sizeof key, "id-%d", rank);
  bxisim_kv_put(key, &me, sizeof me);
  snprintf(key, sizeof key, "id-%d", (rank + 1) % size);
  bxisim_kv_get(key, &next, sizeof next, NULL);

  ptl_me_t entry;
  memset(&entry, 0, sizeof entry);
  entry.start             = buffer + 8;
  entry.length            = 8;
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
  descriptor.length    = 8;
  descriptor.eq_handle = eq;
  descriptor.ct_handle = PTL_CT_NONE;
  ptl_handle_md_t md;
  CHECK(PtlMDBind(ni, &descriptor, &md));
  bxisim_barrier(); /* every ME is in place before the first Put */

  CHECK(PtlPut(md, 0, 8, PTL_NO_ACK_REQ, next, pt, 0, 0, NULL, 0));
  int sent = 0, received = 0;
  while (!sent || !received) {
    ptl_event_t event;
    CHECK(PtlEQWait(eq, &event));
    sent |= event.type == PTL_EVENT_SEND;
    received |= event.type == PTL_EVENT_PUT;
  }
  CHECK(PtlMDRelease(md));
  CHECK(PtlNIFini(ni));
  PtlFini();
  if (rank == 0)
    printf("trivial_portals: %d ranks, simulated time %.9f s\n", size, bxisim_time());
  return 0;
}
