/* Priority and overflow lists: PtlMEAppend/PtlLEAppend (with the unexpected headers they consume),
 * unlink, and PtlMESearch/PtlLESearch. */
#include "portals/core/Core.hpp"
#include "portals/core/Matching.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <vector>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_portals_lists, bxisim_portals,
                                "Portals priority/overflow lists and unexpected headers");

namespace bxisim::portals
{

EntrySpec to_spec(const ptl_me_t& me)
{
  EntrySpec s;
  s.is_me       = true;
  s.start       = me.start;
  s.length      = me.length;
  s.ct          = me.ct_handle;
  s.uid         = me.uid;
  s.options     = me.options;
  s.match_id    = me.match_id;
  s.match_bits  = me.match_bits;
  s.ignore_bits = me.ignore_bits;
  s.min_free    = me.min_free;
  return s;
}

EntrySpec to_spec(const ptl_le_t& le)
{
  EntrySpec s;
  s.is_me   = false;
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
unsigned permissions_for(ptl_event_kind_t type)
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

/* A locally managed ME that counts the unexpected headers it takes at append against its room. */
bool reserves_room_for_unexpected(const ListEntry& e)
{
  return e.is_me && (e.options & PTL_ME_MANAGE_LOCAL) && (e.options & PTL_ME_LOCAL_INC_UH_RLENGTH);
}

bool header_matches(const ListEntry& e, const UnexpectedHeader& h, bool matching_ni, bool logical_ni)
{
  Initiator who;
  who.phys      = h.phys_initiator;
  who.rank      = logical_ni ? h.initiator.rank : PTL_RANK_ANY;
  who.uid       = h.uid;
  unsigned need = permissions_for(h.type);
  return entry_matches(e, matching_ni, logical_ni, who, h.match_bits) && (e.options & need) == need &&
         (e.uid == PTL_UID_ANY || e.uid == h.uid);
}

ptl_event_t event_from_header(const UnexpectedHeader& h, ptl_event_kind_t type, void* user_ptr, ptl_pt_index_t pt)
{
  ptl_event_t ev{};
  ev.type             = type;
  ev.start            = h.start;
  ev.user_ptr         = user_ptr;
  ev.hdr_data         = h.hdr_data;
  ev.match_bits       = h.match_bits;
  ev.rlength          = h.rlength;
  ev.mlength          = h.mlength;
  ev.remote_offset    = h.remote_offset;
  ev.initiator        = h.initiator;
  ev.uid              = h.uid;
  ev.pt_index         = pt;
  ev.ptl_list         = PTL_OVERFLOW_LIST;
  ev.ni_fail_type     = PTL_NI_OK;
  ev.atomic_operation = h.atomic_op;
  ev.atomic_type      = h.atomic_type;
  return ev;
}

ListEntry entry_from_spec(const EntrySpec& spec)
{
  ListEntry e;
  e.is_me       = spec.is_me;
  e.region      = MemoryRegion(spec.start, spec.length, (spec.options & PTL_IOVEC) != 0);
  e.ct          = spec.ct;
  e.uid         = spec.uid;
  e.options     = spec.options;
  e.match_id    = spec.match_id;
  e.match_bits  = spec.match_bits;
  e.ignore_bits = spec.ignore_bits;
  e.min_free    = spec.min_free;
  return e;
}

} // namespace

void Core::release_header_reference(NetworkInterface& ni, const ListEntryPtr& overflow_entry)
{
  if (!overflow_entry)
    return;
  overflow_entry->pending_headers--;
  if (overflow_entry->pending_headers == 0 && overflow_entry->auto_unlinked) {
    ptl_event_t ev{};
    ev.type     = PTL_EVENT_AUTO_FREE;
    ev.user_ptr = overflow_entry->user_ptr;
    ev.pt_index = overflow_entry->pt_index;
    ev.ptl_list = PTL_OVERFLOW_LIST;
    post_target_event(ni, *overflow_entry, ev);
  }
}

void Core::consume_header(NetworkInterface& ni, PortalTableEntry& pte, std::list<UnexpectedHeader>::iterator it,
                          ListEntry& consumer)
{
  UnexpectedHeader h = *it;
  pte.unexpected.erase(it);
  ni.unexpected_headers--;
  // The data stays in the overflow buffer, so a locally managed entry's offset moves only when the program
  // asks it to reserve room for it (PTL_ME_LOCAL_INC_UH_RLENGTH), as in the reference implementation.
  if (reserves_room_for_unexpected(consumer))
    consumer.local_offset += h.rlength;
  post_target_event(
      ni, consumer,
      event_from_header(h, static_cast<ptl_event_kind_t>(h.type + 1), consumer.user_ptr, consumer.pt_index));
  release_header_reference(ni, h.overflow_entry);
}

void Core::unlink_entry(NetworkInterface& ni, const ListEntryPtr& e, bool auto_unlink)
{
  if (e->pending_append) { // a triggered append that has not fired: it never will
    e->pending_append = false;
    ni.entries.erase(e->handle);
    (e->is_me ? mes_ : les_).erase(e->handle);
    return;
  }
  if (!e->linked)
    return;
  PortalTableEntry& pte = ni.pts[e->pt_index];
  pte.list_of(e->list).erase(e->position);
  e->linked = false;
  ni.entries.erase(e->handle);
  (e->is_me ? mes_ : les_).erase(e->handle);
  if (!auto_unlink)
    return;
  e->auto_unlinked = true;
  ptl_event_t ev{};
  ev.type     = PTL_EVENT_AUTO_UNLINK;
  ev.user_ptr = e->user_ptr;
  ev.pt_index = e->pt_index;
  ev.ptl_list = e->list;
  post_target_event(ni, *e, ev);
  if (e->list == PTL_OVERFLOW_LIST && e->pending_headers == 0) {
    ev.type = PTL_EVENT_AUTO_FREE;
    post_target_event(ni, *e, ev);
  }
}

int Core::check_append(const ProcessState& ps, ptl_handle_ni_t h, ptl_pt_index_t pt, const EntrySpec& spec,
                       ptl_list_t list, ptl_handle_any_t* handle, NetworkInterface** ni_out)
{
  NetworkInterface* ni = owned_ni(h, ps);
  unsigned mask        = spec.is_me ? PTL_ME_APPEND_OPTIONS_MASK : PTL_LE_APPEND_OPTIONS_MASK;
  if (ni == nullptr || handle == nullptr || spec.is_me != ni->matching() || pt >= ni->pts.size() ||
      !ni->pts[pt].allocated || list > PTL_OVERFLOW_LIST || (spec.options & ~mask) != 0 ||
      !valid_ct_or_none(spec.ct, *ni))
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
  if (ni->pts[pt].list_of(list).size() >= static_cast<size_t>(ni->limits.max_list_size))
    return PTL_LIST_TOO_LONG;
  *ni_out = ni;
  return PTL_OK;
}

ListEntryPtr Core::create_entry(NetworkInterface& ni, ptl_pt_index_t pt, const EntrySpec& spec, ptl_list_t list,
                                void* user_ptr)
{
  auto e              = std::make_shared<ListEntry>(entry_from_spec(spec));
  e->ni               = ni.handle;
  e->pt_index         = pt;
  e->list             = list;
  e->user_ptr         = user_ptr;
  ptl_handle_any_t eh = (spec.is_me ? mes_ : les_).insert(e);
  if (eh == PTL_INVALID_HANDLE)
    return nullptr;
  e->handle = eh;
  ni.entries.insert(eh);
  return e;
}

void Core::link_entry(NetworkInterface& ni, const ListEntryPtr& e)
{
  e->pending_append     = false;
  PortalTableEntry& pte = ni.pts[e->pt_index];
  if (e->list == PTL_PRIORITY_LIST) {
    // A new priority entry first takes the unexpected headers it matches, oldest first. A use-once entry
    // (or one reserving room for them, PTL_ME_LOCAL_INC_UH_RLENGTH, left with less than min_free) that
    // takes one is consumed at once: it is never linked, its handle is stale, and PTL_EVENT_AUTO_UNLINK
    // follows the overflow event, as in the reference implementation.
    bool use_once = (e->options & PTL_ME_USE_ONCE) != 0;
    for (auto it = pte.unexpected.begin(); it != pte.unexpected.end();) {
      if (!header_matches(*e, *it, ni.matching(), ni.logical())) {
        ++it;
        continue;
      }
      auto next = std::next(it);
      consume_header(ni, pte, it, *e);
      it             = next;
      bool exhausted = reserves_room_for_unexpected(*e) &&
                       e->region.size() - std::min(e->local_offset, e->region.size()) < e->min_free;
      if (use_once || exhausted) {
        XBT_DEBUG("NI %#x PT %u: entry %#x consumed by an unexpected header at append", ni.handle, e->pt_index,
                  e->handle);
        ni.entries.erase(e->handle);
        (e->is_me ? mes_ : les_).erase(e->handle);
        e->auto_unlinked = true;
        ptl_event_t ev{};
        ev.type     = PTL_EVENT_AUTO_UNLINK;
        ev.user_ptr = e->user_ptr;
        ev.pt_index = e->pt_index;
        ev.ptl_list = e->list;
        post_target_event(ni, *e, ev);
        return;
      }
    }
  }
  auto& l     = pte.list_of(e->list);
  e->position = l.insert(l.end(), e);
  e->linked   = true;
  ptl_event_t ev{};
  ev.type     = PTL_EVENT_LINK;
  ev.user_ptr = e->user_ptr;
  ev.pt_index = e->pt_index;
  ev.ptl_list = e->list;
  post_target_event(ni, *e, ev);
}

int Core::append(ptl_handle_ni_t h, ptl_pt_index_t pt, const EntrySpec& spec, ptl_list_t list, void* user_ptr,
                 ptl_handle_any_t* handle)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = nullptr;
  int rc               = check_append(ps, h, pt, spec, list, handle, &ni);
  if (rc != PTL_OK)
    return rc;
  ListEntryPtr e = create_entry(*ni, pt, spec, list, user_ptr);
  if (!e)
    return PTL_NO_SPACE;
  *handle = e->handle;
  CtDeferral defer(*this); // counters change after the list is consistent again
  link_entry(*ni, e);
  return PTL_OK;
}

