/* Matching with ignore bits and match ids, truncation, use-once, locally managed offsets, the overflow
 * list with unexpected headers and PtlMESearch, Get, and permission checks. */
#include "tests/portals/PortalsWorld.hpp"

#include <cstring>

namespace bxisim::portals::testing
{
namespace
{

class MatchingTest : public PortalsWorld
{
 protected:
  ptl_handle_ni_t ni0 = PTL_INVALID_HANDLE, ni1 = PTL_INVALID_HANDLE;
  ptl_handle_eq_t eq0 = PTL_INVALID_HANDLE, eq1 = PTL_INVALID_HANDLE; // initiator MD events, target PT events
  ptl_pt_index_t pt = 0;
  char src[64];
  ptl_handle_md_t md = PTL_INVALID_HANDLE;

  void SetUp() override
  {
    PortalsWorld::SetUp();
    ni1 = init_ni(1);
    eq1 = alloc_eq(ni1);
    pt  = alloc_pt(ni1, eq1);
    ni0 = init_ni(2); // another node
    eq0 = alloc_eq(ni0);
    for (int i = 0; i < 64; ++i)
      src[i] = static_cast<char>('A' + i % 26);
    md = bind_md(ni0, src, sizeof src, eq0);
  }
  ptl_handle_me_t append(unsigned rank, const ptl_me_t& m, ptl_list_t list = PTL_PRIORITY_LIST, void* user = nullptr)
  {
    as(rank);
    ptl_handle_me_t h = PTL_INVALID_HANDLE;
    EXPECT_EQ(PtlMEAppend(ni1, pt, &m, list, user, &h), PTL_OK);
    return h;
  }
  void put(ptl_size_t len, ptl_match_bits_t bits, ptl_size_t remote_offset = 0, ptl_hdr_data_t hdr = 0)
  {
    as(2);
    ASSERT_EQ(PtlPut(md, 0, len, PTL_ACK_REQ, phys(1), pt, bits, remote_offset, nullptr, hdr), PTL_OK);
    nic.run();
  }
  std::vector<ptl_event_t> target_events()
  {
    as(1);
    return drain(eq1);
  }
  ptl_event_t last_ack()
  {
    as(2);
    auto evs = drain(eq0);
    EXPECT_FALSE(evs.empty());
    return evs.empty() ? ptl_event_t{} : evs.back();
  }
};

TEST_F(MatchingTest, IgnoreBitsSelectTheEntry)
{
  char a[8] = {}, b[8] = {};
  int ua = 1, ub = 2;
  append(1, me(a, 8, 0x1200, 0x00ff), PTL_PRIORITY_LIST, &ua);
  append(1, me(b, 8, 0x1300), PTL_PRIORITY_LIST, &ub);
  target_events();
  put(4, 0x12ab);
  put(4, 0x1300, 4);
  put(4, 0x13ab); // matches neither
  EXPECT_EQ(std::memcmp(a, "ABCD", 4), 0);
  EXPECT_EQ(std::memcmp(b + 4, "ABCD", 4), 0);
  auto evs = target_events();
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].user_ptr, &ua);
  EXPECT_EQ(evs[0].match_bits, 0x12abu);
  EXPECT_EQ(evs[1].user_ptr, &ub);
  EXPECT_EQ(evs[1].initiator.phys.nid, 1u);
  EXPECT_EQ(evs[1].initiator.phys.pid, 0u);
  ptl_event_t ack = last_ack();
  EXPECT_EQ(ack.type, PTL_EVENT_ACK);
  EXPECT_EQ(ack.ni_fail_type, PTL_NI_DROPPED);
  ptl_sr_value_t drops;
  as(1);
  ASSERT_EQ(PtlNIStatus(ni1, PTL_SR_DROP_COUNT, &drops), PTL_OK);
  EXPECT_EQ(drops, 1);
}

