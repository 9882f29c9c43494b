#include "portals/core/Matching.hpp"

namespace bxisim::portals
{

bool match_id_matches(const ListEntry& e, bool logical, const Initiator& who)
{
  if (logical)
    return e.match_id.rank == PTL_RANK_ANY || e.match_id.rank == who.rank;
  bool nid_ok = e.match_id.phys.nid == PTL_NID_ANY || e.match_id.phys.nid == who.phys.phys.nid;
  bool pid_ok = e.match_id.phys.pid == PTL_PID_ANY || e.match_id.phys.pid == who.phys.phys.pid;
  return nid_ok && pid_ok;
}

bool entry_matches(const ListEntry& e, bool matching_ni, bool logical_ni, const Initiator& who, ptl_match_bits_t bits)
{
  if (!matching_ni)
    return true;
  return match_bits_match(e, bits) && match_id_matches(e, logical_ni, who);
}

Placement place_in_entry(const ListEntry& e, ptl_size_t remote_offset, ptl_size_t rlength)
{
  Placement p;
  p.offset             = (e.is_me && (e.options & PTL_ME_MANAGE_LOCAL)) ? e.local_offset : remote_offset;
  ptl_size_t available = p.offset < e.region.size() ? e.region.size() - p.offset : 0;
  p.mlength            = rlength < available ? rlength : available;
  p.truncated          = p.mlength < rlength;
  return p;
}

} // namespace bxisim::portals
