/* Two initiators, one target: does a small Put wait behind a large one from another NIC? Rank 0 is
 * the target, rank 1 sends 8 B Puts, rank 2 sends a Put of argv[1] bytes (default 64 KiB). Rank 1
 * measures its Put's latency (PtlPut to its ACK) twice: alone, then issued argv[2] seconds (default
 * 1e-6) after rank 2 started its large Put, whose frame is then on its way to the same target. Prints
 * alone=<seconds> and crossed=<seconds>. */
#include <bxisim/rank.h>
#include <portals4.h>

#include "portals_check.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_BYTES (1u << 20)

static unsigned char buffer[MAX_BYTES];

/* Puts `bytes` to `target` and returns the time from the call to its ACK. */
static double put_and_wait_ack(ptl_handle_md_t md, ptl_handle_eq_t eq, ptl_process_t target, size_t bytes)
{
  ptl_event_t event;
  double start = bxisim_time();
  CHECK(PtlPut(md, 0, bytes, PTL_ACK_REQ, target, 0, 0, 0, NULL, 0));
  do
    CHECK(PtlEQWait(eq, &event));
  while (event.type != PTL_EVENT_ACK);
  if (event.ni_fail_type != PTL_NI_OK) {
    fprintf(stderr, "ACK with ni_fail_type %d\n", event.ni_fail_type);
    exit(1);
  }
  return bxisim_time() - start;
}

int main(int argc, char** argv)
{
  size_t large = argc > 1 ? (size_t)atol(argv[1]) : 65536;
  double delay = argc > 2 ? atof(argv[2]) : 1e-6;
  if (bxisim_size() != 3 || large > MAX_BYTES) {
    fprintf(stderr, "usage: bxisim run -n 3 crossing_puts [LARGE_BYTES (<= 1 MiB) [DELAY_SECONDS]]\n");
    return 2;
  }
  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  ptl_process_t me, target;
  CHECK(PtlInit());
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &ni));
  CHECK(PtlGetPhysId(ni, &me));
  CHECK(PtlEQAlloc(ni, 64, &eq));
  if (bxisim_rank() == 0)
    bxisim_kv_put("target", &me, sizeof me);
  bxisim_barrier();
  bxisim_kv_get("target", &target, sizeof target, NULL);

  if (bxisim_rank() == 0) {
    expose_to_anyone(ni, eq, buffer, MAX_BYTES, PTL_ME_OP_PUT | PTL_ME_EVENT_COMM_DISABLE | PTL_ME_EVENT_LINK_DISABLE);
    bxisim_barrier(); /* exposed */
    bxisim_barrier(); /* alone done */
    bxisim_barrier(); /* crossed done */
  } else {
    ptl_md_t md = {.start = buffer, .length = MAX_BYTES, .options = 0, .eq_handle = eq, .ct_handle = PTL_CT_NONE};
    ptl_handle_md_t handle;
    CHECK(PtlMDBind(ni, &md, &handle));
    bxisim_barrier();
    if (bxisim_rank() == 1)
      printf("alone=%.12f\n", put_and_wait_ack(handle, eq, target, 8));
    bxisim_barrier();
    if (bxisim_rank() == 1) {
      bxisim_compute(delay);
      printf("crossed=%.12f\n", put_and_wait_ack(handle, eq, target, 8));
    } else {
      put_and_wait_ack(handle, eq, target, large);
    }
    bxisim_barrier();
  }
  return 0;
}
