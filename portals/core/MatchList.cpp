/* Priority and overflow lists: PtlMEAppend/PtlLEAppend (with the unexpected headers they consume),
 * unlink, and PtlMESearch/PtlLESearch. */
#include "portals/core/Core.hpp"
#include "portals/core/Matching.hpp"

#include <xbt/log.h>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(portals_lists, portals, "Portals priority/overflow lists and unexpected headers");

namespace bxisim::portals
{

EntrySpec toSpec(const ptl_me_t& me)
{
  EntrySpec s;
  s.isMe       = true;
  s.start      = me.start;
  s.length     = me.length;
  s.ct         = me.ct_handle;
  s.uid        = me.uid;
  s.options    = me.options;
  s.matchId    = me.match_id;
  s.matchBits  = me.match_bits;
  s.ignoreBits = me.ignore_bits;
  s.minFree    = me.min_free;
  return s;
}

EntrySpec toSpec(const ptl_le_t& le)
{
  EntrySpec s;
  s.isMe    = false;
  s.start   = le.start;
  s.length  = le.length;
  s.ct      = le.ct_handle;
  s.uid     = le.uid;
  s.options = le.options;
  return s;
}

namespace
{

/* The ME/LE options an operation needs. */
unsigned permissionsFor(ptl_event_kind_t type)
{
  switch (type) {
  case PTL_EVENT_GET:
    return PTL_ME_OP_GET;
  case PTL_EVENT_FETCH_ATOMIC:
    return PTL_ME_OP_GET | PTL_ME_OP_PUT;
  default:
    return PTL_ME_OP_PUT;
  }
}

bool headerMatches(const ListEntry& e, const UnexpectedHeader& h, bool matchingNi, bool logicalNi)
{
  Initiator who;
  who.phys      = h.physInitiator;
  who.rank      = logicalNi ? h.initiator.rank : PTL_RANK_ANY;
  who.uid       = h.uid;
  unsigned need = permissionsFor(h.type);
  return entryMatches(e, matchingNi, logicalNi, who, h.matchBits) && (e.options & need) == need &&
         (e.uid == PTL_UID_ANY || e.uid == h.uid);
}

ptl_event_t eventFromHeader(const UnexpectedHeader& h, ptl_event_kind_t type, void* userPtr, ptl_pt_index_t pt)
{
  ptl_event_t ev{};
  ev.type             = type;
  ev.start            = h.start;
  ev.user_ptr         = userPtr;
  ev.hdr_data         = h.hdrData;
  ev.match_bits       = h.matchBits;
  ev.rlength          = h.rlength;
  ev.mlength          = h.mlength;
  ev.remote_offset    = h.remoteOffset;
  ev.initiator        = h.initiator;
  ev.uid              = h.uid;
  ev.pt_index         = pt;
  ev.ptl_list         = PTL_OVERFLOW_LIST;
  ev.ni_fail_type     = PTL_NI_OK;
  ev.atomic_operation = h.atomicOp;
  ev.atomic_type      = h.atomicType;
  return ev;
}

ListEntry entryFromSpec(const EntrySpec& spec)
{
  ListEntry e;
  e.isMe       = spec.isMe;
  e.region     = MemoryRegion(spec.start, spec.length, (spec.options & PTL_IOVEC) != 0);
  e.ct         = spec.ct;
  e.uid        = spec.uid;
  e.options    = spec.options;
  e.matchId    = spec.matchId;
  e.matchBits  = spec.matchBits;
  e.ignoreBits = spec.ignoreBits;
  e.minFree    = spec.minFree;
  return e;
}

} // namespace

void Core::releaseHeaderReference(NetworkInterface& ni, const ListEntryPtr& overflowEntry)
{
  if (!overflowEntry)
    return;
  overflowEntry->pendingHeaders--;
  if (overflowEntry->pendingHeaders == 0 && overflowEntry->autoUnlinked) {
    ptl_event_t ev{};
    ev.type     = PTL_EVENT_AUTO_FREE;
    ev.user_ptr = overflowEntry->userPtr;
    ev.pt_index = overflowEntry->ptIndex;
    ev.ptl_list = PTL_OVERFLOW_LIST;
    postTargetEvent(ni, *overflowEntry, ev);
  }
}

void Core::consumeHeader(NetworkInterface& ni, PortalTableEntry& pte, std::list<UnexpectedHeader>::iterator it,
                         ListEntry& consumer)
{
  UnexpectedHeader h = *it;
  pte.unexpected.erase(it);
  ni.unexpectedHeaders--;
  if (consumer.isMe && (consumer.options & PTL_ME_MANAGE_LOCAL))
    consumer.localOffset += (consumer.options & PTL_ME_LOCAL_INC_UH_RLENGTH) ? h.rlength : h.mlength;
  postTargetEvent(ni, consumer,
                  eventFromHeader(h, static_cast<ptl_event_kind_t>(h.type + 1), consumer.userPtr, consumer.ptIndex));
  releaseHeaderReference(ni, h.overflowEntry);
}

void Core::unlinkEntry(NetworkInterface& ni, const ListEntryPtr& e, bool autoUnlink)
{
  if (!e->linked)
    return;
  PortalTableEntry& pte = ni.pts[e->ptIndex];
  pte.listOf(e->list).erase(e->position);
  e->linked = false;
  ni.entries.erase(e->handle);
  (e->isMe ? mes_ : les_).erase(e->handle);
  if (!autoUnlink)
    return;
  e->autoUnlinked = true;
  ptl_event_t ev{};
  ev.type     = PTL_EVENT_AUTO_UNLINK;
  ev.user_ptr = e->userPtr;
  ev.pt_index = e->ptIndex;
  ev.ptl_list = e->list;
  postTargetEvent(ni, *e, ev);
  if (e->list == PTL_OVERFLOW_LIST && e->pendingHeaders == 0) {
    ev.type = PTL_EVENT_AUTO_FREE;
    postTargetEvent(ni, *e, ev);
  }
}

int Core::append(ptl_handle_ni_t h, ptl_pt_index_t pt, const EntrySpec& spec, ptl_list_t list, void* userPtr,
                 ptl_handle_any_t* handle)
{
  ProcessState& ps = current();
  if (ps.initCount == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = ownedNi(h, ps);
  unsigned mask        = spec.isMe ? PTL_ME_APPEND_OPTIONS_MASK : PTL_LE_APPEND_OPTIONS_MASK;
  if (ni == nullptr || handle == nullptr || spec.isMe != ni->matching() || pt >= ni->pts.size() ||
      !ni->pts[pt].allocated || list > PTL_OVERFLOW_LIST || (spec.options & ~mask) != 0 || !validCtOrNone(spec.ct, *ni))
    return PTL_ARG_INVALID;
  if ((spec.options & PTL_IOVEC) &&
      (spec.start == nullptr || spec.length > static_cast<ptl_size_t>(ni->limits.max_iovecs)))
    return PTL_ARG_INVALID;
  PortalTableEntry& pte = ni->pts[pt];
  if (ni->entries.size() >= static_cast<size_t>(ni->limits.max_entries))
    return PTL_NO_SPACE;
  if (pte.listOf(list).size() >= static_cast<size_t>(ni->limits.max_list_size))
    return PTL_LIST_TOO_LONG;

  auto e                        = std::make_shared<ListEntry>(entryFromSpec(spec));
  e->ni                         = h;
  e->ptIndex                    = pt;
  e->list                       = list;
  e->userPtr                    = userPtr;
  HandleTable<ListEntry>& table = spec.isMe ? mes_ : les_;
  ptl_handle_any_t eh           = table.insert(e);
  if (eh == PTL_INVALID_HANDLE)
    return PTL_NO_SPACE;
  e->handle = eh;
  *handle   = eh;

  if (list == PTL_PRIORITY_LIST) {
    // A new priority entry first takes the unexpected headers it matches, oldest first.
    bool useOnce = (spec.options & PTL_ME_USE_ONCE) != 0;
    for (auto it = pte.unexpected.begin(); it != pte.unexpected.end();) {
      if (!headerMatches(*e, *it, ni->matching(), ni->logical())) {
        ++it;
        continue;
      }
      auto next = std::next(it);
      consumeHeader(*ni, pte, it, *e);
      it = next;
      if (useOnce) {
        XBT_DEBUG("NI %#x PT %u: use-once entry %#x consumed by an unexpected header", h, pt, eh);
        table.erase(eh); // never linked: its handle is stale at once
        return PTL_OK;
      }
    }
  }
  auto& l     = pte.listOf(list);
  e->position = l.insert(l.end(), e);
  e->linked   = true;
  ni->entries.insert(eh);
  ptl_event_t ev{};
  ev.type     = PTL_EVENT_LINK;
  ev.user_ptr = userPtr;
  ev.pt_index = pt;
  ev.ptl_list = list;
  postTargetEvent(*ni, *e, ev);
  return PTL_OK;
}

int Core::unlink(ptl_handle_any_t h, bool isMe)
{
  ProcessState& ps = current();
  if (ps.initCount == 0)
    return PTL_NO_INIT;
  ListEntryPtr e = (isMe ? mes_ : les_).findShared(h);
  if (!e)
    return PTL_ARG_INVALID;
  NetworkInterface* ni = ownedNi(e->ni, ps);
  if (ni == nullptr)
    return PTL_ARG_INVALID;
  unlinkEntry(*ni, e, false);
  return PTL_OK;
}

int Core::search(ptl_handle_ni_t h, ptl_pt_index_t pt, const EntrySpec& spec, ptl_search_op_t op, void* userPtr)
{
  ProcessState& ps = current();
  if (ps.initCount == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = ownedNi(h, ps);
  if (ni == nullptr || spec.isMe != ni->matching() || pt >= ni->pts.size() || !ni->pts[pt].allocated ||
      op > PTL_SEARCH_DELETE || !validCtOrNone(spec.ct, *ni))
    return PTL_ARG_INVALID;
  PortalTableEntry& pte = ni->pts[pt];
  ListEntry probe       = entryFromSpec(spec);
  probe.ni              = h;
  probe.ptIndex         = pt;
  probe.userPtr         = userPtr;
  bool found            = false;
  for (auto it = pte.unexpected.begin(); it != pte.unexpected.end();) {
    if (!headerMatches(probe, *it, ni->matching(), ni->logical())) {
      ++it;
      continue;
    }
    found = true;
    if (op == PTL_SEARCH_ONLY) {
      postTargetEvent(*ni, probe, eventFromHeader(*it, PTL_EVENT_SEARCH, userPtr, pt));
      return PTL_OK;
    }
    auto next = std::next(it);
    consumeHeader(*ni, pte, it, probe);
    it = next;
    if (spec.options & PTL_ME_USE_ONCE)
      break;
  }
  if (!found) {
    ptl_event_t ev{};
    ev.type         = PTL_EVENT_SEARCH;
    ev.user_ptr     = userPtr;
    ev.pt_index     = pt;
    ev.ni_fail_type = PTL_NI_NO_MATCH;
    postTargetEvent(*ni, probe, ev);
  }
  return PTL_OK;
}

} // namespace bxisim::portals