TEST_F(MatchingTest, MatchIdRestrictsTheInitiator)
{
  char a[8]           = {};
  ptl_me_t m          = me(a, 8, 5);
  m.match_id.phys.nid = 0; // only node 0 (ranks 0 and 1)
  m.match_id.phys.pid = PTL_PID_ANY;
  append(1, m);
  put(8, 5); // from node 1: no match
  EXPECT_EQ(last_ack().ni_fail_type, PTL_NI_DROPPED);
  ptl_handle_ni_t ni = init_ni(0);
  ptl_handle_eq_t eq = alloc_eq(ni);
  ptl_handle_md_t m0 = bind_md(ni, src, 8, eq);
  ASSERT_EQ(PtlPut(m0, 0, 8, PTL_ACK_REQ, phys(1), pt, 5, 0, nullptr, 0), PTL_OK);
  nic.run();
  auto evs = drain(eq);
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_SEND);
  EXPECT_EQ(evs[1].type, PTL_EVENT_ACK);
  EXPECT_EQ(evs[1].ni_fail_type, PTL_NI_OK);
  EXPECT_EQ(std::memcmp(a, src, 8), 0);
}

TEST_F(MatchingTest, TruncationAndNoTruncate)
{
  char small[8] = {}, big[32] = {};
  append(1, me(small, 8, 9, 0, PTL_ME_OP_PUT | PTL_ME_NO_TRUNCATE));
  append(1, me(big, 32, 9));
  append(1, me(small, 8, 10));
  target_events();
  put(16, 9); // too big for the no-truncate entry: goes to `big`
  EXPECT_EQ(std::memcmp(big, src, 16), 0);
  put(16, 10); // truncated to 8
  EXPECT_EQ(std::memcmp(small, src, 8), 0);
  auto evs = target_events();
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].mlength, 16u);
  EXPECT_EQ(evs[1].rlength, 16u);
  EXPECT_EQ(evs[1].mlength, 8u);
  ptl_event_t ack = last_ack();
  EXPECT_EQ(ack.mlength, 8u);
  EXPECT_EQ(ack.rlength, 16u);
}

TEST_F(MatchingTest, UseOnceUnlinksAfterOneMessage)
{
  char a[8]         = {};
  ptl_handle_me_t h = append(1, me(a, 8, 3, 0, PTL_ME_OP_PUT | PTL_ME_USE_ONCE));
  target_events();
  put(8, 3);
  put(8, 3);
  auto evs = target_events();
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT);
  EXPECT_EQ(evs[1].type, PTL_EVENT_AUTO_UNLINK);
  EXPECT_EQ(last_ack().ni_fail_type, PTL_NI_DROPPED);
  as(1);
  EXPECT_EQ(PtlMEUnlink(h), PTL_ARG_INVALID);
}

TEST_F(MatchingTest, LocallyManagedOffsetsAndMinFree)
{
  char buf[64] = {};
  ptl_me_t m   = me(buf, 64, 4, 0, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL);
  m.min_free   = 16;
  append(1, m);
  target_events();
  for (int i = 0; i < 3; ++i)
    put(20, 4, 999 /* ignored: locally managed */);
  EXPECT_EQ(std::memcmp(buf + 20, src, 20), 0);
  EXPECT_EQ(std::memcmp(buf + 40, src, 20), 0);
  auto evs = target_events();
  ASSERT_EQ(evs.size(), 4u); // 64 - 60 = 4 bytes left < min_free 16: unlinked after the third
  EXPECT_EQ(static_cast<char*>(evs[2].start), buf + 40);
  EXPECT_EQ(evs[3].type, PTL_EVENT_AUTO_UNLINK);
}

