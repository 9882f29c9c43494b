/* The matching rules of Portals 4 (spec section "Matching"): match bits under ignore bits, match id,
 * and what an entry would accept of a message (offsets, truncation). */
#ifndef BXISIM_PORTALS_MATCHING_HPP
#define BXISIM_PORTALS_MATCHING_HPP

#include "portals/core/ListEntry.hpp"

namespace bxisim::portals
{

/* The identity of an initiator as a target NI sees it. */
struct Initiator {
  ptl_process_t phys{};
  ptl_rank_t rank = PTL_RANK_ANY; // PTL_RANK_ANY when unknown (not in the target's map)
  ptl_uid_t uid   = 0;
};

inline bool match_bits_match(const ListEntry& e, ptl_match_bits_t bits)
{
  return ((e.match_bits ^ bits) & ~e.ignore_bits) == 0;
}

/* An ME's match_id against an initiator: a rank on a logical NI, nid/pid (with wildcards) otherwise. */
bool match_id_matches(const ListEntry& e, bool logical, const Initiator& who);

/* Whether `e` matches a message (match bits and id for MEs; any LE matches on a non-matching NI). */
bool entry_matches(const ListEntry& e, bool matching_ni, bool logical_ni, const Initiator& who, ptl_match_bits_t bits);

/* Where a message of `rlength` bytes at `remote_offset` lands in `e`, and how much of it fits. */
struct Placement {
  ptl_size_t offset  = 0;
  ptl_size_t mlength = 0;
  bool truncated     = false;
};
Placement place_in_entry(const ListEntry& e, ptl_size_t remote_offset, ptl_size_t rlength);

} // namespace bxisim::portals

#endif
