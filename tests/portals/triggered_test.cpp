/* Triggered operations: thresholds, chains on one rank and across ranks, CTInc/CTSet, cancellation. */
#include "tests/portals/PortalsWorld.hpp"

#include <cstring>

namespace bxisim::portals::testing
{
namespace
{

class TriggeredTest : public PortalsWorld
{
 protected:
  ptl_handle_ni_t ni[3]{};
  ptl_handle_ct_t rx_ct[3]{}; // counts the puts each rank receives
  ptl_pt_index_t pt   = 0;
  uint64_t inbox[3]   = {};
  uint64_t payload[3] = {};

  void SetUp() override
  {
    PortalsWorld::SetUp();
    for (unsigned r = 0; r < 3; ++r) {
      ni[r]              = init_ni(r);
      ptl_handle_eq_t eq = alloc_eq(ni[r]);
      ASSERT_EQ(PtlPTAlloc(ni[r], 0, eq, 0, &pt), PTL_OK);
      rx_ct[r]    = alloc_ct(ni[r]);
      ptl_me_t m  = me(&inbox[r], sizeof inbox[r], 0);
      m.ct_handle = rx_ct[r];
      m.options |= PTL_ME_EVENT_CT_COMM;
      ptl_handle_me_t h;
      ASSERT_EQ(PtlMEAppend(ni[r], pt, &m, PTL_PRIORITY_LIST, nullptr, &h), PTL_OK);
      payload[r] = 0x1000 + r;
    }
  }
  ptl_ct_event_t value(unsigned rank, ptl_handle_ct_t ct)
  {
    as(rank);
    ptl_ct_event_t v{};
    EXPECT_EQ(PtlCTGet(ct, &v), PTL_OK);
    return v;
  }
};

TEST_F(TriggeredTest, FiresWhenTheThresholdIsReachedNotBefore)
{
  as(0);
  ptl_handle_ct_t trig = alloc_ct(ni[0]);
  ptl_handle_md_t md   = bind_md(ni[0], &payload[0], 8);
  ASSERT_EQ(PtlTriggeredPut(md, 0, 8, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0, trig, 2), PTL_OK);
  ASSERT_EQ(PtlCTInc(trig, {1, 0}), PTL_OK);
  EXPECT_EQ(nic.pending(), 0u);
  ASSERT_EQ(PtlCTInc(trig, {1, 0}), PTL_OK);
  EXPECT_EQ(nic.pending(), 1u);
  nic.run();
  EXPECT_EQ(inbox[1], payload[0]);
  EXPECT_EQ(value(1, rx_ct[1]).success, 1u);
  // A threshold already reached fires at once.
  as(0);
  ASSERT_EQ(PtlTriggeredPut(md, 0, 8, PTL_NO_ACK_REQ, phys(2), pt, 0, 0, nullptr, 0, trig, 1), PTL_OK);
  EXPECT_EQ(nic.pending(), 1u);
}

TEST_F(TriggeredTest, ChainAcrossRanksForwardsLikeATreeBroadcast)
{
  // Rank 1 forwards to rank 2 when it has received one message; rank 2 replies to rank 0 the same way.
  as(1);
  ptl_handle_md_t fwd1 = bind_md(ni[1], &inbox[1], 8);
  ASSERT_EQ(PtlTriggeredPut(fwd1, 0, 8, PTL_NO_ACK_REQ, phys(2), pt, 0, 0, nullptr, 0, rx_ct[1], 1), PTL_OK);
  as(2);
  ptl_handle_md_t fwd2 = bind_md(ni[2], &inbox[2], 8);
  ASSERT_EQ(PtlTriggeredPut(fwd2, 0, 8, PTL_NO_ACK_REQ, phys(0), pt, 0, 0, nullptr, 0, rx_ct[2], 1), PTL_OK);
  as(0);
  payload[0]         = 0xabcdef;
  ptl_handle_md_t md = bind_md(ni[0], &payload[0], 8);
  ASSERT_EQ(PtlPut(md, 0, 8, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0), PTL_OK);
  nic.run();
  EXPECT_EQ(inbox[1], 0xabcdefu);
  EXPECT_EQ(inbox[2], 0xabcdefu);
  EXPECT_EQ(inbox[0], 0xabcdefu);
  EXPECT_EQ(value(0, rx_ct[0]).success, 1u);
  EXPECT_EQ(nic.finished(), 3);
}

TEST_F(TriggeredTest, CtIncAndCtSetChains)
{
  as(0);
  ptl_handle_ct_t a = alloc_ct(ni[0]), b = alloc_ct(ni[0]), c = alloc_ct(ni[0]);
  ASSERT_EQ(PtlTriggeredCTInc(b, {5, 0}, a, 1), PTL_OK);   // a>=1 -> b += 5
  ASSERT_EQ(PtlTriggeredCTSet(c, {42, 0}, b, 5), PTL_OK);  // b>=5 -> c = 42
  ASSERT_EQ(PtlTriggeredCTInc(a, {10, 0}, c, 40), PTL_OK); // c>=40 -> a += 10 (a loop back, once)
  EXPECT_EQ(PtlTriggeredCTInc(a, {1, 1}, c, 40), PTL_ARG_INVALID);
  ASSERT_EQ(PtlCTInc(a, {1, 0}), PTL_OK);
  EXPECT_EQ(value(0, a).success, 11u);
  EXPECT_EQ(value(0, b).success, 5u);
  EXPECT_EQ(value(0, c).success, 42u);
  // The same NI only: a counting event of the process's other NI cannot trigger.
  ptl_handle_ni_t second;
  ASSERT_EQ(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, nullptr, nullptr, &second),
            PTL_OK);
  ptl_handle_ct_t other = alloc_ct(second);
  EXPECT_EQ(PtlTriggeredCTInc(other, {1, 0}, a, 1), PTL_ARG_INVALID);
  // A handle of another process names nothing here (handles are numbered per process).
  as(1);
  EXPECT_EQ(PtlTriggeredCTInc(c, {1, 0}, c, 1), PTL_ARG_INVALID);
}

TEST_F(TriggeredTest, TriggeredAtomicFetchAndSwapCarryTheirOperands)
{
  as(1);
  inbox[1] = 10;
  as(0);
  ptl_handle_ct_t trig = alloc_ct(ni[0]);
  uint64_t add = 5, fetched = 0, new_value = 99, expected = 15;
  ptl_handle_md_t add_md = bind_md(ni[0], &add, 8);
  ptl_handle_md_t get_md = bind_md(ni[0], &fetched, 8);
  ptl_handle_md_t new_md = bind_md(ni[0], &new_value, 8);
  ASSERT_EQ(
      PtlTriggeredAtomic(add_md, 0, 8, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0, PTL_SUM, PTL_UINT64_T, trig, 1),
      PTL_OK);
  ASSERT_EQ(
      PtlTriggeredFetchAtomic(get_md, 0, add_md, 0, 8, phys(1), pt, 0, 0, nullptr, 0, PTL_SUM, PTL_UINT64_T, trig, 2),
      PTL_OK);
  uint64_t operand_on_stack = 20; // equals the target after the two sums
  ASSERT_EQ(PtlTriggeredSwap(get_md, 0, new_md, 0, 8, phys(1), pt, 0, 0, nullptr, 0, &operand_on_stack, PTL_CSWAP,
                             PTL_UINT64_T, trig, 3),
            PTL_OK);
  operand_on_stack = 0; // the operand was taken when the operation was posted
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(PtlCTInc(trig, {1, 0}), PTL_OK);
    nic.run();
  }
  EXPECT_EQ(inbox[1], 99u);
  EXPECT_EQ(fetched, 20u); // the swap's fetched value overwrote the FetchAtomic's (15)
  (void)expected;
}