TEST_F(MatchingTest, ALocallyManagedEntryTakingUnexpectedHeadersKeepsItsOffsetUnlessAskedToReserveRoom)
{
  char overflow[64] = {};
  append(1, me(overflow, sizeof overflow, 0, ~0ull, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL), PTL_OVERFLOW_LIST);
  put(8, 0x55);
  put(8, 0x55);
  target_events();

  // The headers' data stays in the overflow buffer: the entry's room is untouched, whatever min_free says.
  char buf[16]      = {};
  ptl_me_t m        = me(buf, sizeof buf, 0x55, 0, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL);
  m.min_free        = 1000;
  ptl_handle_me_t h = append(1, m);
  auto evs          = target_events();
  ASSERT_EQ(evs.size(), 3u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(evs[1].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(evs[2].type, PTL_EVENT_LINK);
  put(4, 0x55);
  EXPECT_EQ(std::memcmp(buf, src, 4), 0); // at offset 0
  evs = target_events();
  ASSERT_EQ(evs.size(), 2u); // 16 - 4 < min_free: unlinked by the put that landed in it
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT);
  EXPECT_EQ(evs[1].type, PTL_EVENT_AUTO_UNLINK);
  as(1);
  EXPECT_EQ(PtlMEUnlink(h), PTL_ARG_INVALID);
}

TEST_F(MatchingTest, AnEntryReservingRoomForUnexpectedHeadersCountsTheirRequestedLengths)
{
  char overflow[64] = {};
  append(1, me(overflow, sizeof overflow, 0, ~0ull, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL), PTL_OVERFLOW_LIST);
  put(8, 0x55);
  put(12, 0x55);
  target_events();

  char buf[48]      = {};
  ptl_me_t m        = me(buf, sizeof buf, 0x55, 0, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_LOCAL_INC_UH_RLENGTH);
  m.min_free        = 20;
  ptl_handle_me_t h = append(1, m); // 8 + 12 reserved, 28 left >= 20: linked
  auto evs          = target_events();
  ASSERT_EQ(evs.size(), 3u);
  EXPECT_EQ(evs[2].type, PTL_EVENT_LINK);
  put(6, 0x55);
  EXPECT_EQ(std::memcmp(buf + 20, src, 6), 0); // after the reserved room
  EXPECT_EQ(std::memcmp(buf, std::string(20, '\0').data(), 20), 0);
  evs = target_events();
  ASSERT_EQ(evs.size(), 1u); // 22 left
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT);
  as(1);
  EXPECT_EQ(PtlMEUnlink(h), PTL_OK);

  // Room for fewer headers than wait: the entry is not linked, and its unlink event follows their events.
  put(8, 0x66);
  put(8, 0x66);
  put(8, 0x66);
  target_events();
  ptl_me_t small = me(buf, 24, 0x66, 0, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_LOCAL_INC_UH_RLENGTH);
  small.min_free = 10;
  h              = append(1, small); // 16 left after the first, 8 after the second: consumed
  evs            = target_events();
  ASSERT_EQ(evs.size(), 3u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(evs[1].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(evs[2].type, PTL_EVENT_AUTO_UNLINK);
  EXPECT_EQ(Core::instance().unexpected_count(ni1, pt), 1u); // the third waits for another entry
  as(1);
  EXPECT_EQ(PtlMEUnlink(h), PTL_ARG_INVALID);
}

TEST_F(MatchingTest, OverflowListUnexpectedHeaderThenSearchThenAppend)
{
  char overflow[128] = {};
  int ov_user = 7, recv_user = 8, search_user = 9;
  ptl_me_t ov = me(overflow, sizeof overflow, 0, ~0ull, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL);
  append(1, ov, PTL_OVERFLOW_LIST, &ov_user);
  target_events();
  put(10, 0x42, 0, 0xfeed); // no priority entry: lands in the overflow buffer
  auto evs = target_events();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT);
  EXPECT_EQ(evs[0].ptl_list, PTL_OVERFLOW_LIST);
  EXPECT_EQ(evs[0].user_ptr, &ov_user);
  EXPECT_EQ(Core::instance().unexpected_count(ni1, pt), 1u);

  as(1);
  ptl_me_t probe = me(nullptr, 0, 0x43);
  ASSERT_EQ(PtlMESearch(ni1, pt, &probe, PTL_SEARCH_ONLY, &search_user), PTL_OK);
  probe.match_bits = 0x42;
  ASSERT_EQ(PtlMESearch(ni1, pt, &probe, PTL_SEARCH_ONLY, &search_user), PTL_OK);
  evs = target_events();
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_SEARCH);
  EXPECT_EQ(evs[0].ni_fail_type, PTL_NI_NO_MATCH);
  EXPECT_EQ(evs[1].type, PTL_EVENT_SEARCH);
  EXPECT_EQ(evs[1].ni_fail_type, PTL_NI_OK);
  EXPECT_EQ(evs[1].hdr_data, 0xfeedu);
  EXPECT_EQ(evs[1].mlength, 10u);
  EXPECT_EQ(evs[1].user_ptr, &search_user);
  EXPECT_EQ(Core::instance().unexpected_count(ni1, pt), 1u); // search only: still there

  char dest[16] = {};
  append(1, me(dest, sizeof dest, 0x42, 0, PTL_ME_OP_PUT | PTL_ME_USE_ONCE), PTL_PRIORITY_LIST, &recv_user);
  evs = target_events();
  ASSERT_EQ(evs.size(), 2u); // consumed at append: the use-once entry is unlinked at once
  EXPECT_EQ(evs[1].type, PTL_EVENT_AUTO_UNLINK);
  EXPECT_EQ(evs[1].user_ptr, &recv_user);
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(evs[0].user_ptr, &recv_user);
  EXPECT_EQ(static_cast<char*>(evs[0].start), overflow); // the data stays where it landed
  EXPECT_EQ(evs[0].mlength, 10u);
  EXPECT_EQ(evs[0].hdr_data, 0xfeedu);
  EXPECT_EQ(std::memcmp(overflow, src, 10), 0);
  EXPECT_EQ(std::memcmp(dest, "\0\0\0\0", 4), 0); // not copied by the semantics layer
  EXPECT_EQ(Core::instance().unexpected_count(ni1, pt), 0u);

  // PTL_SEARCH_DELETE consumes a header too.
  put(6, 0x50);
  target_events();
  as(1);
  probe.match_bits = 0x50;
  ASSERT_EQ(PtlMESearch(ni1, pt, &probe, PTL_SEARCH_DELETE, &search_user), PTL_OK);
  evs = target_events();
  ASSERT_EQ(evs.size(), 1u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(static_cast<char*>(evs[0].start), overflow + 10);
  EXPECT_EQ(Core::instance().unexpected_count(ni1, pt), 0u);
}

TEST_F(MatchingTest, AutoFreeWhenTheLastHeaderOfAnUnlinkedOverflowBufferIsConsumed)
{
  char overflow[16] = {};
  ptl_me_t ov       = me(overflow, sizeof overflow, 0, ~0ull, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL);
  ov.min_free       = 8;
  append(1, ov, PTL_OVERFLOW_LIST);
  target_events();
  put(10, 1); // 6 bytes left < 8: auto-unlinked, but the header still refers to its memory
  auto evs = target_events();
  ASSERT_EQ(evs.size(), 2u);
  EXPECT_EQ(evs[1].type, PTL_EVENT_AUTO_UNLINK);
  char dest[16];
  append(1, me(dest, 16, 1, 0, PTL_ME_OP_PUT | PTL_ME_USE_ONCE));
  evs = target_events();
  ASSERT_EQ(evs.size(), 3u);
  EXPECT_EQ(evs[0].type, PTL_EVENT_PUT_OVERFLOW);
  EXPECT_EQ(evs[1].type, PTL_EVENT_AUTO_FREE);   // the overflow buffer's last header is consumed
  EXPECT_EQ(evs[2].type, PTL_EVENT_AUTO_UNLINK); // then the use-once entry that took it
}

TEST_F(MatchingTest, GetReadsTargetMemoryIntoTheInitiatorMd)
{
  char exposed[16];
  std::memcpy(exposed, "0123456789abcdef", 16);
  append(1, me(exposed, 16, 77, 0, PTL_ME_OP_GET));
  target_events();
  as(2);
  char into[8]        = {};
  ptl_handle_md_t gmd = bind_md(ni0, into, sizeof into, eq0);
  int user            = 0;
  ASSERT_EQ(PtlGet(gmd, 2, 6, phys(1), pt, 77, 4, &user), PTL_OK);
  nic.run();
  EXPECT_EQ(std::memcmp(into + 2, "456789", 6), 0);
  auto evs = drain(eq0);
  ASSERT_EQ(evs.size(), 1u); // no SEND for a Get
  EXPECT_EQ(evs[0].type, PTL_EVENT_REPLY);
  EXPECT_EQ(evs[0].mlength, 6u);
  EXPECT_EQ(evs[0].user_ptr, &user);
  auto tev = target_events();
  ASSERT_EQ(tev.size(), 1u);
  EXPECT_EQ(tev[0].type, PTL_EVENT_GET);
  EXPECT_EQ(static_cast<char*>(tev[0].start), exposed + 4);
}

TEST_F(MatchingTest, OperationAndPermissionViolations)
{
  char a[8] = {};
  append(1, me(a, 8, 1, 0, PTL_ME_OP_GET));
  ptl_me_t m = me(a, 8, 2);
  m.uid      = 4242;
  append(1, m);
  put(8, 1);
  EXPECT_EQ(last_ack().ni_fail_type, PTL_NI_OP_VIOLATION);
  put(8, 2);
  EXPECT_EQ(last_ack().ni_fail_type, PTL_NI_PERM_VIOLATION);
  as(1);
  ptl_sr_value_t v;
  ASSERT_EQ(PtlNIStatus(ni1, PTL_SR_OPERATION_VIOLATIONS, &v), PTL_OK);
  EXPECT_EQ(v, 1);
  ASSERT_EQ(PtlNIStatus(ni1, PTL_SR_PERMISSION_VIOLATIONS, &v), PTL_OK);
  EXPECT_EQ(v, 1);
  EXPECT_EQ(std::memcmp(a, "\0\0\0\0\0\0\0\0", 8), 0);
}

TEST_F(MatchingTest, EarlySendLetsTheUserReuseTheBuffer)
{
  char a[8] = {};
  append(1, me(a, 8, 6));
  nic.send_before_delivery = true;
  as(2);
  ASSERT_EQ(PtlPut(md, 0, 8, PTL_NO_ACK_REQ, phys(1), pt, 6, 0, nullptr, 0), PTL_OK);
  ASSERT_EQ(nic.pending(), 1u);
  Core::instance().complete_send(const_cast<Message&>(nic.front())); // SEND before the target has the data
  std::memset(src, 'z', 8);                                          // the program reuses its buffer
  nic.run();
  EXPECT_EQ(std::memcmp(a, "ABCDEFGH", 8), 0);
}

TEST_F(MatchingTest, NonMatchingInterfaceUsesListEntries)
{
  ptl_handle_ni_t n1 = init_ni(1, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL);
  ptl_handle_eq_t e1 = alloc_eq(n1);
  ptl_pt_index_t p1  = alloc_pt(n1, e1);
  char a[8]          = {};
  ptl_le_t le{a, 8, PTL_CT_NONE, PTL_UID_ANY, PTL_LE_OP_PUT};
  ptl_handle_le_t h;
  ASSERT_EQ(PtlLEAppend(n1, p1, &le, PTL_PRIORITY_LIST, nullptr, &h), PTL_OK);
  ptl_me_t m = me(a, 8, 0);
  EXPECT_EQ(PtlMEAppend(n1, p1, &m, PTL_PRIORITY_LIST, nullptr, &h), PTL_ARG_INVALID);
  ptl_handle_ni_t n2 = init_ni(2, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL);
  ptl_handle_md_t m2 = bind_md(n2, src, 8);
  ASSERT_EQ(PtlPut(m2, 0, 8, PTL_NO_ACK_REQ, phys(1), p1, 0xffff /* ignored */, 0, nullptr, 0), PTL_OK);
  nic.run();
  EXPECT_EQ(std::memcmp(a, src, 8), 0);
}

} // namespace
} // namespace bxisim::portals::testing
