/* Initialization, network interfaces, identifiers, logical maps, resources and bad handles. */
#include "tests/portals/PortalsWorld.hpp"

namespace bxisim::portals::testing
{
namespace
{

class NiTest : public PortalsWorld
{
 protected:
  /** Rank 0's matching NI made with `desired` limits; the limits granted go to `actual`. */
  ptl_handle_ni_t ni_with_limits(const ptl_ni_limits_t& desired, ptl_ni_limits_t& actual)
  {
    as(0);
    EXPECT_EQ(PtlInit(), PTL_OK);
    ptl_handle_ni_t ni = PTL_INVALID_HANDLE;
    EXPECT_EQ(PtlNIInit(0, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, &desired, &actual, &ni), PTL_OK);
    return ni;
  }
};

TEST_F(NiTest, CallsBeforePtlInitReturnNoInit)
{
  ptl_handle_ni_t ni;
  EXPECT_EQ(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, nullptr, nullptr, &ni),
            PTL_NO_INIT);
}

TEST_F(NiTest, PhysicalIdIsNodeIndexAndLocalRank)
{
  for (unsigned r = 0; r < 4; ++r) {
    ptl_handle_ni_t ni = init_ni(r);
    ptl_process_t id;
    ASSERT_EQ(PtlGetPhysId(ni, &id), PTL_OK);
    EXPECT_EQ(id.phys.nid, r / kRanksPerNode);
    EXPECT_EQ(id.phys.pid, r % kRanksPerNode);
    ASSERT_EQ(PtlGetId(ni, &id), PTL_OK);
    EXPECT_EQ(id.phys.pid, r % kRanksPerNode);
    ptl_uid_t uid;
    ASSERT_EQ(PtlGetUid(ni, &uid), PTL_OK);
    EXPECT_EQ(uid, 1000u);
  }
}

TEST_F(NiTest, SameKindTwiceGivesTheSameNiAndOptionsAreChecked)
{
  ptl_handle_ni_t a = init_ni(0);
  ptl_handle_ni_t b;
  ASSERT_EQ(PtlNIInit(0, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, nullptr, nullptr, &b), PTL_OK);
  EXPECT_TRUE(PtlHandleIsEqual(a, b));
  ptl_handle_ni_t c;
  ASSERT_EQ(PtlNIInit(0, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, nullptr, nullptr, &c), PTL_OK);
  EXPECT_FALSE(PtlHandleIsEqual(a, c));
  EXPECT_EQ(PtlNIInit(0, PTL_NI_MATCHING | PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, nullptr, nullptr, &c),
            PTL_ARG_INVALID);
  EXPECT_EQ(PtlNIInit(7, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, nullptr, nullptr, &c), PTL_ARG_INVALID);
  // Two PtlNIInit, two PtlNIFini: the NI lives until the second.
  EXPECT_EQ(PtlNIFini(a), PTL_OK);
  ptl_process_t id;
  EXPECT_EQ(PtlGetPhysId(a, &id), PTL_OK);
  EXPECT_EQ(PtlNIFini(a), PTL_OK);
  EXPECT_EQ(PtlGetPhysId(a, &id), PTL_ARG_INVALID);
}

TEST_F(NiTest, PidTakenByAnotherProcessIsInUse)
{
  init_ni(1); // node 0, pid 1
  as(0);
  ASSERT_EQ(PtlInit(), PTL_OK);
  ptl_handle_ni_t ni;
  EXPECT_EQ(PtlNIInit(0, PTL_NI_MATCHING | PTL_NI_PHYSICAL, 1, nullptr, nullptr, &ni), PTL_PID_IN_USE);
  EXPECT_EQ(PtlNIInit(0, PTL_NI_MATCHING | PTL_NI_PHYSICAL, 5, nullptr, nullptr, &ni), PTL_OK);
  ptl_process_t id;
  ASSERT_EQ(PtlGetPhysId(ni, &id), PTL_OK);
  EXPECT_EQ(id.phys.pid, 5u);
}

TEST_F(NiTest, BadHandlesAreArgInvalidNeverACrash)
{
  ptl_handle_ni_t ni = init_ni(0);
  ptl_handle_eq_t eq = alloc_eq(ni);
  ptl_handle_ct_t ct = alloc_ct(ni);
  char buf[8];
  ptl_handle_md_t md = bind_md(ni, buf, sizeof buf);
  ptl_event_t ev;
  ptl_ct_event_t cev;
  // Wrong kind: an MD handle where an EQ is expected, an EQ where a CT is expected.
  EXPECT_EQ(PtlEQGet(md, &ev), PTL_ARG_INVALID);
  EXPECT_EQ(PtlCTGet(eq, &cev), PTL_ARG_INVALID);
  EXPECT_EQ(PtlMDRelease(ct), PTL_ARG_INVALID);
  // Reserved and forged values.
  for (ptl_handle_any_t h : {PTL_INVALID_HANDLE, PTL_EQ_NONE, PTL_CT_NONE, 0u, 0x12345678u, 0xdeadbeefu}) {
    EXPECT_EQ(PtlEQGet(h, &ev), PTL_ARG_INVALID) << std::hex << h;
    EXPECT_EQ(PtlCTGet(h, &cev), PTL_ARG_INVALID) << std::hex << h;
    EXPECT_EQ(PtlNIFini(h), PTL_ARG_INVALID) << std::hex << h;
    EXPECT_EQ(PtlMEUnlink(h), PTL_ARG_INVALID) << std::hex << h;
    ptl_process_t id;
    EXPECT_EQ(PtlGetId(h, &id), PTL_ARG_INVALID) << std::hex << h;
  }
  // Stale: freed, then its slot reused by a new object.
  ASSERT_EQ(PtlEQFree(eq), PTL_OK);
  ptl_handle_eq_t eq2 = alloc_eq(ni);
  EXPECT_EQ(PtlEQGet(eq, &ev), PTL_ARG_INVALID);
  EXPECT_EQ(PtlEQGet(eq2, &ev), PTL_EQ_EMPTY);
  EXPECT_EQ(PtlEQFree(eq), PTL_ARG_INVALID);
  // Another process's handle.
  init_ni(1);
  EXPECT_EQ(PtlEQGet(eq2, &ev), PTL_ARG_INVALID);
  EXPECT_EQ(PtlMDRelease(md), PTL_ARG_INVALID);
  // Null out-pointers.
  as(0);
  EXPECT_EQ(PtlEQGet(eq2, nullptr), PTL_ARG_INVALID);
  EXPECT_EQ(PtlCTAlloc(ni, nullptr), PTL_ARG_INVALID);
  EXPECT_EQ(PtlMDBind(ni, nullptr, &md), PTL_ARG_INVALID);
  ptl_handle_ni_t owner;
  ASSERT_EQ(PtlNIHandle(ct, &owner), PTL_OK);
  EXPECT_EQ(owner, ni);
}

TEST_F(NiTest, PortalTableEntries)
{
  ptl_handle_ni_t ni = init_ni(0);
  ptl_handle_eq_t eq = alloc_eq(ni);
  ptl_pt_index_t pt;
  ASSERT_EQ(PtlPTAlloc(ni, 0, eq, 3, &pt), PTL_OK);
  EXPECT_EQ(pt, 3u);
  EXPECT_EQ(PtlPTAlloc(ni, 0, eq, 3, &pt), PTL_PT_IN_USE);
  EXPECT_EQ(PtlPTAlloc(ni, PTL_PT_FLOWCTRL, PTL_EQ_NONE, PTL_PT_ANY, &pt), PTL_PT_EQ_NEEDED);
  EXPECT_EQ(PtlPTAlloc(ni, 0, eq, 100000, &pt), PTL_ARG_INVALID);
  EXPECT_EQ(PtlPTAlloc(ni, 0x8000, eq, PTL_PT_ANY, &pt), PTL_ARG_INVALID);
  ASSERT_EQ(PtlPTAlloc(ni, 0, eq, PTL_PT_ANY, &pt), PTL_OK);
  EXPECT_EQ(pt, 0u);
  char buf[4];
  ptl_me_t m = me(buf, sizeof buf, 1);
  ptl_handle_me_t h;
  ASSERT_EQ(PtlMEAppend(ni, 3, &m, PTL_PRIORITY_LIST, nullptr, &h), PTL_OK);
  EXPECT_EQ(PtlPTFree(ni, 3), PTL_PT_IN_USE);
  ASSERT_EQ(PtlMEUnlink(h), PTL_OK);
  EXPECT_EQ(PtlMEUnlink(h), PTL_ARG_INVALID);
  EXPECT_EQ(PtlPTFree(ni, 3), PTL_OK);
  EXPECT_EQ(PtlPTFree(ni, 3), PTL_ARG_INVALID);
  EXPECT_EQ(PtlPTDisable(ni, 3), PTL_ARG_INVALID);
  EXPECT_EQ(PtlEQFree(eq), PTL_OK); // PT 0 still posts to it: allowed, as in the reference implementation
  // An LE on a matching NI is a misuse.
  ptl_le_t le{buf, sizeof buf, PTL_CT_NONE, PTL_UID_ANY, PTL_LE_OP_PUT};
  EXPECT_EQ(PtlLEAppend(ni, 0, &le, PTL_PRIORITY_LIST, nullptr, &h), PTL_ARG_INVALID);
}

TEST_F(NiTest, DesiredLimitsAreGrantedAndEnforced)
{
  ptl_ni_limits_t desired{};
  desired.max_mds = 2;
  desired.max_eqs = 1;
  ptl_ni_limits_t actual;
  ptl_handle_ni_t ni = ni_with_limits(desired, actual);
  EXPECT_EQ(actual.max_mds, 2);
  EXPECT_EQ(actual.max_eqs, 1);
  EXPECT_GT(actual.max_cts, 0);
  char buf[4];
  bind_md(ni, buf, 4);
  bind_md(ni, buf, 4);
  ptl_md_t md{buf, 4, 0, PTL_EQ_NONE, PTL_CT_NONE};
  ptl_handle_md_t h;
  EXPECT_EQ(PtlMDBind(ni, &md, &h), PTL_NO_SPACE);
  alloc_eq(ni);
  ptl_handle_eq_t eq;
  EXPECT_EQ(PtlEQAlloc(ni, 4, &eq), PTL_NO_SPACE);
}

TEST_F(NiTest, ASmallerAtomicSizeBoundsFetchingAtomicsToo)
{
  // Found by the reference implementation's test_limits: asked for max_atomic_size 4 and nothing for
  // fetching atomics, FetchAtomic and Swap of 8 B were accepted.
  ptl_ni_limits_t desired{};
  desired.max_atomic_size       = 4;
  desired.max_fetch_atomic_size = 1024;
  ptl_ni_limits_t actual;
  ptl_handle_ni_t ni = ni_with_limits(desired, actual);
  EXPECT_EQ(actual.max_atomic_size, 4u);
  EXPECT_EQ(actual.max_fetch_atomic_size, 4u);
  char buf[16]{};
  ptl_handle_md_t md = bind_md(ni, buf, sizeof buf);
  uint64_t operand   = 0;
  EXPECT_EQ(PtlFetchAtomic(md, 0, md, 8, 8, phys(0), 0, 0, 0, nullptr, 0, PTL_SUM, PTL_INT64_T), PTL_ARG_INVALID);
  EXPECT_EQ(PtlSwap(md, 0, md, 8, 8, phys(0), 0, 0, 0, nullptr, 0, &operand, PTL_SWAP, PTL_INT64_T), PTL_ARG_INVALID);
  EXPECT_EQ(PtlAtomic(md, 0, 8, PTL_NO_ACK_REQ, phys(0), 0, 0, 0, nullptr, 0, PTL_SUM, PTL_INT64_T), PTL_ARG_INVALID);
}

TEST_F(NiTest, LogicalMapTranslatesRanksBothWays)
{
  // Logical rank i is physical rank (3 - i): a reversed map, so a mix-up cannot go unnoticed.
  std::vector<ptl_process_t> map;
  for (unsigned i = 0; i < 4; ++i)
    map.push_back(phys(3 - i));
  std::vector<ptl_handle_ni_t> nis;
  for (unsigned r = 0; r < 4; ++r) {
    nis.push_back(init_ni(r, PTL_NI_MATCHING | PTL_NI_LOGICAL));
    ptl_process_t id;
    EXPECT_EQ(PtlGetId(nis[r], &id), PTL_FAIL); // no map yet
    ASSERT_EQ(PtlSetMap(nis[r], map.size(), map.data()), PTL_OK);
    EXPECT_EQ(PtlSetMap(nis[r], map.size(), map.data()), PTL_IGNORED);
    ASSERT_EQ(PtlGetId(nis[r], &id), PTL_OK);
    EXPECT_EQ(id.rank, 3 - r);
  }
  std::vector<ptl_process_t> back(8);
  ptl_size_t n = 0;
  ASSERT_EQ(PtlGetMap(nis[3], back.size(), back.data(), &n), PTL_OK);
  ASSERT_EQ(n, 4u);
  EXPECT_EQ(back[1].phys.nid, map[1].phys.nid);
  EXPECT_EQ(back[1].phys.pid, map[1].phys.pid);

  // Physical rank 1 (logical 2) receives from physical rank 2 (logical 1), only from logical rank 1.
  as(1);
  ptl_handle_eq_t eq = alloc_eq(nis[1]);
  ptl_pt_index_t pt  = alloc_pt(nis[1], eq);
  uint64_t inbox     = 0;
  ptl_me_t m         = me(&inbox, sizeof inbox, 7);
  m.match_id.rank    = 1;
  ptl_handle_me_t h;
  ASSERT_EQ(PtlMEAppend(nis[1], pt, &m, PTL_PRIORITY_LIST, nullptr, &h), PTL_OK);
  drain(eq);

  uint64_t value = 0x1122334455667788ull;
  for (unsigned sender : {0u, 2u}) { // logical 3 (no match), then logical 1
    as(sender);
    ptl_handle_md_t md = bind_md(nis[sender], &value, sizeof value);
    ASSERT_EQ(PtlPut(md, 0, sizeof value, PTL_NO_ACK_REQ, logical(2), pt, 7, 0, nullptr, 0), PTL_OK);
    EXPECT_EQ(PtlPut(md, 0, 8, PTL_NO_ACK_REQ, logical(4), pt, 7, 0, nullptr, 0), PTL_ARG_INVALID);
    nic.run();
  }
  as(1);
  EXPECT_EQ(inbox, value);
  auto events = drain(eq);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, PTL_EVENT_PUT);
  EXPECT_EQ(events[0].initiator.rank, 1u);
  ptl_sr_value_t dropped;
  ASSERT_EQ(PtlNIStatus(nis[1], PTL_SR_DROP_COUNT, &dropped), PTL_OK);
  EXPECT_EQ(dropped, 1);
}

} // namespace
} // namespace bxisim::portals::testing
