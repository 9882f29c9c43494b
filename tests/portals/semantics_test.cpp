/* Behaviour that Portals programs written against the reference implementation rely on, where the spec
 * leaves room (portals/README.md, "Semantics choices"), the functions of Portals 4.3 (PtlAbort, triggered
 * list operations), and misuse that must end in an error code, never in a crash. */
#include "tests/portals/PortalsWorld.hpp"

#include <cstring>
#include <memory>
#include <sys/mman.h>
#include <unistd.h>

namespace bxisim::portals::testing
{
namespace
{

class SemanticsTest : public PortalsWorld
{
 protected:
  // Rank 1 is the target (EQ eq1 on PT pt), rank 2 the initiator on another node (EQ eq0, MD md over src).
  ptl_handle_ni_t ni0 = PTL_INVALID_HANDLE, ni1 = PTL_INVALID_HANDLE;
  ptl_handle_eq_t eq0 = PTL_INVALID_HANDLE, eq1 = PTL_INVALID_HANDLE;
  ptl_pt_index_t pt = 0;
  char src[64];
  ptl_handle_md_t md = PTL_INVALID_HANDLE;

  void SetUp() override
  {
    PortalsWorld::SetUp();
    ni1 = init_ni(1);
    eq1 = alloc_eq(ni1);
    pt  = alloc_pt(ni1, eq1);
    ni0 = init_ni(2);
    eq0 = alloc_eq(ni0);
    for (int i = 0; i < 64; ++i)
      src[i] = static_cast<char>('a' + i % 26);
    md = bind_md(ni0, src, sizeof src, eq0);
  }
  ptl_handle_me_t append(const ptl_me_t& m, ptl_list_t list = PTL_PRIORITY_LIST, void* user = nullptr)
  {
    as(1);
    ptl_handle_me_t h = PTL_INVALID_HANDLE;
    EXPECT_EQ(PtlMEAppend(ni1, pt, &m, list, user, &h), PTL_OK);
    return h;
  }
  void put(ptl_size_t len, ptl_match_bits_t bits, ptl_ack_req_t ack = PTL_ACK_REQ)
  {
    as(2);
    ASSERT_EQ(PtlPut(md, 0, len, ack, phys(1), pt, bits, 0, nullptr, 0), PTL_OK);
    nic.run();
  }
  std::vector<ptl_event_t> target_events()
  {
    as(1);
    return drain(eq1);
  }
  std::vector<ptl_event_t> initiator_events()
  {
    as(2);
    return drain(eq0);
  }
  /* An overflow buffer that keeps unexpected headers for every match bits. */
  char overflow[256] = {};
  void append_overflow()
  {
    append(me(overflow, sizeof overflow, 0, ~0ull, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_EVENT_LINK_DISABLE),
           PTL_OVERFLOW_LIST);
  }
};

TEST_F(SemanticsTest, UseOnceEntryConsumedAtAppendPostsAutoUnlink)
{
  append_overflow();
  put(8, 0x5);
  target_events();
  char dest[8]      = {};
  int user          = 3;
  ptl_handle_me_t h = append(me(dest, sizeof dest, 0x5, 0, PTL_ME_OP_PUT | PTL_ME_USE_ONCE), PTL_PRIORITY_LIST, &user);
  auto evs          = target_events();
  ASSERT_EQ(evs.size(), 2u); // no LINK: it was never linked
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(evs[1].type, PTL_EVENT_AUTO_UNLINK);
  EXPECT_EQ(evs[1].user_ptr, &user);
  EXPECT_EQ(evs[1].ptl_list, PTL_PRIORITY_LIST);
  as(1);
  EXPECT_EQ(PtlMEUnlink(h), PTL_ARG_INVALID); // its handle is stale
  // PTL_ME_EVENT_UNLINK_DISABLE silences it.
  put(8, 0x6);
  target_events();
  append(me(dest, sizeof dest, 0x6, 0, PTL_ME_OP_PUT | PTL_ME_USE_ONCE | PTL_ME_EVENT_UNLINK_DISABLE));
  evs = target_events();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT_OVERFLOW);
}

TEST_F(SemanticsTest, UseOnceLeConsumedAtAppendPostsAutoUnlink)
{
  as(3);
  ASSERT_EQ(PtlInit(), PTL_OK);
  ptl_handle_ni_t target = PTL_INVALID_HANDLE;
  ASSERT_EQ(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, nullptr, nullptr, &target),
            PTL_OK);
  ptl_handle_eq_t eq = alloc_eq(target);
  ptl_pt_index_t lpt = alloc_pt(target, eq);
  char over[32]      = {};
  ptl_le_t ov{over, sizeof over, PTL_CT_NONE, PTL_UID_ANY, PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE};
  ptl_handle_le_t h;
  ASSERT_EQ(PtlLEAppend(target, lpt, &ov, PTL_OVERFLOW_LIST, nullptr, &h), PTL_OK);
  as(2);
  ptl_handle_ni_t ini = PTL_INVALID_HANDLE;
  ASSERT_EQ(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, nullptr, nullptr, &ini),
            PTL_OK);
  ptl_handle_md_t lmd = bind_md(ini, src, 8);
  ASSERT_EQ(PtlPut(lmd, 0, 8, PTL_NO_ACK_REQ, phys(3), lpt, 0, 0, nullptr, 0), PTL_OK);
  nic.run();
  as(3);
  drain(eq);
  char dest[8] = {};
  ptl_le_t once{dest, sizeof dest, PTL_CT_NONE, PTL_UID_ANY, PTL_LE_OP_PUT | PTL_LE_USE_ONCE};
  ASSERT_EQ(PtlLEAppend(target, lpt, &once, PTL_PRIORITY_LIST, nullptr, &h), PTL_OK);
  auto evs = drain(eq);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(evs[1].type, PTL_EVENT_AUTO_UNLINK);
}