int Core::triggered_append(ptl_handle_ni_t h, ptl_pt_index_t pt, const EntrySpec& spec, ptl_list_t list, void* user_ptr,
                           ptl_handle_any_t* handle, ptl_handle_ct_t trig_ct, ptl_size_t threshold)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = nullptr;
  int rc               = check_append(ps, h, pt, spec, list, handle, &ni);
  if (rc != PTL_OK)
    return rc;
  CountingEvent* ct = owned(cts_, trig_ct, ps);
  if (ct == nullptr || ct->ni() != h)
    return PTL_ARG_INVALID;
  if (ni->triggered_ops >= ni->limits.max_triggered_ops)
    return PTL_NO_SPACE;
  ListEntryPtr e = create_entry(*ni, pt, spec, list, user_ptr);
  if (!e)
    return PTL_NO_SPACE;
  e->pending_append   = true;
  *handle             = e->handle;
  ptl_handle_any_t eh = e->handle;
  bool is_me          = spec.is_me;
  post_triggered(ps, *ni, trig_ct, threshold, [this, eh, is_me]() {
    ListEntryPtr entry = (is_me ? mes_ : les_).find_shared(eh);
    if (!entry || !entry->pending_append)
      return; // unlinked (or its NI finalized) before the trigger
    NetworkInterface* owner = nis_.find(entry->ni);
    if (owner == nullptr)
      return;
    if (!owner->pts[entry->pt_index].allocated) {
      XBT_WARN("triggered append of entry %#x: PT %u of NI %#x was freed before the trigger; the entry is dropped", eh,
               entry->pt_index, entry->ni);
      unlink_entry(*owner, entry, false);
      return;
    }
    link_entry(*owner, entry);
  });
  return PTL_OK;
}

