/* C entry points: list entries and match list entries. */
#include "portals/api/Guard.hpp"

using bxisim::portals::Core;
using bxisim::portals::guarded;
using bxisim::portals::returning_handle;
using bxisim::portals::to_spec;

namespace
{
/* An entry as the core keeps it: its counting event named by its handle inside (Core::global_handle). */
bxisim::portals::EntrySpec inside_spec(Core& core, bxisim::portals::EntrySpec spec)
{
  spec.ct = core.global_handle(spec.ct);
  return spec;
}
} // namespace

extern "C" {

int PtlLEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le, ptl_list_t ptl_list,
                void* user_ptr, ptl_handle_le_t* le_handle)
{
  return guarded("PtlLEAppend", [&](Core& c) {
    return le == nullptr ? PTL_ARG_INVALID
                         : returning_handle(c,
                                            c.append(c.global_handle(ni_handle), pt_index, inside_spec(c, to_spec(*le)),
                                                     ptl_list, user_ptr, le_handle),
                                            le_handle);
  });
}

int PtlLEUnlink(ptl_handle_le_t le_handle)
{
  return guarded("PtlLEUnlink", [&](Core& c) { return c.unlink(c.global_handle(le_handle), false); });
}

int PtlLESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le, ptl_search_op_t ptl_search_op,
                void* user_ptr)
{
  return guarded("PtlLESearch", [&](Core& c) {
    return le == nullptr
               ? PTL_ARG_INVALID
               : c.search(c.global_handle(ni_handle), pt_index, inside_spec(c, to_spec(*le)), ptl_search_op, user_ptr);
  });
}

int PtlMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me, ptl_list_t ptl_list,
                void* user_ptr, ptl_handle_me_t* me_handle)
{
  return guarded("PtlMEAppend", [&](Core& c) {
    return me == nullptr ? PTL_ARG_INVALID
                         : returning_handle(c,
                                            c.append(c.global_handle(ni_handle), pt_index, inside_spec(c, to_spec(*me)),
                                                     ptl_list, user_ptr, me_handle),
                                            me_handle);
  });
}

int PtlMEUnlink(ptl_handle_me_t me_handle)
{
  return guarded("PtlMEUnlink", [&](Core& c) { return c.unlink(c.global_handle(me_handle), true); });
}

int PtlMESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me, ptl_search_op_t ptl_search_op,
                void* user_ptr)
{
  return guarded("PtlMESearch", [&](Core& c) {
    return me == nullptr
               ? PTL_ARG_INVALID
               : c.search(c.global_handle(ni_handle), pt_index, inside_spec(c, to_spec(*me)), ptl_search_op, user_ptr);
  });
}

int PtlTriggeredLEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le, ptl_list_t ptl_list,
                         void* user_ptr, ptl_handle_le_t* le_handle, ptl_handle_ct_t trig_ct_handle,
                         ptl_size_t threshold)
{
  return guarded("PtlTriggeredLEAppend", [&](Core& c) {
    return le == nullptr ? PTL_ARG_INVALID
                         : returning_handle(c,
                                            c.triggered_append(c.global_handle(ni_handle), pt_index,
                                                               inside_spec(c, to_spec(*le)), ptl_list, user_ptr,
                                                               le_handle, c.global_handle(trig_ct_handle), threshold),
                                            le_handle);
  });
}

int PtlTriggeredLEUnlink(ptl_handle_le_t le_handle, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return guarded("PtlTriggeredLEUnlink", [&](Core& c) {
    return c.triggered_unlink(c.global_handle(le_handle), false, c.global_handle(trig_ct_handle), threshold);
  });
}

int PtlTriggeredMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me, ptl_list_t ptl_list,
                         void* user_ptr, ptl_handle_me_t* me_handle, ptl_handle_ct_t trig_ct_handle,
                         ptl_size_t threshold)
{
  return guarded("PtlTriggeredMEAppend", [&](Core& c) {
    return me == nullptr ? PTL_ARG_INVALID
                         : returning_handle(c,
                                            c.triggered_append(c.global_handle(ni_handle), pt_index,
                                                               inside_spec(c, to_spec(*me)), ptl_list, user_ptr,
                                                               me_handle, c.global_handle(trig_ct_handle), threshold),
                                            me_handle);
  });
}

int PtlTriggeredMEUnlink(ptl_handle_me_t me_handle, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return guarded("PtlTriggeredMEUnlink", [&](Core& c) {
    return c.triggered_unlink(c.global_handle(me_handle), true, c.global_handle(trig_ct_handle), threshold);
  });
}

} // extern "C"
