/* C entry points: list entries and match list entries. */
#include "portals/api/Guard.hpp"

using bxisim::portals::Core;
using bxisim::portals::guarded;
using bxisim::portals::toSpec;

extern "C" {

int PtlLEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le, ptl_list_t ptl_list,
                void* user_ptr, ptl_handle_le_t* le_handle)
{
  return guarded("PtlLEAppend", [&](Core& c) {
    return le == nullptr ? PTL_ARG_INVALID : c.append(ni_handle, pt_index, toSpec(*le), ptl_list, user_ptr, le_handle);
  });
}

int PtlLEUnlink(ptl_handle_le_t le_handle)
{
  return guarded("PtlLEUnlink", [&](Core& c) { return c.unlink(le_handle, false); });
}

int PtlLESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le, ptl_search_op_t ptl_search_op,
                void* user_ptr)
{
  return guarded("PtlLESearch", [&](Core& c) {
    return le == nullptr ? PTL_ARG_INVALID : c.search(ni_handle, pt_index, toSpec(*le), ptl_search_op, user_ptr);
  });
}

int PtlMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me, ptl_list_t ptl_list,
                void* user_ptr, ptl_handle_me_t* me_handle)
{
  return guarded("PtlMEAppend", [&](Core& c) {
    return me == nullptr ? PTL_ARG_INVALID : c.append(ni_handle, pt_index, toSpec(*me), ptl_list, user_ptr, me_handle);
  });
}

int PtlMEUnlink(ptl_handle_me_t me_handle)
{
  return guarded("PtlMEUnlink", [&](Core& c) { return c.unlink(me_handle, true); });
}

int PtlMESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me, ptl_search_op_t ptl_search_op,
                void* user_ptr)
{
  return guarded("PtlMESearch", [&](Core& c) {
    return me == nullptr ? PTL_ARG_INVALID : c.search(ni_handle, pt_index, toSpec(*me), ptl_search_op, user_ptr);
  });
}

int PtlTriggeredLEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le, ptl_list_t ptl_list,
                         void* user_ptr, ptl_handle_le_t* le_handle, ptl_handle_ct_t trig_ct_handle,
                         ptl_size_t threshold)
{
  return guarded("PtlTriggeredLEAppend", [&](Core& c) {
    return le == nullptr ? PTL_ARG_INVALID
                         : c.triggeredAppend(ni_handle, pt_index, toSpec(*le), ptl_list, user_ptr, le_handle,
                                             trig_ct_handle, threshold);
  });
}

int PtlTriggeredLEUnlink(ptl_handle_le_t le_handle, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return guarded("PtlTriggeredLEUnlink",
                 [&](Core& c) { return c.triggeredUnlink(le_handle, false, trig_ct_handle, threshold); });
}

int PtlTriggeredMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me, ptl_list_t ptl_list,
                         void* user_ptr, ptl_handle_me_t* me_handle, ptl_handle_ct_t trig_ct_handle,
                         ptl_size_t threshold)
{
  return guarded("PtlTriggeredMEAppend", [&](Core& c) {
    return me == nullptr ? PTL_ARG_INVALID
                         : c.triggeredAppend(ni_handle, pt_index, toSpec(*me), ptl_list, user_ptr, me_handle,
                                             trig_ct_handle, threshold);
  });
}

int PtlTriggeredMEUnlink(ptl_handle_me_t me_handle, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return guarded("PtlTriggeredMEUnlink",
                 [&](Core& c) { return c.triggeredUnlink(me_handle, true, trig_ct_handle, threshold); });
}

} // extern "C"
