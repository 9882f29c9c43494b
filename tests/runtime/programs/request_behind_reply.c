/* Does a request wait for the response a NIC is sending? Rank 0 serves a Get of argv[1] bytes (default
 * 1 MiB) that rank 1 issues, and sends 8 B Puts to rank 2. Rank 0 measures its Put's latency (PtlPut to
 * its ACK) twice: alone, then issued argv[2] seconds (default 5e-6) after rank 1 issued its Get, while
 * rank 0's NIC sends the reply. Prints alone=<seconds> and crossed=<seconds> (rank 0), reply=<seconds>
 * (rank 1: PtlGet to its REPLY event). With a fourth rank, rank 3 Puts as many bytes to rank 1 when
 * rank 1 issues its Get: the reply shares the way into rank 1's node and takes longer. Rank 3 prints
 * put=<seconds> (PtlPut to its ACK). */
#include <bxisim/rank.h>
#include <portals4.h>

#include "portals_check.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_BYTES (4u << 20)

static unsigned char buffer[MAX_BYTES];

static void wait_for(ptl_handle_eq_t eq, ptl_event_kind_t kind)
{
  ptl_event_t event;
  do
    CHECK(PtlEQWait(eq, &event));
  while (event.type != kind);
  if (event.ni_fail_type != PTL_NI_OK) {
    fprintf(stderr, "event %d with ni_fail_type %d\n", (int)kind, event.ni_fail_type);
    exit(1);
  }
}

static double put_and_wait_ack(ptl_handle_md_t md, ptl_handle_eq_t eq, ptl_process_t target)
{
  double start = bxisim_time();
  CHECK(PtlPut(md, 0, 8, PTL_ACK_REQ, target, 0, 0, 0, NULL, 0));
  wait_for(eq, PTL_EVENT_ACK);
  return bxisim_time() - start;
}

static void publish(const char* key, ptl_process_t id)
{
  bxisim_kv_put(key, &id, sizeof id);
}

static ptl_process_t lookup(const char* key)
{
  ptl_process_t id;
  bxisim_kv_get(key, &id, sizeof id, NULL);
  return id;
}

int main(int argc, char** argv)
{
  size_t large = argc > 1 ? (size_t)atol(argv[1]) : 1u << 20;
  double delay = argc > 2 ? atof(argv[2]) : 5e-6;
  int size     = bxisim_size();
  if ((size != 3 && size != 4) || large > MAX_BYTES) {
    fprintf(stderr, "usage: bxisim run -n 3|4 request_behind_reply [GET_BYTES (<= 4 MiB) [DELAY_SECONDS]]\n");
    return 2;
  }
  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  ptl_process_t me = open_matching_interface(&ni, &eq);
  int rank         = bxisim_rank();
  if (rank != 3) { /* rank 0 serves Gets, ranks 1 and 2 take Puts */
    expose_to_anyone(ni, eq, buffer, MAX_BYTES,
                     (rank == 0 ? PTL_ME_OP_GET : PTL_ME_OP_PUT) | PTL_ME_EVENT_COMM_DISABLE |
                         PTL_ME_EVENT_LINK_DISABLE);
    publish(rank == 0 ? "server" : rank == 1 ? "initiator" : "sink", me);
  }
  bxisim_barrier(); /* exposed */
  ptl_md_t md = {.start = buffer, .length = MAX_BYTES, .options = 0, .eq_handle = eq, .ct_handle = PTL_CT_NONE};
  ptl_handle_md_t handle;
  CHECK(PtlMDBind(ni, &md, &handle));
  if (rank == 0)
    printf("alone=%.12f\n", put_and_wait_ack(handle, eq, lookup("sink")));
  bxisim_barrier(); /* alone done */
  if (rank == 0) {
    bxisim_compute(delay);
    printf("crossed=%.12f\n", put_and_wait_ack(handle, eq, lookup("sink")));
  } else if (rank == 1) {
    double start = bxisim_time();
    CHECK(PtlGet(handle, 0, large, lookup("server"), 0, 0, 0, NULL));
    wait_for(eq, PTL_EVENT_REPLY);
    printf("reply=%.12f\n", bxisim_time() - start);
  } else if (rank == 3) {
    double start = bxisim_time();
    CHECK(PtlPut(handle, 0, large, PTL_ACK_REQ, lookup("initiator"), 0, 0, 0, NULL, 0));
    wait_for(eq, PTL_EVENT_ACK);
    printf("put=%.12f\n", bxisim_time() - start);
  }
  bxisim_barrier(); /* crossed done */
  return 0;
}
