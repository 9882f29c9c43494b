/* C entry points: list entries and match list entries. */
#include "portals/api/Guard.hpp"

using bxisim::portals::Core;
using bxisim::portals::guarded;
using bxisim::portals::returningHandle;
using bxisim::portals::toSpec;

namespace
{
/* An entry as the core keeps it: its counting event named by its handle inside (Core::globalHandle). */
bxisim::portals::EntrySpec insideSpec(Core& core, bxisim::portals::EntrySpec spec)
{
  spec.ct = core.globalHandle(spec.ct);
  return spec;
}
} // namespace

extern "C" {

int PtlLEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le, ptl_list_t ptl_list,
                void* user_ptr, ptl_handle_le_t* le_handle)
{
  return guarded("PtlLEAppend", [&](Core& c) {
    return le == nullptr ? PTL_ARG_INVALID
                         : returningHandle(c,
                                           c.append(c.globalHandle(ni_handle), pt_index, insideSpec(c, toSpec(*le)),
                                                    ptl_list, user_ptr, le_handle),
                                           le_handle);
  });
}

int PtlLEUnlink(ptl_handle_le_t le_handle)
{
  return guarded("PtlLEUnlink", [&](Core& c) { return c.unlink(c.globalHandle(le_handle), false); });
}

int PtlLESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le, ptl_search_op_t ptl_search_op,
                void* user_ptr)
{
  return guarded("PtlLESearch", [&](Core& c) {
    return le == nullptr
               ? PTL_ARG_INVALID
               : c.search(c.globalHandle(ni_handle), pt_index, insideSpec(c, toSpec(*le)), ptl_search_op, user_ptr);
  });
}

int PtlMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me, ptl_list_t ptl_list,
                void* user_ptr, ptl_handle_me_t* me_handle)
{
  return guarded("PtlMEAppend", [&](Core& c) {
    return me == nullptr ? PTL_ARG_INVALID
                         : returningHandle(c,
                                           c.append(c.globalHandle(ni_handle), pt_index, insideSpec(c, toSpec(*me)),
                                                    ptl_list, user_ptr, me_handle),
                                           me_handle);
  });
}

int PtlMEUnlink(ptl_handle_me_t me_handle)
{
  return guarded("PtlMEUnlink", [&](Core& c) { return c.unlink(c.globalHandle(me_handle), true); });
}

int PtlMESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me, ptl_search_op_t ptl_search_op,
                void* user_ptr)
{
  return guarded("PtlMESearch", [&](Core& c) {
    return me == nullptr
               ? PTL_ARG_INVALID
               : c.search(c.globalHandle(ni_handle), pt_index, insideSpec(c, toSpec(*me)), ptl_search_op, user_ptr);
  });
}

int PtlTriggeredLEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le, ptl_list_t ptl_list,
                         void* user_ptr, ptl_handle_le_t* le_handle, ptl_handle_ct_t trig_ct_handle,
                         ptl_size_t threshold)
{
  return guarded("PtlTriggeredLEAppend", [&](Core& c) {
    return le == nullptr ? PTL_ARG_INVALID
                         : returningHandle(c,
                                           c.triggeredAppend(c.globalHandle(ni_handle), pt_index,
                                                             insideSpec(c, toSpec(*le)), ptl_list, user_ptr, le_handle,
                                                             c.globalHandle(trig_ct_handle), threshold),
                                           le_handle);
  });
}

int PtlTriggeredLEUnlink(ptl_handle_le_t le_handle, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return guarded("PtlTriggeredLEUnlink", [&](Core& c) {
    return c.triggeredUnlink(c.globalHandle(le_handle), false, c.globalHandle(trig_ct_handle), threshold);
  });
}

int PtlTriggeredMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me, ptl_list_t ptl_list,
                         void* user_ptr, ptl_handle_me_t* me_handle, ptl_handle_ct_t trig_ct_handle,
                         ptl_size_t threshold)
{
  return guarded("PtlTriggeredMEAppend", [&](Core& c) {
    return me == nullptr ? PTL_ARG_INVALID
                         : returningHandle(c,
                                           c.triggeredAppend(c.globalHandle(ni_handle), pt_index,
                                                             insideSpec(c, toSpec(*me)), ptl_list, user_ptr, me_handle,
                                                             c.globalHandle(trig_ct_handle), threshold),
                                           me_handle);
  });
}

int PtlTriggeredMEUnlink(ptl_handle_me_t me_handle, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return guarded("PtlTriggeredMEUnlink", [&](Core& c) {
    return c.triggeredUnlink(c.globalHandle(me_handle), true, c.globalHandle(trig_ct_handle), threshold);
  });
}

} // extern "C"
