/* A frame that can never leave must not keep the link from the frames behind it. Rank 0 Puts 64 KiB
 * to rank 1, then 8 B to rank 1, then 8 B to node 999, which the machine does not have; 1 us after
 * they start, rank 1 Gets 64 KiB from rank 0. Rank 0's NIC sends the Get's BXI ACK after the 64 KiB
 * Put, then the 8 B Put, and then the last Put is due before the 64 KiB reply (the link's turns count
 * packets), but it is undeliverable: the reply must go next. Prints reply=<seconds> and
 * reply_fail=<ni_fail_type> (rank 1, PtlGet to its REPLY event), put=<seconds> (rank 0, the last ACK
 * of the deliverable Puts) and undeliverable=<ni_fail_type> (rank 0, the third Put's ACK). */
#include <bxisim/rank.h>
#include <portals4.h>

#include "portals_check.h"

#include <stdio.h>

#define BYTES (64u << 10)

static unsigned char exposed[BYTES], local[BYTES];

static ptl_event_t wait_for(ptl_handle_eq_t eq, ptl_event_kind_t kind)
{
  ptl_event_t event;
  do
    CHECK(PtlEQWait(eq, &event));
  while (event.type != kind);
  return event;
}

int main(void)
{
  if (bxisim_size() != 2) {
    fprintf(stderr, "usage: bxisim run -n 2 undeliverable_behind_put\n");
    return 2;
  }
  int rank = bxisim_rank();
  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  ptl_process_t me = open_matching_interface(&ni, &eq);
  expose_to_anyone(ni, eq, exposed, BYTES,
                   PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_COMM_DISABLE | PTL_ME_EVENT_LINK_DISABLE);
  bxisim_kv_put(rank == 0 ? "zero" : "one", &me, sizeof me);
  bxisim_barrier();
  ptl_process_t peer;
  bxisim_kv_get(rank == 0 ? "one" : "zero", &peer, sizeof peer, NULL);
  ptl_md_t md = {.start = local, .length = BYTES, .options = 0, .eq_handle = eq, .ct_handle = PTL_CT_NONE};
  ptl_handle_md_t handle;
  CHECK(PtlMDBind(ni, &md, &handle));
  double start = bxisim_time();
  if (rank == 0) {
    ptl_process_t nowhere = {.phys = {.nid = 999, .pid = peer.phys.pid}};
    CHECK(PtlPut(handle, 0, BYTES, PTL_ACK_REQ, peer, 0, 0, 0, NULL, 0));
    CHECK(PtlPut(handle, 0, 8, PTL_ACK_REQ, peer, 0, 0, 0, NULL, 0));
    CHECK(PtlPut(handle, 0, 8, PTL_ACK_REQ, nowhere, 0, 0, 0, NULL, 0));
    int acks = 0, failed = PTL_NI_OK;
    double put = 0;
    while (acks < 3) { /* the three Puts' ACK events, in any order */
      ptl_event_t event = wait_for(eq, PTL_EVENT_ACK);
      if (event.ni_fail_type == PTL_NI_OK)
        put = bxisim_time() - start;
      else
        failed = event.ni_fail_type;
      ++acks;
    }
    printf("put=%.12f\nundeliverable=%d\n", put, failed);
  } else {
    bxisim_compute(1e-6);
    CHECK(PtlGet(handle, 0, BYTES, peer, 0, 0, 0, NULL));
    ptl_event_t event = wait_for(eq, PTL_EVENT_REPLY);
    printf("reply=%.12f\nreply_fail=%d\n", bxisim_time() - start, event.ni_fail_type);
  }
  bxisim_barrier();
  return 0;
}
