/* Full and counting events at the initiator, and the blocking calls through the NIC model's wait hook. */
#include "tests/portals/PortalsWorld.hpp"

namespace bxisim::portals::testing
{
namespace
{

class EventsTest : public PortalsWorld
{
 protected:
  ptl_handle_ni_t ni0 = PTL_INVALID_HANDLE, ni1 = PTL_INVALID_HANDLE;
  ptl_handle_eq_t eq1 = PTL_INVALID_HANDLE;
  ptl_pt_index_t pt   = 0;
  char inbox[256]     = {};
  char data[256]      = {};

  void SetUp() override
  {
    PortalsWorld::SetUp();
    ni1        = init_ni(1);
    eq1        = alloc_eq(ni1);
    pt         = alloc_pt(ni1, eq1);
    ptl_me_t m = me(inbox, sizeof inbox, 0, ~0ull, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
    ptl_handle_me_t h;
    EXPECT_EQ(PtlMEAppend(ni1, pt, &m, PTL_PRIORITY_LIST, nullptr, &h), PTL_OK);
    ni0 = init_ni(3);
  }
};

TEST_F(EventsTest, EqWaitSleepsUntilTheEventAndReportsDeadlock)
{
  as(1);
  ptl_event_t ev;
  EXPECT_EQ(PtlEQWait(eq1, &ev), PTL_INTERRUPTED); // nothing in flight: could never return
  as(3);
  ptl_handle_md_t md = bind_md(ni0, data, 16);
  ASSERT_EQ(PtlPut(md, 0, 16, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0), PTL_OK);
  as(1);
  ASSERT_EQ(PtlEQWait(eq1, &ev), PTL_OK); // the test double delivers while the rank waits
  EXPECT_EQ(ev.type, PTL_EVENT_PUT);
  EXPECT_EQ(ev.mlength, 16u);
}

// SuperLU_DIST's pdtest at cycle, 2 nodes: the last rank ended while the cycle NIC's bridge completed an ACK, the end
// of the run killed the bridge in the wake-ups of that response (NotifyBatch's destructor), and the exception leaving a
// destructor ended the simulator with std::terminate after every rank had ended well.
TEST_F(EventsTest, AKillDuringTheWakeUpsOfAResponseDoesNotEndTheSimulator)
{
  for (unsigned initiator : {3u, 0u}) { // rank 1 on another node, and on its own
    as(initiator);
    ptl_handle_ni_t ni = initiator == 3 ? ni0 : init_ni(initiator);
    ptl_handle_eq_t eq = alloc_eq(ni);
    ptl_handle_md_t md = bind_md(ni, data, 16, eq);
    ASSERT_EQ(PtlPut(md, 0, 16, PTL_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0), PTL_OK);
    nic.killed = true;
    int before = nic.notifications;
    EXPECT_NO_THROW(nic.run()) << "from rank " << initiator; // the kill is the next simcall's to throw again
    EXPECT_GT(nic.notifications, before);
    nic.killed = false;
    ptl_event_t ev;
    EXPECT_EQ(PtlEQGet(eq, &ev), PTL_OK) << "from rank " << initiator; // posted before the wake-ups
  }
}

TEST_F(EventsTest, PollTimeoutsAdvanceTimeThroughTheModel)
{
  as(1);
  ptl_handle_eq_t eqs[2] = {eq1, alloc_eq(ni1)};
  ptl_event_t ev;
  unsigned which = 99;
  EXPECT_EQ(PtlEQPoll(eqs, 2, 0, &ev, &which), PTL_EQ_EMPTY);
  EXPECT_EQ(PtlEQPoll(eqs, 2, 5, &ev, &which), PTL_EQ_EMPTY);
  EXPECT_DOUBLE_EQ(nic.clock, 0.005);
  ptl_handle_ct_t ct = alloc_ct(ni1);
  ptl_size_t test    = 1;
  ptl_ct_event_t cev;
  EXPECT_EQ(PtlCTPoll(&ct, &test, 1, 20, &cev, &which), PTL_CT_NONE_REACHED);
  EXPECT_DOUBLE_EQ(nic.clock, 0.025);
  EXPECT_EQ(PtlCTWait(ct, 1, &cev), PTL_INTERRUPTED);
  ASSERT_EQ(PtlCTInc(ct, {1, 0}), PTL_OK);
  ASSERT_EQ(PtlCTPoll(&ct, &test, 1, 0, &cev, &which), PTL_OK);
  EXPECT_EQ(which, 0u);
  // The second EQ of the poll is the one with an event.
  as(3);
  ptl_handle_md_t md = bind_md(ni0, data, 8);
  ASSERT_EQ(PtlPut(md, 0, 8, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0), PTL_OK);
  nic.run();
  as(1);
  std::swap(eqs[0], eqs[1]);
  ASSERT_EQ(PtlEQPoll(eqs, 2, PTL_TIME_FOREVER, &ev, &which), PTL_OK);
  EXPECT_EQ(which, 1u);
  // An empty PtlEQGet, every PtlCTGet and a PtlEQPoll or PtlCTPoll of timeout 0 that finds nothing
  // (OpenMPI's Portals BTL and MTL poll so) reach the polling hook, so the runtime can let time advance.
  int before = nic.polls;
  EXPECT_EQ(PtlEQGet(eq1, &ev), PTL_EQ_EMPTY);
  EXPECT_EQ(PtlCTGet(ct, &cev), PTL_OK);
  EXPECT_EQ(nic.polls, before + 2);
  EXPECT_EQ(PtlEQPoll(eqs, 2, 0, &ev, &which), PTL_EQ_EMPTY);
  EXPECT_EQ(nic.polls, before + 3);
  test = 2;
  EXPECT_EQ(PtlCTPoll(&ct, &test, 1, 0, &cev, &which), PTL_CT_NONE_REACHED);
  EXPECT_EQ(nic.polls, before + 4);
  test = 1;
  EXPECT_EQ(PtlCTPoll(&ct, &test, 1, 0, &cev, &which), PTL_OK); // a poll that finds something: no hook
  EXPECT_EQ(nic.polls, before + 4);
}

// The polling rule (Core::poll_found_nothing): where the runtime allows it, an empty poll blocks the process
// only once the same source has been found empty 9 times in a row with nothing changed, and never while
// an event waits in another EQ of the process, nor in a PtlCTGet.
TEST_F(EventsTest, EmptyPollsBlockOnlyOnceTheProcessHasSeenEverything)
{
  constexpr int kQuietPolls = 9; // OpenMPI runs its low-priority progress callbacks every 8th round
  bool allowed              = false;
  Core::instance().set_poll_blocking([&allowed](uint32_t id) { return allowed && id == 1; });
  as(1);
  ptl_event_t ev;
  // Not allowed (outside a blocking wait): every empty poll sleeps.
  EXPECT_EQ(PtlEQGet(eq1, &ev), PTL_EQ_EMPTY);
  EXPECT_EQ(nic.polls, 1);
  allowed           = true;
  auto poll_quietly = [&](int times, ptl_handle_eq_t eq) {
    for (int i = 0; i < times; ++i)
      EXPECT_EQ(PtlEQGet(eq, &ev), PTL_EQ_EMPTY);
  };
  poll_quietly(kQuietPolls - 1, eq1); // looks again at once, in no simulated time: the model is not called
  EXPECT_EQ(nic.polls, 1);
  poll_quietly(1, eq1);
  EXPECT_EQ(nic.polls, 2);
  EXPECT_EQ(nic.blocks, 1);
  // A request arrives (an event, a notification): the count starts again, here on another EQ of the loop.
  as(3);
  ptl_handle_md_t md = bind_md(ni0, data, 8);
  ASSERT_EQ(PtlPut(md, 0, 8, PTL_NO_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0), PTL_OK);
  nic.run();
  as(1);
  ptl_handle_eq_t other = alloc_eq(ni1);
  poll_quietly(kQuietPolls - 1, other);
  EXPECT_EQ(nic.polls, 2);
  // The event waits in eq1, which this loop does not poll: sleep, never block.
  poll_quietly(1, other);
  EXPECT_EQ(nic.polls, 3);
  EXPECT_EQ(nic.blocks, 1);
  ASSERT_EQ(PtlEQGet(eq1, &ev), PTL_OK);
  EXPECT_EQ(ev.type, PTL_EVENT_PUT);
  // Taking it is a change too (the loop acts on it): nine quiet polls again, then a block.
  poll_quietly(kQuietPolls, eq1);
  EXPECT_EQ(nic.polls, 4);
  EXPECT_EQ(nic.blocks, 2);
  // A search that finds nothing is a poll that finds nothing: no change.
  ptl_me_t probe = me(nullptr, 0, 42);
  ASSERT_EQ(PtlMESearch(ni1, pt, &probe, PTL_SEARCH_ONLY, nullptr), PTL_OK);
  ASSERT_EQ(PtlEQGet(eq1, &ev), PTL_OK);
  EXPECT_EQ(ev.type, PTL_EVENT_SEARCH);
  EXPECT_EQ(ev.ni_fail_type, PTL_NI_NO_MATCH);
  poll_quietly(1, eq1);
  EXPECT_EQ(nic.blocks, 3);
  // PtlCTGet never blocks: its caller judges the value it read.
  ptl_handle_ct_t ct = alloc_ct(ni1);
  ptl_ct_event_t value;
  for (int i = 0; i < 2 * kQuietPolls; ++i)
    EXPECT_EQ(PtlCTGet(ct, &value), PTL_OK);
  EXPECT_EQ(nic.polls, 5 + 2 * kQuietPolls);
  EXPECT_EQ(nic.blocks, 3);
}

TEST_F(EventsTest, CtWaitCountsBytesOrOperations)
{
  as(3);
  ptl_handle_ct_t ops = alloc_ct(ni0), bytes = alloc_ct(ni0);
  ptl_handle_eq_t eq = alloc_eq(ni0);
  ptl_handle_md_t a  = bind_md(ni0, data, 100, eq, ops, PTL_MD_EVENT_CT_SEND | PTL_MD_EVENT_CT_ACK);
  ptl_handle_md_t b  = bind_md(ni0, data, 100, PTL_EQ_NONE, bytes, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_BYTES);
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(PtlPut(a, 0, 10, PTL_CT_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0), PTL_OK);
    ASSERT_EQ(PtlPut(b, 0, 30, PTL_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0), PTL_OK);
  }
  ptl_ct_event_t v;
  ASSERT_EQ(PtlCTWait(ops, 4, &v), PTL_OK); // 2 SEND + 2 ACK
  EXPECT_EQ(v.success, 4u);
  ASSERT_EQ(PtlCTWait(bytes, 60, &v), PTL_OK);
  EXPECT_EQ(v.success, 60u);
  // PTL_CT_ACK_REQ: the ack is counted, never a full event.
  auto evs = drain(eq);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_SEND);
  EXPECT_EQ(evs[1].type, PTL_EVENT_SEND);
}

// The specification: an operation completed acknowledgment "is a counting type of acknowledgment, but it can only
// count operations". It gave a full ACK event: Sandia OpenSHMEM, whose event queue has room for its SEND events only,
// got PTL_EQ_DROPPED.
TEST_F(EventsTest, AnOperationCompletedAckIsCountedOnceNeverAFullEvent)
{
  as(3);
  ptl_handle_ct_t ct = alloc_ct(ni0);
  ptl_handle_eq_t eq = alloc_eq(ni0);
  ptl_handle_md_t md = bind_md(ni0, data, 100, eq, ct, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_BYTES);
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(PtlPut(md, 0, 30, PTL_OC_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0), PTL_OK);
  ptl_ct_event_t v;
  ASSERT_EQ(PtlCTWait(ct, 2, &v), PTL_OK);
  EXPECT_EQ(v.success, 2u); // operations, not the 60 bytes a counting ack of this MD counts
  EXPECT_EQ(v.failure, 0u);
  auto evs = drain(eq);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_SEND);
  EXPECT_EQ(evs[1].type, PTL_EVENT_SEND);
  EXPECT_EQ(PtlMDRelease(md), PTL_OK);
}