TEST_F(SemanticsTest, SearchOnlyPostsOneEventPerMatchingHeaderAndCountsThem)
{
  append_overflow();
  put(8, 0x10);
  put(12, 0x99);
  put(16, 0x10);
  target_events();
  as(1);
  ptl_handle_ct_t ct = alloc_ct(ni1);
  ptl_me_t probe     = me(nullptr, 0, 0x10, 0, PTL_ME_OP_PUT | PTL_ME_EVENT_CT_OVERFLOW);
  probe.ct_handle    = ct;
  int user           = 5;
  ASSERT_EQ(PtlMESearch(ni1, pt, &probe, PTL_SEARCH_ONLY, &user), PTL_OK);
  auto evs = target_events();
  ASSERT_EQ(evs.size(), 2u); // one per matching header
  for (const auto& ev : evs) {
    EXPECT_EQ(ev.type, PTL_EVENT_SEARCH);
    EXPECT_EQ(ev.ni_fail_type, PTL_NI_OK);
    EXPECT_EQ(ev.user_ptr, &user);
    EXPECT_EQ(ev.ptl_list, PTL_OVERFLOW_LIST);
  }
  EXPECT_EQ(evs[0].mlength, 8u);
  EXPECT_EQ(evs[1].mlength, 16u);
  ptl_ct_event_t v;
  ASSERT_EQ(PtlCTGet(ct, &v), PTL_OK);
  EXPECT_EQ(v.success, 2u); // the matches
  EXPECT_EQ(v.failure, 1u); // the search is over (persistent entry)
  EXPECT_EQ(Core::instance().unexpected_count(ni1, pt), 3u);

  // Counting bytes, and a use-once search that stops at the first match (failure only without one).
  ASSERT_EQ(PtlCTSet(ct, {0, 0}), PTL_OK);
  probe.options = PTL_ME_OP_PUT | PTL_ME_EVENT_CT_OVERFLOW | PTL_ME_EVENT_CT_BYTES | PTL_ME_USE_ONCE;
  ASSERT_EQ(PtlMESearch(ni1, pt, &probe, PTL_SEARCH_ONLY, &user), PTL_OK);
  EXPECT_EQ(target_events().size(), 1u);
  ASSERT_EQ(PtlCTGet(ct, &v), PTL_OK);
  EXPECT_EQ(v.success, 8u);
  EXPECT_EQ(v.failure, 0u);

  // No match: one PTL_NI_NO_MATCH event and a failure.
  ASSERT_EQ(PtlCTSet(ct, {0, 0}), PTL_OK);
  probe.match_bits = 0x77;
  ASSERT_EQ(PtlMESearch(ni1, pt, &probe, PTL_SEARCH_ONLY, &user), PTL_OK);
  evs = target_events();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].ni_fail_type, PTL_NI_NO_MATCH);
  ASSERT_EQ(PtlCTGet(ct, &v), PTL_OK);
  EXPECT_EQ(v.success, 0u);
  EXPECT_EQ(v.failure, 1u);
}