TEST_F(TriggeredTest, CancelAndFreeDropPendingOperations)
{
  as(0);
  ptl_handle_ct_t trig = alloc_ct(ni[0]);
  ptl_handle_md_t md   = bind_md(ni[0], &payload[0], 8);
  ASSERT_EQ(PtlTriggeredPut(md, 0, 8, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0, trig, 3), PTL_OK);
  ASSERT_EQ(PtlCTCancelTriggered(trig), PTL_OK);
  ASSERT_EQ(PtlCTSet(trig, {3, 0}), PTL_OK);
  EXPECT_EQ(nic.pending(), 0u);
  ptl_handle_ct_t t2 = alloc_ct(ni[0]);
  ASSERT_EQ(PtlTriggeredPut(md, 0, 8, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0, t2, 1), PTL_OK);
  ASSERT_EQ(PtlCTFree(t2), PTL_OK);
  EXPECT_EQ(PtlCTInc(t2, {1, 0}), PTL_ARG_INVALID);
  EXPECT_EQ(nic.pending(), 0u);
  EXPECT_EQ(PtlTriggeredPut(md, 0, 8, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0, PTL_CT_NONE, 1), PTL_ARG_INVALID);
}

TEST_F(TriggeredTest, TriggeredOperationsLimit)
{
  ptl_ni_limits_t desired{};
  desired.max_triggered_ops = 2;
  ptl_handle_ni_t n         = init_ni(0, PTL_NI_MATCHING | PTL_NI_LOGICAL, &desired);
  ptl_process_t self        = phys(0);
  ASSERT_EQ(PtlSetMap(n, 1, &self), PTL_OK);
  ptl_handle_ct_t trig = alloc_ct(n);
  ptl_handle_md_t md   = bind_md(n, &payload[0], 8);
  EXPECT_EQ(PtlTriggeredPut(md, 0, 8, PTL_NO_ACK_REQ, logical(0), pt, 0, 0, nullptr, 0, trig, 5), PTL_OK);
  EXPECT_EQ(PtlTriggeredPut(md, 0, 8, PTL_NO_ACK_REQ, logical(0), pt, 0, 0, nullptr, 0, trig, 5), PTL_OK);
  EXPECT_EQ(PtlTriggeredPut(md, 0, 8, PTL_NO_ACK_REQ, logical(0), pt, 0, 0, nullptr, 0, trig, 5), PTL_NO_SPACE);
  ASSERT_EQ(PtlCTInc(trig, {5, 0}), PTL_OK);
  EXPECT_EQ(nic.pending(), 2u);
  EXPECT_EQ(PtlTriggeredPut(md, 0, 8, PTL_NO_ACK_REQ, logical(0), pt, 0, 0, nullptr, 0, trig, 9), PTL_OK);
}

} // namespace
} // namespace bxisim::portals::testing
