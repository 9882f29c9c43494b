#include "MessageNicWorld.hpp"

#include <gtest/gtest.h>

namespace bxisim::test
{

PortalsEndpoint PortalsEndpoint::open(size_t bytes)
{
  PortalsEndpoint endpoint;
  endpoint.memory.assign(bytes, 0);
  EXPECT_EQ(PtlInit(), PTL_OK);
  EXPECT_EQ(
      PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, nullptr, nullptr, &endpoint.ni),
      PTL_OK);
  EXPECT_EQ(PtlEQAlloc(endpoint.ni, 64, &endpoint.eq), PTL_OK);
  return endpoint;
}

void PortalsEndpoint::expose(ptl_match_bits_t bits)
{
  EXPECT_EQ(PtlPTAlloc(ni, 0, eq, 0, &pt), PTL_OK);
  ptl_me_t me{};
  me.start         = memory.data();
  me.length        = memory.size();
  me.ct_handle     = PTL_CT_NONE;
  me.uid           = PTL_UID_ANY;
  me.options       = PTL_ME_OP_PUT | PTL_ME_OP_GET;
  me.match_id.phys = {PTL_NID_ANY, PTL_PID_ANY};
  me.match_bits    = bits;
  me.ignore_bits   = 0;
  ptl_handle_me_t handle;
  EXPECT_EQ(PtlMEAppend(ni, pt, &me, PTL_PRIORITY_LIST, nullptr, &handle), PTL_OK);
}

ptl_handle_md_t PortalsEndpoint::bind(unsigned char* start, size_t length)
{
  ptl_md_t md{};
  md.start     = start != nullptr ? start : memory.data();
  md.length    = start != nullptr ? length : memory.size();
  md.options   = 0;
  md.eq_handle = eq;
  md.ct_handle = PTL_CT_NONE;
  ptl_handle_md_t handle;
  EXPECT_EQ(PtlMDBind(ni, &md, &handle), PTL_OK);
  return handle;
}

ptl_event_t PortalsEndpoint::wait_for(ptl_event_kind_t type)
{
  ptl_event_t event{};
  do {
    EXPECT_EQ(PtlEQWait(eq, &event), PTL_OK);
  } while (event.type != type);
  return event;
}

} // namespace bxisim::test
