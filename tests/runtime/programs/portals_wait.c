/* A Portals deadlock: rank argv[2] waits for an event that never comes, in PtlEQWait ("eq") or in
 * PtlCTWait for a count of argv[3] ("ct"); the other ranks return. Prints the handle it waits on. */
#include <bxisim/rank.h>
#include <portals4.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv)
{
  if (argc < 3 || bxisim_rank() != atoi(argv[2]))
    return 0;
  ptl_handle_ni_t ni;
  PtlInit();
  if (PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &ni) != PTL_OK)
    return 1;
  if (strcmp(argv[1], "eq") == 0) {
    ptl_handle_eq_t eq;
    ptl_event_t event;
    PtlEQAlloc(ni, 8, &eq);
    printf("handle=%#x\n", eq);
    PtlEQWait(eq, &event);
  } else {
    ptl_handle_ct_t ct;
    ptl_ct_event_t count;
    PtlCTAlloc(ni, &ct);
    printf("handle=%#x\n", ct);
    PtlCTWait(ct, (ptl_size_t)atol(argv[3]), &count);
  }
  return 0;
}
