/* Priority and overflow lists: PtlMEAppend/PtlLEAppend (with the unexpected headers they consume),
 * unlink, and PtlMESearch/PtlLESearch. */
#include "portals/core/Core.hpp"
#include "portals/core/Matching.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <vector>

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
  if (e->pendingAppend) { // a triggered append that has not fired: it never will
    e->pendingAppend = false;
    ni.entries.erase(e->handle);
    (e->isMe ? mes_ : les_).erase(e->handle);
    return;
  }
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

int Core::checkAppend(const ProcessState& ps, ptl_handle_ni_t h, ptl_pt_index_t pt, const EntrySpec& spec,
                      ptl_list_t list, ptl_handle_any_t* handle, NetworkInterface** niOut)
{
  NetworkInterface* ni = ownedNi(h, ps);
  unsigned mask        = spec.isMe ? PTL_ME_APPEND_OPTIONS_MASK : PTL_LE_APPEND_OPTIONS_MASK;
  if (ni == nullptr || handle == nullptr || spec.isMe != ni->matching() || pt >= ni->pts.size() ||
      !ni->pts[pt].allocated || list > PTL_OVERFLOW_LIST || (spec.options & ~mask) != 0 || !validCtOrNone(spec.ct, *ni))
    return PTL_ARG_INVALID;
  if (spec.options & PTL_IOVEC) {
    if (spec.start == nullptr || spec.length > static_cast<ptl_size_t>(ni->limits.max_iovecs))
      return PTL_ARG_INVALID;
    const auto* iov = static_cast<const ptl_iovec_t*>(spec.start);
    for (ptl_size_t i = 0; i < spec.length; ++i)
      if (iov[i].iov_base == nullptr && iov[i].iov_len > 0)
        return PTL_ARG_INVALID; // memory that does not exist
  } else if (spec.start == nullptr && spec.length > 0 && spec.length != PTL_SIZE_MAX) {
    // NULL with PTL_SIZE_MAX is the whole address space (OpenMPI binds its send MD so); otherwise
    // NULL with a length is memory that does not exist
    return PTL_ARG_INVALID;
  }
  if (ni->entries.size() >= static_cast<size_t>(ni->limits.max_entries))
    return PTL_NO_SPACE;
  if (ni->pts[pt].listOf(list).size() >= static_cast<size_t>(ni->limits.max_list_size))
    return PTL_LIST_TOO_LONG;
  *niOut = ni;
  return PTL_OK;
}

ListEntryPtr Core::createEntry(NetworkInterface& ni, ptl_pt_index_t pt, const EntrySpec& spec, ptl_list_t list,
                               void* userPtr)
{
  auto e              = std::make_shared<ListEntry>(entryFromSpec(spec));
  e->ni               = ni.handle;
  e->ptIndex          = pt;
  e->list             = list;
  e->userPtr          = userPtr;
  ptl_handle_any_t eh = (spec.isMe ? mes_ : les_).insert(e);
  if (eh == PTL_INVALID_HANDLE)
    return nullptr;
  e->handle = eh;
  ni.entries.insert(eh);
  return e;
}

