/* Compiled as C99 with -Wpedantic -Werror: portals4.h must be valid C. Uses the API the way a C program
 * (OpenMPI's components) does: designated initializers, the unions, and calls. */
#include <portals4.h>

#include <stddef.h>

int bxisim_portals_c_header_check(void)
{
  ptl_handle_ni_t ni;
  ptl_ni_limits_t limits;
  ptl_process_t me;
  ptl_handle_eq_t eq;
  ptl_pt_index_t pt;
  ptl_me_t entry = {.start       = NULL,
                    .length      = 0,
                    .ct_handle   = PTL_CT_NONE,
                    .uid         = PTL_UID_ANY,
                    .options     = PTL_ME_OP_PUT | PTL_ME_USE_ONCE | PTL_ME_ACK_DISABLE,
                    .match_bits  = 1,
                    .ignore_bits = 0,
                    .min_free    = 0};
  ptl_handle_me_t meh;
  ptl_event_t ev;
  int rc;
  entry.match_id.phys.nid = PTL_NID_ANY;
  entry.match_id.phys.pid = PTL_PID_ANY;
  if (PtlInit() != PTL_OK)
    return 1;
  if (PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, &limits, &ni) != PTL_OK)
    return 2;
  if (PtlGetPhysId(ni, &me) != PTL_OK)
    return 3;
  if (PtlEQAlloc(ni, 8, &eq) != PTL_OK || PtlPTAlloc(ni, PTL_PT_FLOWCTRL, eq, PTL_PT_ANY, &pt) != PTL_OK)
    return 4;
  if (PtlMEAppend(ni, pt, &entry, PTL_PRIORITY_LIST, NULL, &meh) != PTL_OK)
    return 5;
  rc = PtlEQGet(eq, &ev);
  if (rc != PTL_OK || ev.type != PTL_EVENT_LINK)
    return 6;
  if (PtlEQGet(eq, &ev) != PTL_EQ_EMPTY || PtlHandleIsEqual(ni, ni) != 1)
    return 7;
  if (PtlMEUnlink(meh) != PTL_OK || PtlPTFree(ni, pt) != PTL_OK || PtlEQFree(eq) != PTL_OK)
    return 8;
  if (PtlNIFini(ni) != PTL_OK)
    return 9;
  PtlFini();
  return (int)limits.max_pt_index > 0 ? 0 : 10;
}
