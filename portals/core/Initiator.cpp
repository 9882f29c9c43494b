/* The initiator side: checking and issuing data movement operations, and completing them when the NIC
 * model reports the SEND and the response. */
#include "portals/core/Atomics.hpp"
#include "portals/core/Core.hpp"

#include <xbt/log.h>

#include <cstring>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(portals_initiator, portals, "Portals initiator side");

namespace bxisim::portals
{

const char* toString(OpKind kind)
{
  switch (kind) {
  case OpKind::put:
    return "Put";
  case OpKind::get:
    return "Get";
  case OpKind::atomic:
    return "Atomic";
  case OpKind::fetchAtomic:
    return "FetchAtomic";
  case OpKind::swap:
    return "Swap";
  }
  return "?";
}

namespace
{
bool sendsPayload(OpKind k)
{
  return k != OpKind::get;
}
bool receivesReply(OpKind k)
{
  return k == OpKind::get || k == OpKind::fetchAtomic || k == OpKind::swap;
}
} // namespace

int Core::validate(const OperationRequest& req, const ProcessState& ps, ptl_handle_ni_t* niOut)
{
  ptl_handle_ni_t niHandle = PTL_INVALID_HANDLE;
  for (int i = 0; i < 2; ++i) {
    bool needed = i == 0 ? sendsPayload(req.kind) : receivesReply(req.kind);
    if (!needed)
      continue;
    ptl_handle_md_t h    = i == 0 ? req.putMd : req.getMd;
    ptl_size_t offset    = i == 0 ? req.localPutOffset : req.localGetOffset;
    MemoryDescriptor* md = mds_.find(h);
    if (md == nullptr || md->owner != ps.ctx.id)
      return PTL_ARG_INVALID;
    if (niHandle != PTL_INVALID_HANDLE && md->ni != niHandle)
      return PTL_ARG_INVALID; // the two MDs of a FetchAtomic/Swap belong to different NIs
    niHandle = md->ni;
    if (offset > md->region.size() || req.length > md->region.size() - offset)
      return PTL_ARG_INVALID;
  }
  NetworkInterface* ni = nis_.find(niHandle);
  if (ni == nullptr)
    return PTL_ARG_INVALID;
  if (req.length > ni->limits.max_msg_size || req.ackReq > PTL_OC_ACK_REQ)
    return PTL_ARG_INVALID;
  if (req.ptIndex > static_cast<ptl_pt_index_t>(ni->limits.max_pt_index))
    return PTL_ARG_INVALID; // no NI of this kind has such a portal table entry
  if (sendsPayload(req.kind)) {
    // A volatile MD's buffer may change as soon as the call returns: bxisim copies the payload at once,
    // up to max_volatile_size; larger operations are refused, as the reference implementation does.
    const MemoryDescriptor* md = mds_.find(req.putMd);
    if ((md->options & PTL_MD_VOLATILE) && req.length > ni->limits.max_volatile_size)
      return PTL_ARG_INVALID;
  }
  if (req.kind == OpKind::atomic || req.kind == OpKind::fetchAtomic || req.kind == OpKind::swap) {
    size_t elem = datatypeSize(req.atomicType);
    if (!isValidCombination(req.atomicOp, req.atomicType) || elem == 0 || req.length % elem != 0)
      return PTL_ARG_INVALID;
    bool swapOp = isSwapOperation(req.atomicOp);
    if ((req.kind == OpKind::swap) != swapOp)
      return PTL_ARG_INVALID; // swaps only through PtlSwap, the others never
    ptl_size_t max = req.kind == OpKind::atomic ? ni->limits.max_atomic_size : ni->limits.max_fetch_atomic_size;
    if (req.length > max)
      return PTL_ARG_INVALID;
    if (isSingleElementOperation(req.atomicOp) && req.length != elem)
      return PTL_ARG_INVALID;
    if (req.kind == OpKind::swap && req.atomicOp != PTL_SWAP && req.operand == nullptr)
      return PTL_ARG_INVALID;
  }
  if (ni->logical()) {
    if (!ni->mapSet || req.target.rank >= ni->map.size())
      return PTL_ARG_INVALID;
  }
  *niOut = niHandle;
  return PTL_OK;
}

int Core::start(const OperationRequest& req, ProcessState& ps, bool triggered)
{
  ptl_handle_ni_t niHandle;
  int rc = validate(req, ps, &niHandle);
  if (rc != PTL_OK)
    return rc;
  NetworkInterface* ni = nis_.find(niHandle);
  if (!triggered)
    ps.changes++; // the process is at work: its polling loop must go round again before it blocks
  if (ps.ctx.nic == nullptr) {
    XBT_ERROR("Ptl%s by process %u: no NIC model is installed to carry it out (the runtime must provide one)",
              toString(req.kind), ps.ctx.id);
    return PTL_FAIL;
  }
  auto msg           = std::make_unique<Message>();
  msg->id            = nextMessageId_++;
  msg->triggered     = triggered;
  msg->kind          = req.kind;
  msg->iface         = ni->iface;
  msg->niOptions     = ni->options;
  msg->source        = ni->physId;
  msg->target        = ni->logical() ? ni->map[req.target.rank] : req.target;
  msg->sourceProcess = ps.ctx.id;
  msg->uid           = ni->uid;
  msg->ptIndex       = req.ptIndex;
  msg->matchBits     = ni->matching() ? req.matchBits : 0;
  msg->remoteOffset  = req.remoteOffset;
  msg->hdrData       = req.hdrData;
  msg->ackReq        = sendsPayload(req.kind) && !receivesReply(req.kind) ? req.ackReq : PTL_NO_ACK_REQ;
  msg->atomicOp      = req.atomicOp;
  msg->atomicType    = req.atomicType;
  msg->length        = req.length;
  msg->userPtr       = req.userPtr;
  msg->sourceNi      = niHandle;
  if (req.kind == OpKind::swap && req.operand != nullptr)
    std::memcpy(msg->operand.data(), req.operand, datatypeSize(req.atomicType));
  if (sendsPayload(req.kind)) {
    MemoryDescriptor* md = mds_.find(req.putMd);
    msg->putMd           = req.putMd;
    msg->localPutOffset  = req.localPutOffset;
    md->inFlight++;
    unsigned char* p = md->region.contiguous(req.localPutOffset, req.length);
    if (p != nullptr) {
      msg->borrowPayload(p);
      if (md->options & PTL_MD_VOLATILE)
        msg->ownPayload(); // the program may modify the buffer as soon as the call returns
    } else {               // an iovec MD whose range spans several elements: gather it now
      std::vector<unsigned char> tmp(req.length);
      md->region.read(req.localPutOffset, tmp.data(), req.length);
      msg->borrowPayload(tmp.data());
      msg->ownPayload();
    }
  }
  if (receivesReply(req.kind)) {
    msg->getMd          = req.getMd;
    msg->localGetOffset = req.localGetOffset;
    mds_.find(req.getMd)->inFlight++;
  }
  XBT_DEBUG("message %llu: %s of %llu B from %u/%u to %u/%u, PT %u, bits %#llx", (unsigned long long)msg->id,
            toString(msg->kind), (unsigned long long)msg->length, msg->source.phys.nid, msg->source.phys.pid,
            msg->target.phys.nid, msg->target.phys.pid, msg->ptIndex, (unsigned long long)msg->matchBits);
  msg->tracked         = true;
  unfinished_[msg->id] = msg.get();
  ps.ctx.nic->submit(std::move(msg));
  return PTL_OK;
}

int Core::issue(const OperationRequest& req)
{
  ProcessState& ps = current();
  if (ps.initCount == 0)
    return PTL_NO_INIT;
  return start(req, ps);
}

int Core::issueTriggered(const OperationRequest& req, ptl_handle_ct_t trigCt, ptl_size_t threshold)
{
  ProcessState& ps = current();
  if (ps.initCount == 0)
    return PTL_NO_INIT;
  ptl_handle_ni_t niHandle;
  int rc = validate(req, ps, &niHandle);
  if (rc != PTL_OK)
    return rc;
  CountingEvent* ct = owned(cts_, trigCt, ps);
  if (ct == nullptr || ct->ni() != niHandle)
    return PTL_ARG_INVALID;
  NetworkInterface* ni = nis_.find(niHandle);
  if (ni->triggeredOps >= ni->limits.max_triggered_ops)
    return PTL_NO_SPACE;
  OperationRequest copy = req;
  std::array<unsigned char, 32> operand{};
  if (req.operand != nullptr) { // the operand is read when the operation fires: keep it
    std::memcpy(operand.data(), req.operand, datatypeSize(req.atomicType));
  }
  uint32_t owner = ps.ctx.id;
  ni->triggeredOps++;
  ct->addTriggered(threshold, [this, copy, operand, owner]() mutable {
    if (copy.operand != nullptr)
      copy.operand = operand.data();
    ProcessState* p = process(owner);
    int r           = p ? start(copy, *p, true) : PTL_ARG_INVALID;
    if (r != PTL_OK)
      XBT_WARN("triggered Ptl%s of process %u could not start when it fired (error %d): its MD was released?",
               toString(copy.kind), owner, r);
  });
  ctChanged(trigCt); // fires at once if the threshold is already reached
  return PTL_OK;
}

int Core::triggeredCt(ptl_handle_ct_t h, ptl_ct_event_t value, bool increment, ptl_handle_ct_t trigCt,
                      ptl_size_t threshold)
{
  ProcessState& ps = current();
  if (ps.initCount == 0)
    return PTL_NO_INIT;
  CountingEvent* target = owned(cts_, h, ps);
  CountingEvent* trig   = owned(cts_, trigCt, ps);
  if (target == nullptr || trig == nullptr || target->ni() != trig->ni())
    return PTL_ARG_INVALID;
  if (increment && value.success != 0 && value.failure != 0)
    return PTL_ARG_INVALID;
  NetworkInterface* ni = nis_.find(trig->ni());
  if (ni->triggeredOps >= ni->limits.max_triggered_ops)
    return PTL_NO_SPACE;
  ni->triggeredOps++;
  trig->addTriggered(threshold, [this, h, value, increment]() {
    CountingEvent* ct = cts_.find(h);
    if (ct == nullptr)
      return; // freed before the trigger
    if (increment)
      ct->add(value);
    else
      ct->set(value);
    ctChanged(h);
  });
  ctChanged(trigCt);
  return PTL_OK;
}

bool Core::ackReachesPutMd(const Message& msg)
{
  const MemoryDescriptor* md = mds_.find(msg.putMd);
  if (md == nullptr)
    return false;
  bool full_ack = msg.ackReq == PTL_ACK_REQ || msg.ackReq == PTL_OC_ACK_REQ;
  return (full_ack && md->eq != PTL_EQ_NONE) || (md->ct != PTL_CT_NONE && (md->options & PTL_MD_EVENT_CT_ACK));
}

void Core::releaseMds(Message& msg, bool put, bool get)
{
  if (put && !msg.putMdReleased && msg.putMd != PTL_INVALID_HANDLE) {
    msg.putMdReleased = true;
    if (MemoryDescriptor* md = mds_.find(msg.putMd))
      md->inFlight--;
  }
  if (get && !msg.getMdReleased && msg.getMd != PTL_INVALID_HANDLE) {
    msg.getMdReleased = true;
    if (MemoryDescriptor* md = mds_.find(msg.getMd))
      md->inFlight--;
  }
}

Message::~Message()
{
  if (tracked)
    Core::instance().untrack(*this);
}

void Core::untrack(Message& msg)
{
  msg.tracked = false;
  unfinished_.erase(msg.id);
}

void Core::finishIfDone(Message& msg)
{
  if (msg.finished || !msg.sendCompleted)
    return;
  bool responseDone = msg.response == ResponseKind::none ? msg.delivered : msg.responseCompleted;
  if (!responseDone)
    return;
  msg.finished = true;
  untrack(msg);
  releaseMds(msg, true, true);
}

void Core::completeSend(Message& msg)
{
  NotifyBatch batch(*this);
  if (msg.sendCompleted)
    return;
  msg.sendCompleted = true;
  // The user may reuse the buffer once SEND is posted: keep a copy. Not when the initiator's NI is gone
  // (PtlNIFini, or its rank ended): its memory may be gone too, and the request is dropped at delivery.
  if (!msg.delivered && nis_.find(msg.sourceNi) != nullptr)
    msg.ownPayload();
  if (msg.kind != OpKind::get) {
    // A request that never reached its target is reported on the SEND event too (as the reference
    // implementation does), and counted as a failure.
    ptl_ni_fail_t fail = msg.delivered && msg.failType == PTL_NI_UNDELIVERABLE ? PTL_NI_UNDELIVERABLE : PTL_NI_OK;
    // Without an ack that the put MD records (no ack requested, or one that neither its EQ nor its
    // counting event takes), SEND is the last the initiator hears of the MD: PtlMDRelease may free it
    // now, as the reference implementation allows. Released before the event is posted: posting wakes
    // the program up, and SimGrid may run it before this returns.
    if (msg.ackReq == PTL_NO_ACK_REQ || !ackReachesPutMd(msg))
      releaseMds(msg, true, false);
    if (const MemoryDescriptor* found = mds_.find(msg.putMd)) {
      MemoryDescriptor md = *found; // posting lets the program run, which may release it
      bool ok             = fail == PTL_NI_OK;
      if (!(md.options & PTL_MD_EVENT_SEND_DISABLE) && !(ok && (md.options & PTL_MD_EVENT_SUCCESS_DISABLE))) {
        ptl_event_t ev{};
        ev.type             = PTL_EVENT_SEND;
        ev.user_ptr         = msg.userPtr;
        ev.hdr_data         = msg.hdrData;
        ev.match_bits       = msg.matchBits;
        ev.rlength          = msg.length;
        ev.mlength          = msg.length;
        ev.remote_offset    = msg.remoteOffset;
        ev.pt_index         = msg.ptIndex;
        ev.ni_fail_type     = fail;
        ev.atomic_operation = msg.atomicOp;
        ev.atomic_type      = msg.atomicType;
        postEvent(md.eq, ev);
      }
      countInitiator(md, PTL_MD_EVENT_CT_SEND, msg.length, fail);
    }
  }
  finishIfDone(msg);
}

void Core::completeResponse(Message& msg)
{
  NotifyBatch batch(*this);
  if (msg.responseCompleted || msg.response == ResponseKind::none)
    return;
  msg.responseCompleted         = true;
  bool reply                    = msg.response == ResponseKind::reply;
  const MemoryDescriptor* found = mds_.find(reply ? msg.getMd : msg.putMd);
  // The MDs are free as soon as the program can see the ACK/REPLY (event or counter): released first,
  // as posting the event or counting may run the program at once (a SimGrid simcall).
  releaseMds(msg, true, true);
  if (found != nullptr) {
    MemoryDescriptor copy = *found; // posting lets the program run, which may release it
    MemoryDescriptor* md  = &copy;
    if (reply && msg.failType == PTL_NI_OK && !msg.replyData.empty())
      md->region.write(msg.localGetOffset, msg.replyData.data(), msg.replyData.size());
    bool ok      = msg.failType == PTL_NI_OK;
    bool fullAck = !reply && (msg.ackReq == PTL_ACK_REQ || msg.ackReq == PTL_OC_ACK_REQ);
    if ((reply || fullAck) && !(ok && (md->options & PTL_MD_EVENT_SUCCESS_DISABLE))) {
      ptl_event_t ev{};
      ev.type             = reply ? PTL_EVENT_REPLY : PTL_EVENT_ACK;
      ev.user_ptr         = msg.userPtr;
      ev.match_bits       = msg.matchBits;
      ev.rlength          = msg.length;
      ev.mlength          = msg.mlength;
      ev.remote_offset    = msg.targetOffset;
      ev.pt_index         = msg.ptIndex;
      ev.ptl_list         = msg.matchedList;
      ev.ni_fail_type     = msg.failType;
      ev.atomic_operation = msg.atomicOp;
      ev.atomic_type      = msg.atomicType;
      if (reply)
        ev.start = md->region.addressAt(msg.localGetOffset);
      postEvent(md->eq, ev);
    }
    countInitiator(*md, reply ? PTL_MD_EVENT_CT_REPLY : PTL_MD_EVENT_CT_ACK, msg.mlength, msg.failType);
  }
  finishIfDone(msg);
}

} // namespace bxisim::portals