TEST_F(SemanticsTest, SearchDeleteConsumesEveryMatchingHeaderAndCountsThem)
{
  append_overflow();
  put(8, 0x20);
  put(8, 0x21);
  put(8, 0x20);
  target_events();
  as(1);
  ptl_handle_ct_t ct = alloc_ct(ni1);
  ptl_me_t probe     = me(nullptr, 0, 0x20, 0, PTL_ME_OP_PUT | PTL_ME_EVENT_CT_OVERFLOW);
  probe.ct_handle    = ct;
  ASSERT_EQ(PtlMESearch(ni1, pt, &probe, PTL_SEARCH_DELETE, nullptr), PTL_OK);
  auto evs = target_events();
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(evs[1].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(static_cast<char*>(evs[1].start), overflow + 16);
  ptl_ct_event_t v;
  ASSERT_EQ(PtlCTGet(ct, &v), PTL_OK);
  EXPECT_EQ(v.success, 2u);
  EXPECT_EQ(v.failure, 1u);
  EXPECT_EQ(Core::instance().unexpected_count(ni1, pt), 1u); // 0x21 stays
}

TEST_F(SemanticsTest, LocallyManagedEntryFilledAtAppendBelowMinFreeIsUnlinked)
{
  append_overflow();
  put(24, 0x30);
  put(24, 0x30);
  put(24, 0x30);
  target_events();
  char dest[64] = {};
  ptl_me_t m    = me(dest, sizeof dest, 0x30, 0, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_LOCAL_INC_UH_RLENGTH);
  m.min_free    = 20;
  append(m);
  auto evs = target_events();
  // 24 B reserved, then 48 B: 16 B left < min_free 20, so the second header unlinks it; the third stays.
  ASSERT_EQ(evs.size(), 3u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(evs[1].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(evs[2].type, PTL_EVENT_AUTO_UNLINK);
  EXPECT_EQ(Core::instance().unexpected_count(ni1, pt), 1u);
}

TEST_F(SemanticsTest, SearchOnlyWithCommDisableCountsWithoutEvents)
{
  append_overflow();
  put(8, 0x40);
  target_events();
  as(1);
  ptl_handle_ct_t ct = alloc_ct(ni1);
  ptl_me_t probe     = me(nullptr, 0, 0x40, 0, PTL_ME_OP_PUT | PTL_ME_EVENT_CT_OVERFLOW | PTL_ME_EVENT_COMM_DISABLE);
  probe.ct_handle    = ct;
  ASSERT_EQ(PtlMESearch(ni1, pt, &probe, PTL_SEARCH_ONLY, nullptr), PTL_OK);
  EXPECT_TRUE(target_events().empty());
  ptl_ct_event_t v;
  ASSERT_EQ(PtlCTGet(ct, &v), PTL_OK);
  EXPECT_EQ(v.success, 1u);
  EXPECT_EQ(v.failure, 1u);
}

TEST_F(SemanticsTest, AckAndReplyCarryTheListTheTargetMatchedOn)
{
  char dest[8] = {};
  append(me(dest, sizeof dest, 0x1));
  append_overflow();
  put(8, 0x1);
  auto evs = initiator_events();
  ASSERT_EQ(evs.back().type, PTL_EVENT_ACK);
  EXPECT_EQ(evs.back().ptl_list, PTL_PRIORITY_LIST);
  put(8, 0x2);
  evs = initiator_events();
  ASSERT_EQ(evs.back().type, PTL_EVENT_ACK);
  EXPECT_EQ(evs.back().ptl_list, PTL_OVERFLOW_LIST);
  as(2);
  ASSERT_EQ(PtlGet(md, 0, 8, phys(1), pt, 0x1, 0, nullptr), PTL_OK);
  nic.run();
  evs = initiator_events();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_REPLY);
  EXPECT_EQ(evs[0].ptl_list, PTL_PRIORITY_LIST);
}

TEST_F(SemanticsTest, MdReleaseSucceedsOnceTheLastEventIsPosted)
{
  char dest[64] = {};
  append(me(dest, sizeof dest, 0x1));
  as(2);
  // No ack: SEND is the last word; the payload is copied then, so the MD may go before delivery.
  ASSERT_EQ(PtlPut(md, 0, 32, PTL_NO_ACK_REQ, phys(1), pt, 0x1, 0, nullptr, 0), PTL_OK);
  EXPECT_EQ(PtlMDRelease(md), PTL_IN_USE);
  nic.complete_send_of_front();
  ASSERT_EQ(initiator_events().size(), 1u);
  as(2);
  EXPECT_EQ(PtlMDRelease(md), PTL_OK);
  std::memset(src, 'X', sizeof src); // the program reuses its buffer
  nic.run();
  EXPECT_EQ(dest[0], 'a'); // what it held when SEND was posted
  // With an ack: in use until the ACK.
  md = bind_md(ni0, src, sizeof src, eq0);
  ASSERT_EQ(PtlPut(md, 0, 32, PTL_ACK_REQ, phys(1), pt, 0x1, 0, nullptr, 0), PTL_OK);
  nic.complete_send_of_front();
  as(2);
  EXPECT_EQ(PtlMDRelease(md), PTL_IN_USE);
  nic.run();
  EXPECT_EQ(PtlMDRelease(md), PTL_OK);
  // Counted only (PTL_CT_ACK_REQ): free once the counter moved.
  ptl_handle_ct_t ct = alloc_ct(ni0);
  md                 = bind_md(ni0, src, sizeof src, PTL_EQ_NONE, ct, PTL_MD_EVENT_CT_ACK);
  ASSERT_EQ(PtlPut(md, 0, 32, PTL_CT_ACK_REQ, phys(1), pt, 0x1, 0, nullptr, 0), PTL_OK);
  ptl_ct_event_t v;
  ASSERT_EQ(PtlCTWait(ct, 1, &v), PTL_OK);
  EXPECT_EQ(PtlMDRelease(md), PTL_OK);
  // An ack the MD cannot record (a counted ack, but the MD counts SENDs only): SEND is its last word.
  ptl_handle_ct_t sends = alloc_ct(ni0);
  md                    = bind_md(ni0, src, sizeof src, PTL_EQ_NONE, sends, PTL_MD_EVENT_CT_SEND);
  ASSERT_EQ(PtlPut(md, 0, 32, PTL_CT_ACK_REQ, phys(1), pt, 0x1, 0, nullptr, 0), PTL_OK);
  nic.complete_send_of_front();
  as(2);
  ASSERT_EQ(PtlCTWait(sends, 1, &v), PTL_OK);
  EXPECT_EQ(PtlMDRelease(md), PTL_OK);
  nic.run(); // the ack arrives for a released MD: nothing to record, nothing breaks
  EXPECT_EQ(PtlCTGet(sends, &v), PTL_OK);
  EXPECT_EQ(v.success, 1u);
}

TEST_F(SemanticsTest, FullEventQueueKeepsTheNewestEventsAndReportsTheLoss)
{
  as(1);
  ptl_handle_eq_t small = alloc_eq(ni1, 2);
  ptl_pt_index_t spt    = 0;
  ASSERT_EQ(PtlPTAlloc(ni1, 0, small, PTL_PT_ANY, &spt), PTL_OK);
  char dest[8] = {};
  ptl_me_t m   = me(dest, sizeof dest, 0, ~0ull, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
  ptl_handle_me_t h;
  ASSERT_EQ(PtlMEAppend(ni1, spt, &m, PTL_PRIORITY_LIST, nullptr, &h), PTL_OK);
  as(2);
  for (ptl_hdr_data_t i = 1; i <= 5; ++i)
    ASSERT_EQ(PtlPut(md, 0, 8, PTL_NO_ACK_REQ, phys(1), spt, 0, 0, nullptr, i), PTL_OK);
  nic.run();
  as(1);
  ptl_event_t ev;
  ASSERT_EQ(PtlEQGet(small, &ev), PTL_EQ_DROPPED); // events 1 to 3 were overwritten
  EXPECT_EQ(ev.hdr_data, 4u);
  ASSERT_EQ(PtlEQGet(small, &ev), PTL_OK);
  EXPECT_EQ(ev.hdr_data, 5u);
  EXPECT_EQ(PtlEQGet(small, &ev), PTL_EQ_EMPTY);
}

TEST_F(SemanticsTest, EqFreedWhileAPtPostsToItDiscardsItsEvents)
{
  char dest[8] = {};
  append(me(dest, sizeof dest, 0x1));
  as(1);
  EXPECT_EQ(PtlEQFree(eq1), PTL_OK);
  put(8, 0x1);
  EXPECT_EQ(std::memcmp(dest, src, 8), 0); // delivered, its event discarded
  auto evs = initiator_events();
  ASSERT_EQ(evs.back().type, PTL_EVENT_ACK);
  EXPECT_EQ(evs.back().ni_fail_type, PTL_NI_OK);
}

TEST_F(SemanticsTest, VolatileMdIsCopiedAtTheCallUpToMaxVolatileSize)
{
  char dest[64] = {};
  append(me(dest, sizeof dest, 0x1));
  as(2);
  ptl_process_t self;
  ASSERT_EQ(PtlGetPhysId(ni0, &self), PTL_OK);
  const ptl_ni_limits_t* limits = &Core::instance().find_ni(ni0)->limits;
  ASSERT_EQ(limits->max_volatile_size, 64u);
  char buf[80];
  std::memset(buf, 'v', sizeof buf);
  ptl_handle_md_t vmd = bind_md(ni0, buf, sizeof buf, eq0, PTL_CT_NONE, PTL_MD_VOLATILE);
  EXPECT_EQ(PtlPut(vmd, 0, 65, PTL_NO_ACK_REQ, phys(1), pt, 0x1, 0, nullptr, 0), PTL_ARG_INVALID);
  ASSERT_EQ(PtlPut(vmd, 0, 16, PTL_NO_ACK_REQ, phys(1), pt, 0x1, 0, nullptr, 0), PTL_OK);
  std::memset(buf, 'w', sizeof buf); // at once: the data left with the call
  nic.run();
  EXPECT_EQ(dest[0], 'v');
  EXPECT_EQ(dest[15], 'v');

  // A smaller limit asked for is granted.
  as(4);
  ASSERT_EQ(PtlInit(), PTL_OK);
  ptl_ni_limits_t desired{}, actual{};
  desired.max_volatile_size = 8;
  ptl_handle_ni_t ni        = PTL_INVALID_HANDLE;
  ASSERT_EQ(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, &desired, &actual, &ni),
            PTL_OK);
  EXPECT_EQ(actual.max_volatile_size, 8u);
  ptl_handle_md_t small = bind_md(ni, buf, sizeof buf, PTL_EQ_NONE, PTL_CT_NONE, PTL_MD_VOLATILE);
  EXPECT_EQ(PtlPut(small, 0, 9, PTL_NO_ACK_REQ, phys(1), pt, 0x1, 0, nullptr, 0), PTL_ARG_INVALID);
  EXPECT_EQ(PtlPut(small, 0, 8, PTL_NO_ACK_REQ, phys(1), pt, 0x1, 0, nullptr, 0), PTL_OK);
  nic.run();
}

TEST_F(SemanticsTest, FeaturesAreReportedOnlyWhenRequested)
{
  as(4);
  ASSERT_EQ(PtlInit(), PTL_OK);
  ptl_ni_limits_t actual{};
  actual.features = 0xff;
  ptl_handle_ni_t ni;
  ASSERT_EQ(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, nullptr, &actual, &ni),
            PTL_OK);
  EXPECT_EQ(actual.features, 0u);
  as(5);
  ASSERT_EQ(PtlInit(), PTL_OK);
  ptl_ni_limits_t desired{};
  desired.features = PTL_COHERENT_ATOMICS | PTL_TOTAL_DATA_ORDERING | PTL_TARGET_BIND_INACCESSIBLE;
  ASSERT_EQ(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, &desired, &actual, &ni),
            PTL_OK);
  EXPECT_EQ(actual.features, static_cast<unsigned>(PTL_COHERENT_ATOMICS)); // what bxisim has of it
}

