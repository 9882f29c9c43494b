/* A memory descriptor (PtlMDBind): initiator-side memory, its EQ and CT. */
#ifndef BXISIM_PORTALS_MEMORY_DESCRIPTOR_HPP
#define BXISIM_PORTALS_MEMORY_DESCRIPTOR_HPP

#include "portals/core/MemoryRegion.hpp"

#include <portals4.h>

#include <cstdint>

namespace bxisim::portals
{

struct MemoryDescriptor {
  ptl_handle_ni_t ni = PTL_INVALID_HANDLE;
  uint32_t owner     = 0;
  MemoryRegion region;
  unsigned options   = 0;
  ptl_handle_eq_t eq = PTL_EQ_NONE;
  ptl_handle_ct_t ct = PTL_CT_NONE;
  int in_flight      = 0; // operations whose initiator side has not finished (PtlMDRelease -> PTL_IN_USE)
};

} // namespace bxisim::portals

#endif
