/* The target side: a request arrives at an NI, is matched, deposits or fetches data, posts the target
 * events and decides what travels back. */
#include "portals/core/Atomics.hpp"
#include "portals/core/Core.hpp"
#include "portals/core/Matching.hpp"
#include "portals/core/NicMemoryAccess.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <vector>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_portals_target, bxisim_portals, "Portals target side: matching and delivery");

namespace bxisim::portals
{

namespace
{

ptl_event_kind_t event_kind_of(OpKind k)
{
  switch (k) {
  case OpKind::put:
    return PTL_EVENT_PUT;
  case OpKind::get:
    return PTL_EVENT_GET;
  case OpKind::atomic:
    return PTL_EVENT_ATOMIC;
  case OpKind::fetch_atomic:
  case OpKind::swap:
    return PTL_EVENT_FETCH_ATOMIC;
  }
  return PTL_EVENT_PUT;
}

unsigned permissions_for(OpKind k)
{
  switch (k) {
  case OpKind::get:
    return PTL_ME_OP_GET;
  case OpKind::fetch_atomic:
  case OpKind::swap:
    return PTL_ME_OP_GET | PTL_ME_OP_PUT;
  default:
    return PTL_ME_OP_PUT;
  }
}

} // namespace

void Core::fail(Message& msg, ptl_ni_fail_t type)
{
  msg.fail_type = type;
  msg.mlength   = 0;
  if (msg.kind == OpKind::get || msg.kind == OpKind::fetch_atomic || msg.kind == OpKind::swap)
    msg.response = ResponseKind::reply;
  else
    msg.response = msg.ack_req == PTL_NO_ACK_REQ ? ResponseKind::none : ResponseKind::ack;
  XBT_DEBUG("message %llu dropped at %u/%u: ni_fail_type %d", (unsigned long long)msg.id, msg.target.phys.nid,
            msg.target.phys.pid, type);
  finish_if_done(msg);
}

ListEntryPtr Core::find_match(NetworkInterface& ni, PortalTableEntry& pte, const Message& msg, const Initiator& who,
                              ptl_list_t* where)
{
  for (ptl_list_t l : {static_cast<ptl_list_t>(PTL_PRIORITY_LIST), static_cast<ptl_list_t>(PTL_OVERFLOW_LIST)}) {
    for (const ListEntryPtr& e : pte.list_of(l)) {
      if (!entry_matches(*e, ni.matching(), ni.logical(), who, msg.match_bits))
        continue;
      if (e->is_me && (e->options & PTL_ME_NO_TRUNCATE) && place_in_entry(*e, msg.remote_offset, msg.length).truncated)
        continue; // an entry that would truncate does not match
      *where = l;
      return e;
    }
  }
  return nullptr;
}

void Core::drop_request(Message& msg)
{
  NotifyBatch batch(*this);
  if (msg.delivered)
    return;
  msg.delivered = true;
  fail(msg, PTL_NI_UNDELIVERABLE);
}

void Core::deliver_request(Message& msg)
{
  NotifyBatch batch(*this);
  if (msg.delivered)
    return;
  msg.delivered = true;

  if (msg.payload_borrowed() && nis_.find(msg.source_ni) == nullptr) {
    // The initiator finalized its NI (or its rank ended) before the NIC read the payload: its memory
    // cannot be read any more. The request is dropped; nobody is left to hear about it.
    XBT_VERB("message %llu dropped: its initiator %u/%u finalized its NI before the payload was read",
             (unsigned long long)msg.id, msg.source.phys.nid, msg.source.phys.pid);
    msg.fail_type = PTL_NI_UNDELIVERABLE;
    msg.mlength   = 0;
    msg.response  = ResponseKind::none;
    finish_if_done(msg);
    return;
  }

  auto pit             = process_by_address_.find(phys_key(msg.target));
  ProcessState* target = pit == process_by_address_.end() ? nullptr : process(pit->second);
  NetworkInterface* ni = nullptr;
  if (target != nullptr) {
    auto nit = target->nis.find(std::make_pair(msg.iface, ni_kind_index(msg.ni_options)));
    if (nit != target->nis.end())
      ni = nis_.find(nit->second);
  }
  if (ni == nullptr)
    return fail(msg, PTL_NI_UNDELIVERABLE);
  // A request reaches the process: even without an event, what it can observe changed (PtlMESearch
  // finds an unexpected header, memory under an ME holds new data), so a blocked poll must look again.
  notify(target->ctx.id);

  Initiator who;
  who.phys = msg.source;
  who.uid  = msg.uid;
  if (ni->logical()) {
    auto r   = ni->rank_of.find(phys_key(msg.source));
    who.rank = r == ni->rank_of.end() ? PTL_RANK_ANY : r->second;
  }
  if (msg.pt_index >= ni->pts.size() || !ni->pts[msg.pt_index].allocated) {
    ni->status[PTL_SR_DROP_COUNT]++;
    return fail(msg, PTL_NI_DROPPED);
  }
  PortalTableEntry& pte = ni->pts[msg.pt_index];
  if (!pte.enabled) {
    ni->status[PTL_SR_DROP_COUNT]++;
    return fail(msg, PTL_NI_PT_DISABLED);
  }
  bool flow_control = (pte.options & PTL_PT_FLOWCTRL) != 0;
  if (flow_control) {
    const EventQueue* eq = eqs_.find(pte.eq);
    if (eq != nullptr && !eq->has_room_for(1)) { // resource exhaustion: the event queue is full
      disable_for_flow_control(*ni, msg.pt_index, msg);
      return fail(msg, PTL_NI_PT_DISABLED);
    }
  }

  ptl_list_t where = PTL_PRIORITY_LIST;
  ListEntryPtr e   = find_match(*ni, pte, msg, who, &where);
  if (!e) {
    if (flow_control) { // resource exhaustion: nothing left to receive into
      disable_for_flow_control(*ni, msg.pt_index, msg);
      return fail(msg, PTL_NI_PT_DISABLED);
    }
    ni->status[PTL_SR_DROP_COUNT]++;
    bool silent = msg.kind != OpKind::get && msg.kind != OpKind::fetch_atomic && msg.kind != OpKind::swap &&
                  msg.ack_req == PTL_NO_ACK_REQ;
    if (silent && !ni->told_of_silent_drop) {
      // What the specification prescribes, but a program waiting for that data then waits forever
      // without a word: an MPI library whose receive buffers are used up does this.
      ni->told_of_silent_drop = true;
      XBT_WARN("a message from nid %u pid %u to nid %u pid %u, portal table entry %u, matched no list entry and was "
               "dropped (PTL_SR_DROP_COUNT); it asked for no acknowledgement, so its sender is never told. If a "
               "program then waits for it: give that entry flow control (PTL_PT_FLOWCTRL) or more list entries "
               "(OpenMPI's btl/portals4: --mca btl_portals4_recv_md_num). Said once per NI.",
               msg.source.phys.nid, msg.source.phys.pid, msg.target.phys.nid, msg.target.phys.pid, msg.pt_index);
    }
    if (!silent && !acknowledged_drop_advice_.empty() && !told_of_acknowledged_drop_) {
      told_of_acknowledged_drop_ = true;
      XBT_WARN("a message from nid %u pid %u to nid %u pid %u, portal table entry %u, matched no list entry and was "
               "dropped (PTL_SR_DROP_COUNT, PTL_NI_DROPPED in its acknowledgement). %s Said once per run.",
               msg.source.phys.nid, msg.source.phys.pid, msg.target.phys.nid, msg.target.phys.pid, msg.pt_index,
               acknowledged_drop_advice_.c_str());
    }
    return fail(msg, PTL_NI_DROPPED);
  }
  unsigned need = permissions_for(msg.kind);
  if ((e->options & need) != need) {
    ni->status[PTL_SR_OPERATION_VIOLATIONS]++;
    return fail(msg, PTL_NI_OP_VIOLATION);
  }
  if (e->uid != PTL_UID_ANY && e->uid != msg.uid) {
    ni->status[PTL_SR_PERMISSION_VIOLATIONS]++;
    return fail(msg, PTL_NI_PERM_VIOLATION);
  }
  bool record_header = where == PTL_OVERFLOW_LIST && !(e->options & PTL_ME_UNEXPECTED_HDR_DISABLE);
  if (record_header && ni->unexpected_headers >= ni->limits.max_unexpected_headers) {
    if (flow_control) {
      disable_for_flow_control(*ni, msg.pt_index, msg);
      return fail(msg, PTL_NI_PT_DISABLED);
    }
    ni->status[PTL_SR_DROP_COUNT]++;
    return fail(msg, PTL_NI_DROPPED);
  }

  // Data movement.
  Placement p     = place_in_entry(*e, msg.remote_offset, msg.length);
  size_t elem     = datatype_size(msg.atomic_type);
  ptl_size_t mlen = p.mlength;
  if (msg.kind != OpKind::put && msg.kind != OpKind::get && elem > 0)
    mlen -= mlen % elem; // atomics work on whole elements
  const MemoryRegion& r = e->region;
  ProcessMemory entry{true, ni->owner, r.address_at(p.offset), r.scattered()};
  ProcessMemory payload{msg.payload_borrowed(), msg.source_process, msg.payload(), false};
  bool get = msg.kind == OpKind::get;
  NicMemoryAccess access{get                       ? "the data of a Get, read at its target"
                         : msg.kind == OpKind::put ? "the data of a Put, written at its target"
                                                   : "the operand of an atomic operation, applied at its target",
                         mlen, get ? ProcessMemory{} : entry, get ? entry : payload};
  NicMemoryAccessScope copying(access);
  switch (msg.kind) {
  case OpKind::put:
    r.write(p.offset, msg.payload(), mlen);
    break;
  case OpKind::get:
    msg.reply_data.resize(mlen);
    r.read(p.offset, msg.reply_data.data(), mlen);
    break;
  case OpKind::atomic:
  case OpKind::fetch_atomic:
  case OpKind::swap: {
    std::vector<unsigned char> value(mlen);
    r.read(p.offset, value.data(), mlen);
    if (msg.kind != OpKind::atomic)
      msg.reply_data.assign(value.begin(), value.end());
    apply_atomic(msg.atomic_op, msg.atomic_type, value.data(), msg.payload(), msg.operand.data(), mlen / elem);
    r.write(p.offset, value.data(), mlen);
    break;
  }
  }
  msg.mlength       = mlen;
  msg.target_offset = p.offset;
  msg.matched_list  = where;
  msg.fail_type     = PTL_NI_OK;
  if (e->is_me && (e->options & PTL_ME_MANAGE_LOCAL))
    e->local_offset += mlen;

  ptl_event_t ev{};
  ev.type             = event_kind_of(msg.kind);
  ev.start            = r.address_at(p.offset);
  ev.user_ptr         = e->user_ptr;
  ev.hdr_data         = msg.hdr_data;
  ev.match_bits       = msg.match_bits;
  ev.rlength          = msg.length;
  ev.mlength          = mlen;
  ev.remote_offset    = msg.remote_offset;
  ev.uid              = msg.uid;
  ev.pt_index         = msg.pt_index;
  ev.ptl_list         = where;
  ev.ni_fail_type     = PTL_NI_OK;
  ev.atomic_operation = msg.atomic_op;
  ev.atomic_type      = msg.atomic_type;
  if (ni->logical())
    ev.initiator.rank = who.rank;
  else
    ev.initiator = msg.source;

  if (record_header) {
    UnexpectedHeader h;
    h.type           = ev.type;
    h.initiator      = ev.initiator;
    h.phys_initiator = msg.source;
    h.uid            = msg.uid;
    h.match_bits     = msg.match_bits;
    h.rlength        = msg.length;
    h.mlength        = mlen;
    h.remote_offset  = msg.remote_offset;
    h.hdr_data       = msg.hdr_data;
    h.start          = ev.start;
    h.atomic_op      = msg.atomic_op;
    h.atomic_type    = msg.atomic_type;
    h.overflow_entry = e;
    pte.unexpected.push_back(h);
    e->pending_headers++;
    ni->unexpected_headers++;
  }

  bool unlink_now = (e->options & PTL_ME_USE_ONCE) != 0;
  if (!unlink_now && e->is_me && (e->options & PTL_ME_MANAGE_LOCAL) && e->min_free > 0)
    unlink_now = e->region.size() - std::min(e->local_offset, e->region.size()) < e->min_free;

  // What goes back.
  if (msg.kind == OpKind::get || msg.kind == OpKind::fetch_atomic || msg.kind == OpKind::swap)
    msg.response = ResponseKind::reply;
  else if (msg.ack_req != PTL_NO_ACK_REQ && !(e->options & PTL_ME_ACK_DISABLE))
    msg.response = ResponseKind::ack;
  else
    msg.response = ResponseKind::none;

  XBT_DEBUG("message %llu: %s matched on the %s list of %u/%u PT %u, %llu of %llu B at offset %llu",
            (unsigned long long)msg.id, op_kind_name(msg.kind), where == PTL_PRIORITY_LIST ? "priority" : "overflow",
            msg.target.phys.nid, msg.target.phys.pid, msg.pt_index, (unsigned long long)mlen,
            (unsigned long long)msg.length, (unsigned long long)p.offset);

  // Events last: they may fire triggered operations that come back here.
  ptl_handle_ni_t ni_handle = ni->handle;
  post_target_event(*ni, *e, ev);
  if (unlink_now && e->linked) {
    if (NetworkInterface* still = nis_.find(ni_handle))
      unlink_entry(*still, e, true);
  }
  finish_if_done(msg);
}

void Core::disable_for_flow_control(NetworkInterface& ni, ptl_pt_index_t index, const Message& msg)
{
  PortalTableEntry& pte = ni.pts[index];
  ni.status[PTL_SR_DROP_COUNT]++;
  if (!pte.enabled)
    return;
  pte.enabled                  = false;
  pte.disabled_by_flow_control = true;
  XBT_VERB("flow control: PT %u of %u/%u disabled by message %llu", index, ni.phys_id.phys.nid, ni.phys_id.phys.pid,
           (unsigned long long)msg.id);
  ptl_event_t ev{};
  ev.type         = PTL_EVENT_PT_DISABLED;
  ev.pt_index     = index;
  ev.match_bits   = msg.match_bits;
  ev.hdr_data     = msg.hdr_data;
  ev.rlength      = msg.length;
  ev.uid          = msg.uid;
  ev.ni_fail_type = PTL_NI_PT_DISABLED;
  if (ni.logical()) {
    auto r            = ni.rank_of.find(phys_key(msg.source));
    ev.initiator.rank = r == ni.rank_of.end() ? PTL_RANK_ANY : r->second;
  } else {
    ev.initiator = msg.source;
  }
  post_event(pte.eq, ev);
}

} // namespace bxisim::portals