TEST_F(SemanticsTest, AtomicSyncNeedsPtlInit)
{
  as(6);
  EXPECT_EQ(PtlAtomicSync(), PTL_NO_INIT);
  ASSERT_EQ(PtlInit(), PTL_OK);
  EXPECT_EQ(PtlAtomicSync(), PTL_OK);
  PtlFini();
  EXPECT_EQ(PtlAtomicSync(), PTL_NO_INIT);
}

TEST_F(SemanticsTest, AbortMakesWaitsAndPollsReturnAborted)
{
  as(2);
  ptl_handle_ct_t ct = alloc_ct(ni0);
  PtlAbort();
  ptl_event_t ev;
  ptl_ct_event_t v;
  unsigned which;
  EXPECT_EQ(PtlEQWait(eq0, &ev), PTL_ABORTED);
  EXPECT_EQ(PtlEQPoll(&eq0, 1, 10, &ev, &which), PTL_ABORTED);
  EXPECT_EQ(PtlCTWait(ct, 1, &v), PTL_ABORTED);
  ptl_size_t test = 1;
  EXPECT_EQ(PtlCTPoll(&ct, &test, 1, 10, &v, &which), PTL_ABORTED);
  EXPECT_EQ(PtlEQGet(eq0, &ev), PTL_EQ_EMPTY); // not a waiting call
  as(1);
  EXPECT_EQ(PtlEQPoll(&eq1, 1, 0, &ev, &which), PTL_EQ_EMPTY); // other processes go on
  // A new life after PtlFini and PtlInit.
  as(2);
  PtlFini();
  ASSERT_EQ(PtlInit(), PTL_OK);
  ptl_handle_ni_t ni = PTL_INVALID_HANDLE;
  ASSERT_EQ(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, nullptr, nullptr, &ni),
            PTL_OK);
  ptl_handle_eq_t eq = alloc_eq(ni);
  EXPECT_EQ(PtlEQPoll(&eq, 1, 0, &ev, &which), PTL_EQ_EMPTY);
}

