/* A list entry (LE, non-matching NIs) or match list entry (ME, matching NIs) appended to the priority
 * or overflow list of a portal table entry, and the unexpected headers that overflow entries record. */
#ifndef BXISIM_PORTALS_LIST_ENTRY_HPP
#define BXISIM_PORTALS_LIST_ENTRY_HPP

#include "portals/core/MemoryRegion.hpp"

#include <portals4.h>

#include <cstdint>
#include <list>
#include <memory>

namespace bxisim::portals
{

struct ListEntry {
  ptl_handle_any_t handle = PTL_INVALID_HANDLE; // ME or LE handle while linked
  bool is_me              = true;
  ptl_handle_ni_t ni      = PTL_INVALID_HANDLE;
  ptl_pt_index_t pt_index = 0;
  ptl_list_t list         = PTL_PRIORITY_LIST;
  MemoryRegion region;
  ptl_handle_ct_t ct = PTL_CT_NONE;
  ptl_uid_t uid      = PTL_UID_ANY;
  unsigned options   = 0;
  ptl_process_t match_id{};
  ptl_match_bits_t match_bits  = 0;
  ptl_match_bits_t ignore_bits = 0;
  ptl_size_t min_free          = 0;
  void* user_ptr               = nullptr;

  ptl_size_t local_offset = 0; // PTL_ME_MANAGE_LOCAL
  bool linked             = false;
  bool pending_append     = false; // PtlTriggeredMEAppend/LEAppend: has a handle, waits for its trigger to be linked
  bool auto_unlinked      = false; // unlinked by use-once or min-free: PTL_EVENT_AUTO_FREE follows on the overflow list
  int pending_headers     = 0;     // unexpected headers that still refer to this (overflow) entry's memory
  std::list<std::shared_ptr<ListEntry>>::iterator position;
};
using ListEntryPtr = std::shared_ptr<ListEntry>;

/* The header of a message that matched an overflow-list entry, kept until a PtlMEAppend/PtlLEAppend on
 * the priority list or a PtlMESearch/PtlLESearch with PTL_SEARCH_DELETE consumes it. */
struct UnexpectedHeader {
  ptl_event_kind_t type = PTL_EVENT_PUT; // the communication event of the original delivery
  ptl_process_t initiator{};             // as reported in events (a rank on a logical NI)
  ptl_process_t phys_initiator{};        // the initiator's physical id
  ptl_uid_t uid               = 0;
  ptl_match_bits_t match_bits = 0;
  ptl_size_t rlength          = 0;
  ptl_size_t mlength          = 0;
  ptl_size_t remote_offset    = 0;
  ptl_hdr_data_t hdr_data     = 0;
  void* start                 = nullptr; // where the data went in the overflow entry
  ptl_op_t atomic_op          = 0;
  ptl_datatype_t atomic_type  = 0;
  ListEntryPtr overflow_entry;
};

} // namespace bxisim::portals

#endif
