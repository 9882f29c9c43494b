/* A network interface (PtlNIInit) and its portal table. */
#ifndef BXISIM_PORTALS_NETWORK_INTERFACE_HPP
#define BXISIM_PORTALS_NETWORK_INTERFACE_HPP

#include "portals/core/ListEntry.hpp"

#include <portals4.h>

#include <cstdint>
#include <list>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace bxisim::portals
{

struct PortalTableEntry {
  bool allocated                = false;
  bool enabled                  = false;
  bool disabled_by_flow_control = false;
  unsigned options              = 0;
  ptl_handle_eq_t eq            = PTL_EQ_NONE;
  std::list<ListEntryPtr> priority;
  std::list<ListEntryPtr> overflow;
  std::list<UnexpectedHeader> unexpected;
  std::list<ListEntryPtr>& list_of(ptl_list_t l) { return l == PTL_PRIORITY_LIST ? priority : overflow; }
};

/* The four kinds of NI a process may have on an interface; a message targets the NI of its own kind. */
inline unsigned ni_kind_index(unsigned options)
{
  return ((options & PTL_NI_NO_MATCHING) ? 1u : 0u) + ((options & PTL_NI_PHYSICAL) ? 2u : 0u);
}

inline uint64_t phys_key(ptl_process_t p)
{
  return (static_cast<uint64_t>(p.phys.nid) << 32) | p.phys.pid;
}

struct NetworkInterface {
  ptl_handle_ni_t handle = PTL_INVALID_HANDLE;
  uint32_t owner         = 0; // ProcessContext::id
  ptl_interface_t iface  = 0;
  unsigned options       = 0;
  ptl_ni_limits_t limits{};
  ptl_process_t phys_id{};
  ptl_uid_t uid = 0;
  int ref_count = 1; // PtlNIInit calls of the same kind on the same interface

  bool map_set = false;
  std::vector<ptl_process_t> map;                   // rank -> physical id
  std::unordered_map<uint64_t, ptl_rank_t> rank_of; // physical id -> rank

  std::vector<PortalTableEntry> pts;
  ptl_sr_value_t status[PTL_SR_LAST] = {0, 0, 0};

  // resources, for the limits and for PtlNIFini
  std::unordered_set<ptl_handle_any_t> eqs, cts, mds, entries;
  int unexpected_headers   = 0;
  int triggered_ops        = 0;
  bool told_of_silent_drop = false; // a message nobody would hear of was dropped here: said once (Target.cpp)

  bool matching() const { return (options & PTL_NI_MATCHING) != 0; }
  bool logical() const { return (options & PTL_NI_LOGICAL) != 0; }
};

} // namespace bxisim::portals

#endif