TEST_F(SemanticsTest, TriggeredMeAppendLinksWhenTheCounterReachesTheThreshold)
{
  as(1);
  ptl_handle_ct_t trig = alloc_ct(ni1);
  char dest[8]         = {};
  ptl_me_t m           = me(dest, sizeof dest, 0x7);
  ptl_handle_me_t h    = PTL_INVALID_HANDLE;
  int user             = 9;
  ASSERT_EQ(PtlTriggeredMEAppend(ni1, pt, &m, PTL_PRIORITY_LIST, &user, &h, trig, 2), PTL_OK);
  EXPECT_NE(h, PTL_INVALID_HANDLE);
  EXPECT_TRUE(target_events().empty());
  put(8, 0x7);
  EXPECT_EQ(initiator_events().back().ni_fail_type, PTL_NI_DROPPED); // not there yet
  as(1);
  ASSERT_EQ(PtlCTInc(trig, {1, 0}), PTL_OK);
  EXPECT_TRUE(target_events().empty());
  ASSERT_EQ(PtlCTInc(trig, {1, 0}), PTL_OK);
  auto evs = target_events();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_LINK);
  EXPECT_EQ(evs[0].user_ptr, &user);
  put(8, 0x7);
  EXPECT_EQ(std::memcmp(dest, src, 8), 0);
  // Triggered unlink: the entry goes when its counter says so.
  as(1);
  ASSERT_EQ(PtlTriggeredMEUnlink(h, trig, 3), PTL_OK);
  put(8, 0x7);
  EXPECT_EQ(initiator_events().back().ni_fail_type, PTL_NI_OK);
  as(1);
  ASSERT_EQ(PtlCTInc(trig, {1, 0}), PTL_OK);
  put(8, 0x7);
  EXPECT_EQ(initiator_events().back().ni_fail_type, PTL_NI_DROPPED);
  as(1);
  EXPECT_EQ(PtlMEUnlink(h), PTL_ARG_INVALID);
}