TEST_F(EventsTest, MdOptionsAndReleaseWhileInFlight)
{
  as(3);
  ptl_handle_eq_t eq = alloc_eq(ni0);
  ptl_handle_md_t md = bind_md(ni0, data, 64, eq, PTL_CT_NONE, PTL_MD_EVENT_SEND_DISABLE);
  ASSERT_EQ(PtlPut(md, 0, 64, PTL_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0), PTL_OK);
  EXPECT_EQ(PtlMDRelease(md), PTL_IN_USE);
  nic.run();
  auto evs = drain(eq);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_ACK);
  EXPECT_EQ(PtlMDRelease(md), PTL_OK);
  ptl_handle_md_t quiet = bind_md(ni0, data, 64, eq, PTL_CT_NONE, PTL_MD_EVENT_SUCCESS_DISABLE);
  ASSERT_EQ(PtlPut(quiet, 0, 64, PTL_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0), PTL_OK);
  EXPECT_EQ(PtlPut(quiet, 8, 64, PTL_ACK_REQ, phys(1), pt, 0, 0, nullptr, 0), PTL_ARG_INVALID); // beyond the MD
  nic.run();
  EXPECT_TRUE(drain(eq).empty());
  // A target that does not exist: the ack says so.
  ptl_handle_md_t m2 = bind_md(ni0, data, 8, eq);
  ASSERT_EQ(PtlPut(m2, 0, 8, PTL_ACK_REQ, phys(7), pt, 0, 0, nullptr, 0), PTL_OK);
  nic.run();
  evs = drain(eq);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[1].ni_fail_type, PTL_NI_UNDELIVERABLE);
}

TEST_F(EventsTest, FiniReleasesEverythingAndStaleHandlesStayInvalid)
{
  as(3);
  ptl_handle_eq_t eq = alloc_eq(ni0);
  ptl_handle_ct_t ct = alloc_ct(ni0);
  PtlFini();
  ptl_event_t ev;
  EXPECT_EQ(PtlEQGet(eq, &ev), PTL_NO_INIT);
  ASSERT_EQ(PtlInit(), PTL_OK);
  EXPECT_EQ(PtlEQGet(eq, &ev), PTL_ARG_INVALID);
  ptl_ct_event_t v;
  EXPECT_EQ(PtlCTGet(ct, &v), PTL_ARG_INVALID);
  EXPECT_EQ(Core::instance().find_ni(ni0), nullptr);
}

} // namespace
} // namespace bxisim::portals::testing