int Core::unlink(ptl_handle_any_t h, bool is_me)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  ListEntryPtr e = (is_me ? mes_ : les_).find_shared(h);
  if (!e)
    return PTL_ARG_INVALID;
  NetworkInterface* ni = owned_ni(e->ni, ps);
  if (ni == nullptr)
    return PTL_ARG_INVALID;
  unlink_entry(*ni, e, false);
  return PTL_OK;
}

int Core::triggered_unlink(ptl_handle_any_t h, bool is_me, ptl_handle_ct_t trig_ct, ptl_size_t threshold)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  ListEntryPtr e = (is_me ? mes_ : les_).find_shared(h);
  if (!e)
    return PTL_ARG_INVALID;
  NetworkInterface* ni = owned_ni(e->ni, ps);
  CountingEvent* ct    = owned(cts_, trig_ct, ps);
  if (ni == nullptr || ct == nullptr || ct->ni() != ni->handle)
    return PTL_ARG_INVALID;
  if (ni->triggered_ops >= ni->limits.max_triggered_ops)
    return PTL_NO_SPACE;
  post_triggered(ps, *ni, trig_ct, threshold, [this, h, is_me]() {
    ListEntryPtr entry = (is_me ? mes_ : les_).find_shared(h);
    if (!entry)
      return; // already unlinked
    if (NetworkInterface* owner = nis_.find(entry->ni))
      unlink_entry(*owner, entry, false);
  });
  return PTL_OK;
}