TEST_F(SemanticsTest, TriggeredAppendConsumesUnexpectedHeadersAndCanBeCancelled)
{
  append_overflow();
  put(8, 0x8);
  target_events();
  as(1);
  ptl_handle_ct_t trig = alloc_ct(ni1);
  char dest[8]         = {};
  ptl_me_t once        = me(dest, sizeof dest, 0x8, 0, PTL_ME_OP_PUT | PTL_ME_USE_ONCE);
  ptl_handle_me_t h;
  ASSERT_EQ(PtlTriggeredMEAppend(ni1, pt, &once, PTL_PRIORITY_LIST, nullptr, &h, trig, 1), PTL_OK);
  EXPECT_EQ(Core::instance().unexpected_count(ni1, pt), 1u);
  ASSERT_EQ(PtlCTInc(trig, {1, 0}), PTL_OK);
  auto evs = target_events();
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(evs[1].type, PTL_EVENT_AUTO_UNLINK);
  EXPECT_EQ(Core::instance().unexpected_count(ni1, pt), 0u);
  // PtlMEUnlink before the trigger: it never links.
  ptl_me_t m = me(dest, sizeof dest, 0x9);
  ASSERT_EQ(PtlTriggeredMEAppend(ni1, pt, &m, PTL_PRIORITY_LIST, nullptr, &h, trig, 5), PTL_OK);
  ASSERT_EQ(PtlMEUnlink(h), PTL_OK);
  EXPECT_EQ(PtlMEUnlink(h), PTL_ARG_INVALID);
  ASSERT_EQ(PtlCTSet(trig, {10, 0}), PTL_OK);
  EXPECT_TRUE(target_events().empty());
  // A threshold already reached: appended at once.
  ASSERT_EQ(PtlTriggeredMEAppend(ni1, pt, &m, PTL_PRIORITY_LIST, nullptr, &h, trig, 5), PTL_OK);
  evs = target_events();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_LINK);
}

