#include "portals/core/Matching.hpp"

namespace bxisim::portals
{

bool matchIdMatches(const ListEntry& e, bool logical, const Initiator& who)
{
  if (logical)
    return e.matchId.rank == PTL_RANK_ANY || e.matchId.rank == who.rank;
  bool nidOk = e.matchId.phys.nid == PTL_NID_ANY || e.matchId.phys.nid == who.phys.phys.nid;
  bool pidOk = e.matchId.phys.pid == PTL_PID_ANY || e.matchId.phys.pid == who.phys.phys.pid;
  return nidOk && pidOk;
}

bool entryMatches(const ListEntry& e, bool matchingNi, bool logicalNi, const Initiator& who, ptl_match_bits_t bits)
{
  if (!matchingNi)
    return true;
  return matchBitsMatch(e, bits) && matchIdMatches(e, logicalNi, who);
}

Placement placeInEntry(const ListEntry& e, ptl_size_t remoteOffset, ptl_size_t rlength)
{
  Placement p;
  p.offset             = (e.isMe && (e.options & PTL_ME_MANAGE_LOCAL)) ? e.localOffset : remoteOffset;
  ptl_size_t available = p.offset < e.region.size() ? e.region.size() - p.offset : 0;
  p.mlength            = rlength < available ? rlength : available;
  p.truncated          = p.mlength < rlength;
  return p;
}

} // namespace bxisim::portals
