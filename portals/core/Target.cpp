/* The target side: a request arrives at an NI, is matched, deposits or fetches data, posts the target
 * events and decides what travels back. */
#include "portals/core/Atomics.hpp"
#include "portals/core/Core.hpp"
#include "portals/core/Matching.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <vector>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(portals_target, portals, "Portals target side: matching and delivery");

namespace bxisim::portals
{

namespace
{

ptl_event_kind_t eventKindOf(OpKind k)
{
  switch (k) {
  case OpKind::put:
    return PTL_EVENT_PUT;
  case OpKind::get:
    return PTL_EVENT_GET;
  case OpKind::atomic:
    return PTL_EVENT_ATOMIC;
  case OpKind::fetchAtomic:
  case OpKind::swap:
    return PTL_EVENT_FETCH_ATOMIC;
  }
  return PTL_EVENT_PUT;
}

unsigned permissionsFor(OpKind k)
{
  switch (k) {
  case OpKind::get:
    return PTL_ME_OP_GET;
  case OpKind::fetchAtomic:
  case OpKind::swap:
    return PTL_ME_OP_GET | PTL_ME_OP_PUT;
  default:
    return PTL_ME_OP_PUT;
  }
}

} // namespace

void Core::fail(Message& msg, ptl_ni_fail_t type)
{
  msg.failType = type;
  msg.mlength  = 0;
  if (msg.kind == OpKind::get || msg.kind == OpKind::fetchAtomic || msg.kind == OpKind::swap)
    msg.response = ResponseKind::reply;
  else
    msg.response = msg.ackReq == PTL_NO_ACK_REQ ? ResponseKind::none : ResponseKind::ack;
  XBT_DEBUG("message %llu dropped at %u/%u: ni_fail_type %d", (unsigned long long)msg.id, msg.target.phys.nid,
            msg.target.phys.pid, type);
  finishIfDone(msg);
}

ListEntryPtr Core::findMatch(NetworkInterface& ni, PortalTableEntry& pte, const Message& msg, const Initiator& who,
                             ptl_list_t* where)
{
  for (ptl_list_t l : {static_cast<ptl_list_t>(PTL_PRIORITY_LIST), static_cast<ptl_list_t>(PTL_OVERFLOW_LIST)}) {
    for (const ListEntryPtr& e : pte.listOf(l)) {
      if (!entryMatches(*e, ni.matching(), ni.logical(), who, msg.matchBits))
        continue;
      if (e->isMe && (e->options & PTL_ME_NO_TRUNCATE) && placeInEntry(*e, msg.remoteOffset, msg.length).truncated)
        continue; // an entry that would truncate does not match
      *where = l;
      return e;
    }
  }
  return nullptr;
}

void Core::dropRequest(Message& msg)
{
  NotifyBatch batch(*this);
  if (msg.delivered)
    return;
  msg.delivered = true;
  fail(msg, PTL_NI_UNDELIVERABLE);
}

void Core::deliverRequest(Message& msg)
{
  NotifyBatch batch(*this);
  if (msg.delivered)
    return;
  msg.delivered = true;

  if (msg.payloadBorrowed() && nis_.find(msg.sourceNi) == nullptr) {
    // The initiator finalized its NI (or its rank ended) before the NIC read the payload: its memory
    // cannot be read any more. The request is dropped; nobody is left to hear about it.
    XBT_VERB("message %llu dropped: its initiator %u/%u finalized its NI before the payload was read",
             (unsigned long long)msg.id, msg.source.phys.nid, msg.source.phys.pid);
    msg.failType = PTL_NI_UNDELIVERABLE;
    msg.mlength  = 0;
    msg.response = ResponseKind::none;
    finishIfDone(msg);
    return;
  }

  auto pit             = processByAddress_.find(physKey(msg.target));
  ProcessState* target = pit == processByAddress_.end() ? nullptr : process(pit->second);
  NetworkInterface* ni = nullptr;
  if (target != nullptr) {
    auto nit = target->nis.find(std::make_pair(msg.iface, niKindIndex(msg.niOptions)));
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
    auto r   = ni->rankOf.find(physKey(msg.source));
    who.rank = r == ni->rankOf.end() ? PTL_RANK_ANY : r->second;
  }
  if (msg.ptIndex >= ni->pts.size() || !ni->pts[msg.ptIndex].allocated) {
    ni->status[PTL_SR_DROP_COUNT]++;
    return fail(msg, PTL_NI_DROPPED);
  }
  PortalTableEntry& pte = ni->pts[msg.ptIndex];
  if (!pte.enabled) {
    ni->status[PTL_SR_DROP_COUNT]++;
    return fail(msg, PTL_NI_PT_DISABLED);
  }
  bool flowControl = (pte.options & PTL_PT_FLOWCTRL) != 0;
  if (flowControl) {
    const EventQueue* eq = eqs_.find(pte.eq);
    if (eq != nullptr && !eq->hasRoomFor(1)) { // resource exhaustion: the event queue is full
      disableForFlowControl(*ni, msg.ptIndex, msg);
      return fail(msg, PTL_NI_PT_DISABLED);
    }
  }

  ptl_list_t where = PTL_PRIORITY_LIST;
  ListEntryPtr e   = findMatch(*ni, pte, msg, who, &where);
  if (!e) {
    if (flowControl) { // resource exhaustion: nothing left to receive into
      disableForFlowControl(*ni, msg.ptIndex, msg);
      return fail(msg, PTL_NI_PT_DISABLED);
    }
    ni->status[PTL_SR_DROP_COUNT]++;
    bool silent = msg.kind != OpKind::get && msg.kind != OpKind::fetchAtomic && msg.kind != OpKind::swap &&
                  msg.ackReq == PTL_NO_ACK_REQ;
    if (silent && !ni->toldOfSilentDrop) {
      // What the specification prescribes, but a program waiting for that data then waits forever
      // without a word: an MPI library whose receive buffers are used up does this.
      ni->toldOfSilentDrop = true;
      XBT_WARN("a message from nid %u pid %u to nid %u pid %u, portal table entry %u, matched no list entry and was "
               "dropped (PTL_SR_DROP_COUNT); it asked for no acknowledgement, so its sender is never told. If a "
               "program then waits for it: give that entry flow control (PTL_PT_FLOWCTRL) or more list entries "
               "(OpenMPI's btl/portals4: --mca btl_portals4_recv_md_num). Said once per NI.",
               msg.source.phys.nid, msg.source.phys.pid, msg.target.phys.nid, msg.target.phys.pid, msg.ptIndex);
    }
    return fail(msg, PTL_NI_DROPPED);
  }
  unsigned need = permissionsFor(msg.kind);
  if ((e->options & need) != need) {
    ni->status[PTL_SR_OPERATION_VIOLATIONS]++;
    return fail(msg, PTL_NI_OP_VIOLATION);
  }
  if (e->uid != PTL_UID_ANY && e->uid != msg.uid) {
    ni->status[PTL_SR_PERMISSION_VIOLATIONS]++;
    return fail(msg, PTL_NI_PERM_VIOLATION);
  }
  bool recordHeader = where == PTL_OVERFLOW_LIST && !(e->options & PTL_ME_UNEXPECTED_HDR_DISABLE);
  if (recordHeader && ni->unexpectedHeaders >= ni->limits.max_unexpected_headers) {
    if (flowControl) {
      disableForFlowControl(*ni, msg.ptIndex, msg);
      return fail(msg, PTL_NI_PT_DISABLED);
    }
    ni->status[PTL_SR_DROP_COUNT]++;
    return fail(msg, PTL_NI_DROPPED);
  }

  // Data movement.
  Placement p     = placeInEntry(*e, msg.remoteOffset, msg.length);
  size_t elem     = datatypeSize(msg.atomicType);
  ptl_size_t mlen = p.mlength;
  if (msg.kind != OpKind::put && msg.kind != OpKind::get && elem > 0)
    mlen -= mlen % elem; // atomics work on whole elements
  const MemoryRegion& r = e->region;
  switch (msg.kind) {
  case OpKind::put:
    r.write(p.offset, msg.payload(), mlen);
    break;
  case OpKind::get:
    msg.replyData.resize(mlen);
    r.read(p.offset, msg.replyData.data(), mlen);
    break;
  case OpKind::atomic:
  case OpKind::fetchAtomic:
  case OpKind::swap: {
    std::vector<unsigned char> value(mlen);
    r.read(p.offset, value.data(), mlen);
    if (msg.kind != OpKind::atomic)
      msg.replyData.assign(value.begin(), value.end());
    applyAtomic(msg.atomicOp, msg.atomicType, value.data(), msg.payload(), msg.operand.data(), mlen / elem);
    r.write(p.offset, value.data(), mlen);
    break;
  }
  }
  msg.mlength      = mlen;
  msg.targetOffset = p.offset;
  msg.matchedList  = where;
  msg.failType     = PTL_NI_OK;
  if (e->isMe && (e->options & PTL_ME_MANAGE_LOCAL))
    e->localOffset += mlen;

  ptl_event_t ev{};
  ev.type             = eventKindOf(msg.kind);
  ev.start            = r.addressAt(p.offset);
  ev.user_ptr         = e->userPtr;
  ev.hdr_data         = msg.hdrData;
  ev.match_bits       = msg.matchBits;
  ev.rlength          = msg.length;
  ev.mlength          = mlen;
  ev.remote_offset    = msg.remoteOffset;
  ev.uid              = msg.uid;
  ev.pt_index         = msg.ptIndex;
  ev.ptl_list         = where;
  ev.ni_fail_type     = PTL_NI_OK;
  ev.atomic_operation = msg.atomicOp;
  ev.atomic_type      = msg.atomicType;
  if (ni->logical())
    ev.initiator.rank = who.rank;
  else
    ev.initiator = msg.source;

  if (recordHeader) {
    UnexpectedHeader h;
    h.type          = ev.type;
    h.initiator     = ev.initiator;
    h.physInitiator = msg.source;
    h.uid           = msg.uid;
    h.matchBits     = msg.matchBits;
    h.rlength       = msg.length;
    h.mlength       = mlen;
    h.remoteOffset  = msg.remoteOffset;
    h.hdrData       = msg.hdrData;
    h.start         = ev.start;
    h.atomicOp      = msg.atomicOp;
    h.atomicType    = msg.atomicType;
    h.overflowEntry = e;
    pte.unexpected.push_back(h);
    e->pendingHeaders++;
    ni->unexpectedHeaders++;
  }

  bool unlinkNow = (e->options & PTL_ME_USE_ONCE) != 0;
  if (!unlinkNow && e->isMe && (e->options & PTL_ME_MANAGE_LOCAL) && e->minFree > 0)
    unlinkNow = e->region.size() - std::min(e->localOffset, e->region.size()) < e->minFree;

  // What goes back.
  if (msg.kind == OpKind::get || msg.kind == OpKind::fetchAtomic || msg.kind == OpKind::swap)
    msg.response = ResponseKind::reply;
  else if (msg.ackReq != PTL_NO_ACK_REQ && !(e->options & PTL_ME_ACK_DISABLE))
    msg.response = ResponseKind::ack;
  else
    msg.response = ResponseKind::none;

  XBT_DEBUG("message %llu: %s matched on the %s list of %u/%u PT %u, %llu of %llu B at offset %llu",
            (unsigned long long)msg.id, toString(msg.kind), where == PTL_PRIORITY_LIST ? "priority" : "overflow",
            msg.target.phys.nid, msg.target.phys.pid, msg.ptIndex, (unsigned long long)mlen,
            (unsigned long long)msg.length, (unsigned long long)p.offset);

  // Events last: they may fire triggered operations that come back here.
  ptl_handle_ni_t niHandle = ni->handle;
  postTargetEvent(*ni, *e, ev);
  if (unlinkNow && e->linked) {
    if (NetworkInterface* still = nis_.find(niHandle))
      unlinkEntry(*still, e, true);
  }
  finishIfDone(msg);
}

void Core::disableForFlowControl(NetworkInterface& ni, ptl_pt_index_t index, const Message& msg)
{
  PortalTableEntry& pte = ni.pts[index];
  ni.status[PTL_SR_DROP_COUNT]++;
  if (!pte.enabled)
    return;
  pte.enabled               = false;
  pte.disabledByFlowControl = true;
  XBT_VERB("flow control: PT %u of %u/%u disabled by message %llu", index, ni.physId.phys.nid, ni.physId.phys.pid,
           (unsigned long long)msg.id);
  ptl_event_t ev{};
  ev.type         = PTL_EVENT_PT_DISABLED;
  ev.pt_index     = index;
  ev.match_bits   = msg.matchBits;
  ev.hdr_data     = msg.hdrData;
  ev.rlength      = msg.length;
  ev.uid          = msg.uid;
  ev.ni_fail_type = PTL_NI_PT_DISABLED;
  if (ni.logical()) {
    auto r            = ni.rankOf.find(physKey(msg.source));
    ev.initiator.rank = r == ni.rankOf.end() ? PTL_RANK_ANY : r->second;
  } else {
    ev.initiator = msg.source;
  }
  postEvent(pte.eq, ev);
}

} // namespace bxisim::portals