void Core::linkEntry(NetworkInterface& ni, const ListEntryPtr& e)
{
  e->pendingAppend      = false;
  PortalTableEntry& pte = ni.pts[e->ptIndex];
  if (e->list == PTL_PRIORITY_LIST) {
    // A new priority entry first takes the unexpected headers it matches, oldest first. A use-once entry
    // (or a locally managed one left with less than min_free) that takes one is consumed at once: it
    // is never linked, its handle is stale, and PTL_EVENT_AUTO_UNLINK follows the overflow event, as
    // in the reference implementation.
    bool useOnce = (e->options & PTL_ME_USE_ONCE) != 0;
    for (auto it = pte.unexpected.begin(); it != pte.unexpected.end();) {
      if (!headerMatches(*e, *it, ni.matching(), ni.logical())) {
        ++it;
        continue;
      }
      auto next = std::next(it);
      consumeHeader(ni, pte, it, *e);
      it             = next;
      bool exhausted = e->isMe && (e->options & PTL_ME_MANAGE_LOCAL) && e->minFree > 0 &&
                       e->region.size() - std::min(e->localOffset, e->region.size()) < e->minFree;
      if (useOnce || exhausted) {
        XBT_DEBUG("NI %#x PT %u: entry %#x consumed by an unexpected header at append", ni.handle, e->ptIndex,
                  e->handle);
        ni.entries.erase(e->handle);
        (e->isMe ? mes_ : les_).erase(e->handle);
        e->autoUnlinked = true;
        ptl_event_t ev{};
        ev.type     = PTL_EVENT_AUTO_UNLINK;
        ev.user_ptr = e->userPtr;
        ev.pt_index = e->ptIndex;
        ev.ptl_list = e->list;
        postTargetEvent(ni, *e, ev);
        return;
      }
    }
  }
  auto& l     = pte.listOf(e->list);
  e->position = l.insert(l.end(), e);
  e->linked   = true;
  ptl_event_t ev{};
  ev.type     = PTL_EVENT_LINK;
  ev.user_ptr = e->userPtr;
  ev.pt_index = e->ptIndex;
  ev.ptl_list = e->list;
  postTargetEvent(ni, *e, ev);
}

