/* Portals flow control: a PTL_PT_FLOWCTRL entry is disabled on resource exhaustion, tells it with
 * PTL_EVENT_PT_DISABLED and PTL_NI_PT_DISABLED acks, and PtlPTEnable recovers. */
#include "tests/portals/PortalsWorld.hpp"

namespace bxisim::portals::testing
{
namespace
{

class FlowControlTest : public PortalsWorld
{
 protected:
  ptl_handle_ni_t ni0 = PTL_INVALID_HANDLE, ni1 = PTL_INVALID_HANDLE;
  ptl_handle_eq_t eq0 = PTL_INVALID_HANDLE, eq1 = PTL_INVALID_HANDLE;
  ptl_pt_index_t pt = 0;
  uint64_t value = 7, slot = 0;
  ptl_handle_md_t md = PTL_INVALID_HANDLE;

  void set_up_target(ptl_size_t eq_size, const ptl_ni_limits_t* desired = nullptr)
  {
    ni1 = init_ni(1, PTL_NI_MATCHING | PTL_NI_PHYSICAL, desired);
    eq1 = alloc_eq(ni1, eq_size);
    pt  = alloc_pt(ni1, eq1, PTL_PT_FLOWCTRL);
    ni0 = init_ni(2);
    eq0 = alloc_eq(ni0);
    md  = bind_md(ni0, &value, 8, eq0);
  }
  ptl_ni_fail_t put_and_ack(ptl_match_bits_t bits = 0)
  {
    as(2);
    EXPECT_EQ(PtlPut(md, 0, 8, PTL_ACK_REQ, phys(1), pt, bits, 0, nullptr, 0), PTL_OK);
    nic.run();
    auto evs = drain(eq0);
    EXPECT_EQ(evs.size(), 2u);
    return evs.empty() ? PTL_NI_UNDELIVERABLE : evs.back().ni_fail_type;
  }
  void append_me(ptl_list_t list = PTL_PRIORITY_LIST, unsigned options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE)
  {
    as(1);
    ptl_me_t m = me(&slot, 8, 0, ~0ull, options);
    ptl_handle_me_t h;
    ASSERT_EQ(PtlMEAppend(ni1, pt, &m, list, nullptr, &h), PTL_OK);
  }
};

TEST_F(FlowControlTest, NoEntryLeftDisablesThePtAndEnableRecovers)
{
  set_up_target(16);
  append_me(PTL_PRIORITY_LIST, PTL_ME_OP_PUT | PTL_ME_USE_ONCE | PTL_ME_EVENT_LINK_DISABLE);
  EXPECT_EQ(put_and_ack(), PTL_NI_OK);
  EXPECT_EQ(put_and_ack(), PTL_NI_PT_DISABLED); // the use-once entry is gone: exhaustion
  EXPECT_EQ(put_and_ack(), PTL_NI_PT_DISABLED); // still disabled, no second PT_DISABLED event
  as(1);
  auto evs = drain(eq1);
  ASSERT_EQ(evs.size(), 3u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT);
  EXPECT_EQ(evs[1].type, PTL_EVENT_AUTO_UNLINK);
  EXPECT_EQ(evs[2].type, PTL_EVENT_PT_DISABLED);
  EXPECT_EQ(evs[2].pt_index, pt);
  // Recovery, as OpenMPI's MTL does it: repost resources, re-enable.
  append_me();
  ASSERT_EQ(PtlPTEnable(ni1, pt), PTL_OK);
  EXPECT_EQ(put_and_ack(), PTL_NI_OK);
  ptl_sr_value_t drops;
  as(1);
  ASSERT_EQ(PtlNIStatus(ni1, PTL_SR_DROP_COUNT, &drops), PTL_OK);
  EXPECT_EQ(drops, 2);
}

TEST_F(FlowControlTest, FullEventQueueDisablesThePt)
{
  set_up_target(2);
  append_me();
  EXPECT_EQ(put_and_ack(), PTL_NI_OK);
  EXPECT_EQ(put_and_ack(), PTL_NI_OK);
  EXPECT_EQ(put_and_ack(), PTL_NI_PT_DISABLED); // two events waiting, room for two
  as(1);
  auto evs = drain(eq1);
  ASSERT_EQ(evs.size(), 3u); // the PT_DISABLED event has a slot of its own
  EXPECT_EQ(evs[2].type, PTL_EVENT_PT_DISABLED);
  ASSERT_EQ(PtlPTEnable(ni1, pt), PTL_OK);
  EXPECT_EQ(put_and_ack(), PTL_NI_OK);
}

TEST_F(FlowControlTest, UnexpectedHeaderExhaustionDisablesThePt)
{
  ptl_ni_limits_t desired{};
  desired.max_unexpected_headers = 1;
  set_up_target(16, &desired);
  uint64_t overflow[4];
  as(1);
  ptl_me_t m = me(overflow, sizeof overflow, 0, ~0ull, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_EVENT_LINK_DISABLE);
  ptl_handle_me_t h;
  ASSERT_EQ(PtlMEAppend(ni1, pt, &m, PTL_OVERFLOW_LIST, nullptr, &h), PTL_OK);
  EXPECT_EQ(put_and_ack(), PTL_NI_OK);
  EXPECT_EQ(put_and_ack(), PTL_NI_PT_DISABLED);
  // Consuming the header frees room.
  append_me();
  ASSERT_EQ(PtlPTEnable(ni1, pt), PTL_OK);
  EXPECT_EQ(Core::instance().unexpected_count(ni1, pt), 0u);
}

TEST_F(FlowControlTest, WithoutFlowControlEventsAreDroppedAndReported)
{
  ni1 = init_ni(1);
  eq1 = alloc_eq(ni1, 1);
  pt  = alloc_pt(ni1, eq1);
  ni0 = init_ni(2);
  eq0 = alloc_eq(ni0);
  md  = bind_md(ni0, &value, 8, eq0);
  append_me();
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(put_and_ack(), PTL_NI_OK);
  // The queue is circular: the newest event overwrote the older ones, and the next PtlEQGet says so.
  as(1);
  ptl_event_t ev;
  EXPECT_EQ(PtlEQGet(eq1, &ev), PTL_EQ_DROPPED); // the event is returned, and earlier ones were lost
  EXPECT_EQ(ev.type, PTL_EVENT_PUT);
  EXPECT_EQ(PtlEQGet(eq1, &ev), PTL_EQ_EMPTY);
  EXPECT_EQ(put_and_ack(), PTL_NI_OK);
  as(1);
  EXPECT_EQ(PtlEQGet(eq1, &ev), PTL_OK); // nothing lost since the last one obtained
  EXPECT_EQ(PtlEQGet(eq1, &ev), PTL_EQ_EMPTY);
}

TEST_F(FlowControlTest, UserDisabledPtDropsMessages)
{
  set_up_target(16);
  append_me();
  as(1);
  ASSERT_EQ(PtlPTDisable(ni1, pt), PTL_OK);
  EXPECT_EQ(put_and_ack(), PTL_NI_PT_DISABLED);
  as(1);
  EXPECT_TRUE(drain(eq1).empty()); // no PT_DISABLED event: the user did it
  ASSERT_EQ(PtlPTEnable(ni1, pt), PTL_OK);
  EXPECT_EQ(put_and_ack(), PTL_NI_OK);
}

} // namespace
} // namespace bxisim::portals::testing
