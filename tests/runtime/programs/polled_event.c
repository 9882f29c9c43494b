/* When does a polling loop see an event? Rank 1 Puts 8 B to rank 0 after argv[1] seconds (default
 * 50e-6) of computation; rank 0 waits for the PUT event either by polling PtlEQGet in a loop
 * (argv[2] = "poll", the default) or by blocking in PtlEQWait ("wait"), and prints seen=<seconds>,
 * the simulated time it had the event, and empty_polls=<count>, the PtlEQGet calls that found nothing. */
#include <bxisim/rank.h>
#include <portals4.h>

#include "portals_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv)
{
  double delay = argc > 1 ? atof(argv[1]) : 50e-6;
  int poll     = argc <= 2 || strcmp(argv[2], "wait") != 0;
  if (bxisim_size() != 2) {
    fprintf(stderr, "usage: bxisim run -n 2 polled_event [DELAY_SECONDS [poll|wait]]\n");
    return 2;
  }
  static char buffer[64];
  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  ptl_process_t me, target;
  ptl_event_t event;
  CHECK(PtlInit());
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &ni));
  CHECK(PtlGetPhysId(ni, &me));
  CHECK(PtlEQAlloc(ni, 16, &eq));
  if (bxisim_rank() == 0) {
    ptl_pt_index_t pt;
    CHECK(PtlPTAlloc(ni, 0, eq, 0, &pt));
    ptl_me_t entry = {.start       = buffer,
                      .length      = sizeof buffer,
                      .ct_handle   = PTL_CT_NONE,
                      .uid         = PTL_UID_ANY,
                      .options     = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE,
                      .match_id    = {.phys = {.nid = PTL_NID_ANY, .pid = PTL_PID_ANY}},
                      .match_bits  = 0,
                      .ignore_bits = ~0ull};
    ptl_handle_me_t handle;
    CHECK(PtlMEAppend(ni, pt, &entry, PTL_PRIORITY_LIST, NULL, &handle));
    bxisim_kv_put("target", &me, sizeof me);
    bxisim_barrier();
    int rc;
    long empty_polls = 0;
    do {
      rc = poll ? PtlEQGet(eq, &event) : PtlEQWait(eq, &event);
      if (rc == PTL_EQ_EMPTY)
        empty_polls++;
      else if (rc != PTL_OK)
        CHECK(rc);
    } while (rc == PTL_EQ_EMPTY || event.type != PTL_EVENT_PUT);
    printf("seen=%.12f empty_polls=%ld\n", bxisim_time(), empty_polls);
  } else {
    bxisim_barrier();
    bxisim_kv_get("target", &target, sizeof target, NULL);
    ptl_md_t md = {.start = buffer, .length = sizeof buffer, .options = 0, .eq_handle = eq, .ct_handle = PTL_CT_NONE};
    ptl_handle_md_t handle;
    CHECK(PtlMDBind(ni, &md, &handle));
    bxisim_compute(delay);
    CHECK(PtlPut(handle, 0, 8, PTL_ACK_REQ, target, 0, 0, 0, NULL, 0));
    do
      CHECK(PtlEQWait(eq, &event));
    while (event.type != PTL_EVENT_ACK);
  }
  return 0;
}