TEST_F(SemanticsTest, TriggeredLeAppendAndUnlink)
{
  as(3);
  ASSERT_EQ(PtlInit(), PTL_OK);
  ptl_handle_ni_t target = PTL_INVALID_HANDLE;
  ASSERT_EQ(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, nullptr, nullptr, &target),
            PTL_OK);
  ptl_handle_eq_t eq   = alloc_eq(target);
  ptl_pt_index_t lpt   = alloc_pt(target, eq);
  ptl_handle_ct_t trig = alloc_ct(target);
  char dest[8]         = {};
  ptl_le_t le{dest, sizeof dest, PTL_CT_NONE, PTL_UID_ANY, PTL_LE_OP_PUT};
  ptl_handle_le_t h;
  ASSERT_EQ(PtlTriggeredLEAppend(target, lpt, &le, PTL_PRIORITY_LIST, nullptr, &h, trig, 1), PTL_OK);
  ASSERT_EQ(PtlTriggeredLEUnlink(h, trig, 2), PTL_OK);
  EXPECT_TRUE(drain(eq).empty());
  ASSERT_EQ(PtlCTInc(trig, {1, 0}), PTL_OK);
  auto evs = drain(eq);
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_LINK);
  ASSERT_EQ(PtlCTInc(trig, {1, 0}), PTL_OK);
  EXPECT_EQ(PtlLEUnlink(h), PTL_ARG_INVALID); // already unlinked by its trigger
  // Arguments are checked at the call.
  EXPECT_EQ(PtlTriggeredLEAppend(target, lpt, &le, PTL_PRIORITY_LIST, nullptr, &h, PTL_CT_NONE, 1), PTL_ARG_INVALID);
  EXPECT_EQ(PtlTriggeredMEAppend(target, lpt, nullptr, PTL_PRIORITY_LIST, nullptr, &h, trig, 1), PTL_ARG_INVALID);
}

// ---- Misuse: an error code, never a crash ----

TEST_F(SemanticsTest, NullMemoryWithALengthIsRefused)
{
  as(2);
  ptl_md_t bad{nullptr, 8, 0, PTL_EQ_NONE, PTL_CT_NONE};
  ptl_handle_md_t h;
  EXPECT_EQ(PtlMDBind(ni0, &bad, &h), PTL_ARG_INVALID);
  bad.length = 0;
  EXPECT_EQ(PtlMDBind(ni0, &bad, &h), PTL_OK); // zero-length MDs are legal (events only)
  ptl_iovec_t iov[2] = {{src, 8}, {nullptr, 8}};
  ptl_md_t vec{iov, 2, PTL_IOVEC, PTL_EQ_NONE, PTL_CT_NONE};
  EXPECT_EQ(PtlMDBind(ni0, &vec, &h), PTL_ARG_INVALID);
  as(1);
  ptl_me_t m = me(nullptr, 16, 0);
  ptl_handle_me_t mh;
  EXPECT_EQ(PtlMEAppend(ni1, pt, &m, PTL_PRIORITY_LIST, nullptr, &mh), PTL_ARG_INVALID);
  m.length = 0;
  EXPECT_EQ(PtlMEAppend(ni1, pt, &m, PTL_PRIORITY_LIST, nullptr, &mh), PTL_OK);
}

TEST_F(SemanticsTest, PtIndexBeyondTheLimitIsRefused)
{
  as(2);
  const ptl_ni_limits_t& limits = Core::instance().find_ni(ni0)->limits;
  ptl_pt_index_t beyond         = static_cast<ptl_pt_index_t>(limits.max_pt_index) + 1;
  EXPECT_EQ(PtlPut(md, 0, 8, PTL_ACK_REQ, phys(1), beyond, 0, 0, nullptr, 0), PTL_ARG_INVALID);
  EXPECT_EQ(PtlGet(md, 0, 8, phys(1), 100000, 0, 0, nullptr), PTL_ARG_INVALID);
  EXPECT_EQ(nic.pending(), 0u);
  ptl_pt_index_t index;
  as(1);
  EXPECT_EQ(PtlPTAlloc(ni1, 0, eq1, beyond, &index), PTL_ARG_INVALID);
}

TEST_F(SemanticsTest, PutToAProcessThatDoesNotExistIsUndeliverable)
{
  as(2);
  ptl_handle_ct_t ct  = alloc_ct(ni0);
  ptl_handle_md_t cmd = bind_md(ni0, src, 8, eq0, ct, PTL_MD_EVENT_CT_SEND | PTL_MD_EVENT_CT_ACK);
  ptl_process_t nobody;
  nobody.phys.nid = 4000;
  nobody.phys.pid = 0;
  ASSERT_EQ(PtlPut(cmd, 0, 8, PTL_ACK_REQ, nobody, pt, 0, 0, nullptr, 0), PTL_OK);
  nic.run();
  auto evs = initiator_events();
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_SEND);
  EXPECT_EQ(evs[0].ni_fail_type, PTL_NI_UNDELIVERABLE);
  EXPECT_EQ(evs[1].type, PTL_EVENT_ACK);
  EXPECT_EQ(evs[1].ni_fail_type, PTL_NI_UNDELIVERABLE);
  ptl_ct_event_t v;
  ASSERT_EQ(PtlCTGet(ct, &v), PTL_OK);
  EXPECT_EQ(v.failure, 2u);
}