int Core::append(ptl_handle_ni_t h, ptl_pt_index_t pt, const EntrySpec& spec, ptl_list_t list, void* userPtr,
                 ptl_handle_any_t* handle)
{
  ProcessState& ps = current();
  if (ps.initCount == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = nullptr;
  int rc               = checkAppend(ps, h, pt, spec, list, handle, &ni);
  if (rc != PTL_OK)
    return rc;
  ListEntryPtr e = createEntry(*ni, pt, spec, list, userPtr);
  if (!e)
    return PTL_NO_SPACE;
  *handle = e->handle;
  CtDeferral defer(*this); // counters change after the list is consistent again
  linkEntry(*ni, e);
  return PTL_OK;
}

int Core::triggeredAppend(ptl_handle_ni_t h, ptl_pt_index_t pt, const EntrySpec& spec, ptl_list_t list, void* userPtr,
                          ptl_handle_any_t* handle, ptl_handle_ct_t trigCt, ptl_size_t threshold)
{
  ProcessState& ps = current();
  if (ps.initCount == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = nullptr;
  int rc               = checkAppend(ps, h, pt, spec, list, handle, &ni);
  if (rc != PTL_OK)
    return rc;
  CountingEvent* ct = owned(cts_, trigCt, ps);
  if (ct == nullptr || ct->ni() != h)
    return PTL_ARG_INVALID;
  if (ni->triggeredOps >= ni->limits.max_triggered_ops)
    return PTL_NO_SPACE;
  ListEntryPtr e = createEntry(*ni, pt, spec, list, userPtr);
  if (!e)
    return PTL_NO_SPACE;
  e->pendingAppend = true;
  *handle          = e->handle;
  ni->triggeredOps++;
  ptl_handle_any_t eh = e->handle;
  bool isMe           = spec.isMe;
  ct->addTriggered(threshold, [this, eh, isMe]() {
    ListEntryPtr entry = (isMe ? mes_ : les_).findShared(eh);
    if (!entry || !entry->pendingAppend)
      return; // unlinked (or its NI finalized) before the trigger
    NetworkInterface* owner = nis_.find(entry->ni);
    if (owner == nullptr)
      return;
    if (!owner->pts[entry->ptIndex].allocated) {
      XBT_WARN("triggered append of entry %#x: PT %u of NI %#x was freed before the trigger; the entry is dropped", eh,
               entry->ptIndex, entry->ni);
      unlinkEntry(*owner, entry, false);
      return;
    }
    linkEntry(*owner, entry);
  });
  ctChanged(trigCt); // fires at once if the threshold is already reached
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

int Core::triggeredUnlink(ptl_handle_any_t h, bool isMe, ptl_handle_ct_t trigCt, ptl_size_t threshold)
{
  ProcessState& ps = current();
  if (ps.initCount == 0)
    return PTL_NO_INIT;
  ListEntryPtr e = (isMe ? mes_ : les_).findShared(h);
  if (!e)
    return PTL_ARG_INVALID;
  NetworkInterface* ni = ownedNi(e->ni, ps);
  CountingEvent* ct    = owned(cts_, trigCt, ps);
  if (ni == nullptr || ct == nullptr || ct->ni() != ni->handle)
    return PTL_ARG_INVALID;
  if (ni->triggeredOps >= ni->limits.max_triggered_ops)
    return PTL_NO_SPACE;
  ni->triggeredOps++;
  ct->addTriggered(threshold, [this, h, isMe]() {
    ListEntryPtr entry = (isMe ? mes_ : les_).findShared(h);
    if (!entry)
      return; // already unlinked
    if (NetworkInterface* owner = nis_.find(entry->ni))
      unlinkEntry(*owner, entry, false);
  });
  ctChanged(trigCt);
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
  PortalTableEntry& pte  = ni->pts[pt];
  uint64_t changesBefore = ps.changes;
  ListEntry probe        = entryFromSpec(spec);
  probe.ni               = h;
  probe.ptIndex          = pt;
  probe.userPtr          = userPtr;
  bool useOnce           = (spec.options & PTL_ME_USE_ONCE) != 0;
  // Counting search (Portals 4.3, as the reference implementation does it): with PTL_ME_EVENT_CT_OVERFLOW,
  // the search entry's CT counts each match in success (bytes with PTL_ME_EVENT_CT_BYTES), and failure is
  // incremented once when the search is over: always for a persistent entry, only without a match for
  // a use-once one. So PtlCTWait(ct, ...) returns when the search is complete.
  CountingEvent* ct = (spec.options & PTL_ME_EVENT_CT_OVERFLOW) ? cts_.find(spec.ct) : nullptr;
  CtDeferral defer(*this);
  std::vector<std::list<UnexpectedHeader>::iterator> matches;
  for (auto it = pte.unexpected.begin(); it != pte.unexpected.end(); ++it) {
    if (!headerMatches(probe, *it, ni->matching(), ni->logical()))
      continue;
    matches.push_back(it);
    if (useOnce)
      break;
  }
  bool events = op == PTL_SEARCH_DELETE || !(spec.options & PTL_ME_EVENT_COMM_DISABLE);
  for (auto it : matches) {
    if (op == PTL_SEARCH_ONLY) {
      // One PTL_EVENT_SEARCH per matching header; the headers stay.
      if (events)
        postEvent(pte.eq, eventFromHeader(*it, PTL_EVENT_SEARCH, userPtr, pt));
      if (ct != nullptr) {
        ct->add({(spec.options & PTL_ME_EVENT_CT_BYTES) ? it->mlength : 1, 0});
        ctChanged(spec.ct);
      }
    } else {
      consumeHeader(*ni, pte, it, probe); // *_OVERFLOW event, counted on the entry's CT like an append's
    }
  }
  if (matches.empty() && events) {
    ptl_event_t ev{};
    ev.type         = PTL_EVENT_SEARCH;
    ev.user_ptr     = userPtr;
    ev.pt_index     = pt;
    ev.ptl_list     = PTL_OVERFLOW_LIST;
    ev.ni_fail_type = PTL_NI_NO_MATCH;
    postEvent(pte.eq, ev);
  }
  if (ct != nullptr && (!useOnce || matches.empty())) {
    ct->add({0, 1});
    ctChanged(spec.ct);
  }
  if (matches.empty()) // a search that found nothing is a poll that found nothing: no change (pollFoundNothing)
    ps.changes = changesBefore;
  XBT_DEBUG("NI %#x PT %u: search (%s) found %zu unexpected headers", h, pt, op == PTL_SEARCH_ONLY ? "only" : "delete",
            matches.size());
  return PTL_OK;
}

} // namespace bxisim::portals