int Core::search(ptl_handle_ni_t h, ptl_pt_index_t pt, const EntrySpec& spec, ptl_search_op_t op, void* user_ptr)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr || spec.is_me != ni->matching() || pt >= ni->pts.size() || !ni->pts[pt].allocated ||
      op > PTL_SEARCH_DELETE || !valid_ct_or_none(spec.ct, *ni))
    return PTL_ARG_INVALID;
  PortalTableEntry& pte   = ni->pts[pt];
  uint64_t changes_before = ps.changes;
  ListEntry probe         = entry_from_spec(spec);
  probe.ni                = h;
  probe.pt_index          = pt;
  probe.user_ptr          = user_ptr;
  bool use_once           = (spec.options & PTL_ME_USE_ONCE) != 0;
  // Counting search (Portals 4.3, as the reference implementation does it): with PTL_ME_EVENT_CT_OVERFLOW,
  // the search entry's CT counts each match in success (bytes with PTL_ME_EVENT_CT_BYTES), and failure is
  // incremented once when the search is over: always for a persistent entry, only without a match for
  // a use-once one. So PtlCTWait(ct, ...) returns when the search is complete.
  CountingEvent* ct = (spec.options & PTL_ME_EVENT_CT_OVERFLOW) ? cts_.find(spec.ct) : nullptr;
  CtDeferral defer(*this);
  std::vector<std::list<UnexpectedHeader>::iterator> matches;
  for (auto it = pte.unexpected.begin(); it != pte.unexpected.end(); ++it) {
    if (!header_matches(probe, *it, ni->matching(), ni->logical()))
      continue;
    matches.push_back(it);
    if (use_once)
      break;
  }
  bool events = op == PTL_SEARCH_DELETE || !(spec.options & PTL_ME_EVENT_COMM_DISABLE);
  for (auto it : matches) {
    if (op == PTL_SEARCH_ONLY) {
      // One PTL_EVENT_SEARCH per matching header; the headers stay.
      if (events)
        post_event(pte.eq, event_from_header(*it, PTL_EVENT_SEARCH, user_ptr, pt));
      if (ct != nullptr) {
        ct->add({(spec.options & PTL_ME_EVENT_CT_BYTES) ? it->mlength : 1, 0});
        ct_changed(spec.ct);
      }
    } else {
      consume_header(*ni, pte, it, probe); // *_OVERFLOW event, counted on the entry's CT like an append's
    }
  }
  if (matches.empty() && events) {
    ptl_event_t ev{};
    ev.type         = PTL_EVENT_SEARCH;
    ev.user_ptr     = user_ptr;
    ev.pt_index     = pt;
    ev.ptl_list     = PTL_OVERFLOW_LIST;
    ev.ni_fail_type = PTL_NI_NO_MATCH;
    post_event(pte.eq, ev);
  }
  if (ct != nullptr && (!use_once || matches.empty())) {
    ct->add({0, 1});
    ct_changed(spec.ct);
  }
  if (matches.empty()) // a search that found nothing is a poll that found nothing: no change (poll_found_nothing)
    ps.changes = changes_before;
  XBT_DEBUG("NI %#x PT %u: search (%s) found %zu unexpected headers", h, pt, op == PTL_SEARCH_ONLY ? "only" : "delete",
            matches.size());
  return PTL_OK;
}

} // namespace bxisim::portals