TEST_F(SemanticsTest, NiFiniWithOperationsInFlightCompletesThemAndForgetsTheInitiator)
{
  static char dest[4096];
  std::memset(dest, 0, sizeof dest);
  as(1);
  ptl_handle_ct_t arrived = alloc_ct(ni1);
  ptl_me_t m  = me(dest, sizeof dest, 0x1, 0, PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_COMM_DISABLE);
  m.ct_handle = arrived;
  append(m);
  target_events();
  as(2);
  auto buffer = std::make_unique<char[]>(4096);
  std::memset(buffer.get(), 'p', 4096);
  ptl_handle_ct_t ct  = alloc_ct(ni0);
  ptl_handle_md_t big = bind_md(ni0, buffer.get(), 4096, eq0, ct, PTL_MD_EVENT_CT_SEND);
  for (int i = 0; i < 3; ++i)
    ASSERT_EQ(PtlPut(big, 0, 4096, PTL_ACK_REQ, phys(1), pt, 0x1, 0, nullptr, 0), PTL_OK);
  ptl_handle_ct_t trig = alloc_ct(ni0);
  for (int i = 0; i < 5000; ++i)
    ASSERT_EQ(PtlTriggeredPut(big, 0, 4096, PTL_ACK_REQ, phys(1), pt, 0x1, 0, nullptr, 0, trig, 1 + i % 2), PTL_OK);
  ASSERT_EQ(PtlCTInc(trig, {1, 0}), PTL_OK); // half of them fire, into the model's queue
  EXPECT_EQ(nic.pending(), 2503u);
  ASSERT_EQ(PtlNIFini(ni0), PTL_OK); // the other half is discarded with its CT
  buffer.reset();                    // the program may free its memory once PtlNIFini returned
  nic.run();
  EXPECT_EQ(nic.finished(), 2503);
  as(1);
  ptl_ct_event_t v;
  ASSERT_EQ(PtlCTGet(arrived, &v), PTL_OK);
  EXPECT_EQ(v.success, 2503u); // what the NIC had been given arrives, with the data of that time
  EXPECT_EQ(dest[4095], 'p');
}

TEST_F(SemanticsTest, EndedProcessIsFinalizedAndWhatItsMemoryLostIsDropped)
{
  char dest[64] = {};
  append(me(dest, sizeof dest, 0x1));
  target_events();
  as(2);
  long page  = sysconf(_SC_PAGESIZE);
  void* gone = mmap(nullptr, static_cast<size_t>(page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(gone, MAP_FAILED);
  std::memset(gone, 'g', 64);
  ptl_handle_md_t lost = bind_md(ni0, gone, 64, eq0);
  ASSERT_EQ(PtlPut(md, 0, 32, PTL_ACK_REQ, phys(1), pt, 0x1, 0, nullptr, 0), PTL_OK);   // memory still there
  ASSERT_EQ(PtlPut(lost, 0, 64, PTL_ACK_REQ, phys(1), pt, 0x1, 0, nullptr, 0), PTL_OK); // memory unmapped below
  munmap(gone, static_cast<size_t>(page));
  Core::instance().end_process(2); // its main returned
  EXPECT_EQ(Core::instance().find_ni(ni0), nullptr);
  nic.run(); // no read of the unmapped page
  EXPECT_EQ(nic.finished(), 2);
  EXPECT_EQ(dest[0], 'a'); // the first arrived
  EXPECT_EQ(dest[32], 0);  // the second was dropped
  auto evs = target_events();
  ASSERT_EQ(evs.size(), 1u);
  // And messages sent to an ended process are undeliverable, not written into its memory.
  Core::instance().end_process(1);
  as(4);
  ASSERT_EQ(PtlInit(), PTL_OK);
  ptl_handle_ni_t ni = PTL_INVALID_HANDLE;
  ASSERT_EQ(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, nullptr, nullptr, &ni),
            PTL_OK);
  ptl_handle_eq_t eq = alloc_eq(ni);
  ptl_handle_md_t m  = bind_md(ni, src, 8, eq);
  std::memset(dest, 0, sizeof dest);
  ASSERT_EQ(PtlPut(m, 0, 8, PTL_ACK_REQ, phys(1), pt, 0x1, 0, nullptr, 0), PTL_OK);
  nic.run();
  evs = drain(eq);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[1].ni_fail_type, PTL_NI_UNDELIVERABLE);
  EXPECT_EQ(dest[0], 0);
}

} // namespace
} // namespace bxisim::portals::testing
