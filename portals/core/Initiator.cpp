/* The initiator side: checking and issuing data movement operations, and completing them when the NIC
 * model reports the SEND and the response. */
#include "portals/core/Atomics.hpp"
#include "portals/core/Core.hpp"
#include "portals/core/NicMemoryAccess.hpp"

#include <xbt/log.h>

#include <cstring>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_portals_initiator, bxisim_portals, "Portals initiator side");

namespace bxisim::portals
{

const char* op_kind_name(OpKind kind)
{
  switch (kind) {
  case OpKind::put:
    return "Put";
  case OpKind::get:
    return "Get";
  case OpKind::atomic:
    return "Atomic";
  case OpKind::fetch_atomic:
    return "FetchAtomic";
  case OpKind::swap:
    return "Swap";
  }
  return "?";
}

namespace
{
bool sends_payload(OpKind k)
{
  return k != OpKind::get;
}
bool receives_reply(OpKind k)
{
  return k == OpKind::get || k == OpKind::fetch_atomic || k == OpKind::swap;
}
} // namespace

int Core::validate(const OperationRequest& req, const ProcessState& ps, ptl_handle_ni_t* ni_out)
{
  ptl_handle_ni_t ni_handle = PTL_INVALID_HANDLE;
  for (int i = 0; i < 2; ++i) {
    bool needed = i == 0 ? sends_payload(req.kind) : receives_reply(req.kind);
    if (!needed)
      continue;
    ptl_handle_md_t h    = i == 0 ? req.put_md : req.get_md;
    ptl_size_t offset    = i == 0 ? req.local_put_offset : req.local_get_offset;
    MemoryDescriptor* md = mds_.find(h);
    if (md == nullptr || md->owner != ps.ctx.id)
      return PTL_ARG_INVALID;
    if (ni_handle != PTL_INVALID_HANDLE && md->ni != ni_handle)
      return PTL_ARG_INVALID; // the two MDs of a FetchAtomic/Swap belong to different NIs
    ni_handle = md->ni;
    if (offset > md->region.size() || req.length > md->region.size() - offset)
      return PTL_ARG_INVALID;
  }
  NetworkInterface* ni = nis_.find(ni_handle);
  if (ni == nullptr)
    return PTL_ARG_INVALID;
  if (req.length > ni->limits.max_msg_size || req.ack_req > PTL_OC_ACK_REQ)
    return PTL_ARG_INVALID;
  if (req.pt_index > static_cast<ptl_pt_index_t>(ni->limits.max_pt_index))
    return PTL_ARG_INVALID; // no NI of this kind has such a portal table entry
  if (sends_payload(req.kind)) {
    // A volatile MD's buffer may change as soon as the call returns: bxisim copies the payload at once,
    // up to max_volatile_size; larger operations are refused, as the reference implementation does.
    const MemoryDescriptor* md = mds_.find(req.put_md);
    if ((md->options & PTL_MD_VOLATILE) && req.length > ni->limits.max_volatile_size)
      return PTL_ARG_INVALID;
  }
  if (req.kind == OpKind::atomic || req.kind == OpKind::fetch_atomic || req.kind == OpKind::swap) {
    size_t elem = datatype_size(req.atomic_type);
    if (!is_valid_combination(req.atomic_op, req.atomic_type) || elem == 0 || req.length % elem != 0)
      return PTL_ARG_INVALID;
    bool swap_op = is_swap_operation(req.atomic_op);
    if ((req.kind == OpKind::swap) != swap_op)
      return PTL_ARG_INVALID; // swaps only through PtlSwap, the others never
    ptl_size_t max = req.kind == OpKind::atomic ? ni->limits.max_atomic_size : ni->limits.max_fetch_atomic_size;
    if (req.length > max)
      return PTL_ARG_INVALID;
    if (is_single_element_operation(req.atomic_op) && req.length != elem)
      return PTL_ARG_INVALID;
    if (req.kind == OpKind::swap && req.atomic_op != PTL_SWAP && req.operand == nullptr)
      return PTL_ARG_INVALID;
  }
  if (ni->logical()) {
    if (!ni->map_set || req.target.rank >= ni->map.size())
      return PTL_ARG_INVALID;
  }
  *ni_out = ni_handle;
  return PTL_OK;
}

int Core::start(const OperationRequest& req, ProcessState& ps, bool triggered)
{
  ptl_handle_ni_t ni_handle;
  int rc = validate(req, ps, &ni_handle);
  if (rc != PTL_OK)
    return rc;
  NetworkInterface* ni = nis_.find(ni_handle);
  if (!triggered)
    ps.changes++; // the process is at work: its polling loop must go round again before it blocks
  if (ps.ctx.nic == nullptr) {
    XBT_ERROR("Ptl%s by process %u: no NIC model is installed to carry it out (the runtime must provide one)",
              op_kind_name(req.kind), ps.ctx.id);
    return PTL_FAIL;
  }
  auto msg            = std::make_unique<Message>();
  msg->id             = next_message_id_++;
  msg->triggered      = triggered;
  msg->kind           = req.kind;
  msg->iface          = ni->iface;
  msg->ni_options     = ni->options;
  msg->source         = ni->phys_id;
  msg->target         = ni->logical() ? ni->map[req.target.rank] : req.target;
  msg->source_process = ps.ctx.id;
  msg->uid            = ni->uid;
  msg->pt_index       = req.pt_index;
  msg->match_bits     = ni->matching() ? req.match_bits : 0;
  msg->remote_offset  = req.remote_offset;
  msg->hdr_data       = req.hdr_data;
  msg->ack_req        = sends_payload(req.kind) && !receives_reply(req.kind) ? req.ack_req : PTL_NO_ACK_REQ;
  msg->atomic_op      = req.atomic_op;
  msg->atomic_type    = req.atomic_type;
  msg->length         = req.length;
  msg->user_ptr       = req.user_ptr;
  msg->source_ni      = ni_handle;
  if (req.kind == OpKind::swap && req.operand != nullptr)
    std::memcpy(msg->operand.data(), req.operand, datatype_size(req.atomic_type));
  if (sends_payload(req.kind)) {
    MemoryDescriptor* md  = mds_.find(req.put_md);
    msg->put_md           = req.put_md;
    msg->local_put_offset = req.local_put_offset;
    md->in_flight++;
    unsigned char* p = md->region.contiguous(req.local_put_offset, req.length);
    if (p != nullptr) {
      msg->borrow_payload(p);
      if (md->options & PTL_MD_VOLATILE)
        msg->own_payload(); // the program may modify the buffer as soon as the call returns
    } else {                // an iovec MD whose range spans several elements: gather it now
      std::vector<unsigned char> tmp(req.length);
      md->region.read(req.local_put_offset, tmp.data(), req.length);
      msg->borrow_payload(tmp.data());
      msg->own_payload();
    }
  }
  if (receives_reply(req.kind)) {
    msg->get_md           = req.get_md;
    msg->local_get_offset = req.local_get_offset;
    mds_.find(req.get_md)->in_flight++;
  }
  XBT_DEBUG("message %llu: %s of %llu B from %u/%u to %u/%u, PT %u, bits %#llx", (unsigned long long)msg->id,
            op_kind_name(msg->kind), (unsigned long long)msg->length, msg->source.phys.nid, msg->source.phys.pid,
            msg->target.phys.nid, msg->target.phys.pid, msg->pt_index, (unsigned long long)msg->match_bits);
  msg->tracked         = true;
  unfinished_[msg->id] = msg.get();
  ps.ctx.nic->submit(std::move(msg));
  return PTL_OK;
}

int Core::issue(const OperationRequest& req)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  return start(req, ps);
}

int Core::issue_triggered(const OperationRequest& req, ptl_handle_ct_t trig_ct, ptl_size_t threshold)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  ptl_handle_ni_t ni_handle;
  int rc = validate(req, ps, &ni_handle);
  if (rc != PTL_OK)
    return rc;
  CountingEvent* ct = owned(cts_, trig_ct, ps);
  if (ct == nullptr || ct->ni() != ni_handle)
    return PTL_ARG_INVALID;
  NetworkInterface* ni = nis_.find(ni_handle);
  if (ni->triggered_ops >= ni->limits.max_triggered_ops)
    return PTL_NO_SPACE;
  OperationRequest copy = req;
  std::array<unsigned char, 32> operand{};
  if (req.operand != nullptr) { // the operand is read when the operation fires: keep it
    std::memcpy(operand.data(), req.operand, datatype_size(req.atomic_type));
  }
  uint32_t owner = ps.ctx.id;
  post_triggered(ps, *ni, trig_ct, threshold, [this, copy, operand, owner]() mutable {
    if (copy.operand != nullptr)
      copy.operand = operand.data();
    ProcessState* p = process(owner);
    int r           = p ? start(copy, *p, true) : PTL_ARG_INVALID;
    if (r != PTL_OK)
      XBT_WARN("triggered Ptl%s of process %u could not start when it fired (error %d): its MD was released?",
               op_kind_name(copy.kind), owner, r);
  });
  return PTL_OK;
}

void Core::post_triggered(ProcessState& ps, NetworkInterface& ni, ptl_handle_ct_t trig, ptl_size_t threshold,
                          std::function<void()> action)
{
  ni.triggered_ops++;
  ptl_handle_ni_t ni_handle = ni.handle;
  if (ps.ctx.nic != nullptr) {
    // In BXI the CPU posts a registration through the command queue like an operation, and the NIC stores it: the
    // rank pays for the command (and waits while its queue is full); the counter keeps it from then on.
    auto command            = std::make_unique<Message>();
    command->id             = next_message_id_++;
    command->command_only   = true;
    command->iface          = ni.iface;
    command->ni_options     = ni.options;
    command->source         = ni.phys_id;
    command->target         = ni.phys_id;
    command->source_process = ps.ctx.id;
    command->uid            = ni.uid;
    command->source_ni      = ni_handle;
    command->finished       = true; // nothing for the initiator to complete
    ps.ctx.nic->submit(std::move(command));
  }
  NetworkInterface* owner = nis_.find(ni_handle);
  CountingEvent* ct       = cts_.find(trig);
  if (owner == nullptr) // another thread of the rank finalized the NI while this one waited for a slot
    return;
  if (ct == nullptr || ct->ni() != ni_handle) { // or freed the counter
    owner->triggered_ops--;
    return;
  }
  ct->add_triggered(threshold, std::move(action));
  ct_changed(trig); // fires at once if the threshold is already reached
}

int Core::triggered_ct(ptl_handle_ct_t h, ptl_ct_event_t value, bool increment, ptl_handle_ct_t trig_ct,
                       ptl_size_t threshold)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  CountingEvent* target = owned(cts_, h, ps);
  CountingEvent* trig   = owned(cts_, trig_ct, ps);
  if (target == nullptr || trig == nullptr || target->ni() != trig->ni())
    return PTL_ARG_INVALID;
  if (increment && value.success != 0 && value.failure != 0)
    return PTL_ARG_INVALID;
  NetworkInterface* ni = nis_.find(trig->ni());
  if (ni->triggered_ops >= ni->limits.max_triggered_ops)
    return PTL_NO_SPACE;
  post_triggered(ps, *ni, trig_ct, threshold, [this, h, value, increment]() {
    CountingEvent* ct = cts_.find(h);
    if (ct == nullptr)
      return; // freed before the trigger
    if (increment)
      ct->add(value);
    else
      ct->set(value);
    ct_changed(h);
  });
  return PTL_OK;
}

bool Core::ack_reaches_put_md(const Message& msg)
{
  const MemoryDescriptor* md = mds_.find(msg.put_md);
  if (md == nullptr)
    return false;
  bool full_ack = msg.ack_req == PTL_ACK_REQ; // PTL_CT_ACK_REQ and PTL_OC_ACK_REQ are counting acknowledgments
  return (full_ack && md->eq != PTL_EQ_NONE) || (md->ct != PTL_CT_NONE && (md->options & PTL_MD_EVENT_CT_ACK));
}

void Core::release_mds(Message& msg, bool put, bool get)
{
  if (put && !msg.put_md_released && msg.put_md != PTL_INVALID_HANDLE) {
    msg.put_md_released = true;
    if (MemoryDescriptor* md = mds_.find(msg.put_md))
      md->in_flight--;
  }
  if (get && !msg.get_md_released && msg.get_md != PTL_INVALID_HANDLE) {
    msg.get_md_released = true;
    if (MemoryDescriptor* md = mds_.find(msg.get_md))
      md->in_flight--;
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

void Core::finish_if_done(Message& msg)
{
  if (msg.finished || !msg.send_completed)
    return;
  bool response_done = msg.response == ResponseKind::none ? msg.delivered : msg.response_completed;
  if (!response_done)
    return;
  msg.finished = true;
  untrack(msg);
  release_mds(msg, true, true);
}

void Core::complete_send(Message& msg)
{
  NotifyBatch batch(*this);
  if (msg.send_completed)
    return;
  msg.send_completed = true;
  // The user may reuse the buffer once SEND is posted: keep a copy. Not when the initiator's NI is gone
  // (PtlNIFini, or its rank ended): its memory may be gone too, and the request is dropped at delivery.
  if (!msg.delivered && nis_.find(msg.source_ni) != nullptr)
    msg.own_payload();
  if (msg.kind != OpKind::get) {
    // A request that never reached its target is reported on the SEND event too (as the reference
    // implementation does), and counted as a failure.
    ptl_ni_fail_t fail = msg.delivered && msg.fail_type == PTL_NI_UNDELIVERABLE ? PTL_NI_UNDELIVERABLE : PTL_NI_OK;
    // Without an ack that the put MD records (no ack requested, or one that neither its EQ nor its
    // counting event takes), SEND is the last the initiator hears of the MD: PtlMDRelease may free it
    // now, as the reference implementation allows. Released before the event is posted: posting wakes
    // the program up, and SimGrid may run it before this returns.
    if (msg.ack_req == PTL_NO_ACK_REQ || !ack_reaches_put_md(msg))
      release_mds(msg, true, false);
    if (const MemoryDescriptor* found = mds_.find(msg.put_md)) {
      MemoryDescriptor md = *found; // posting lets the program run, which may release it
      bool ok             = fail == PTL_NI_OK;
      if (!(md.options & PTL_MD_EVENT_SEND_DISABLE) && !(ok && (md.options & PTL_MD_EVENT_SUCCESS_DISABLE))) {
        ptl_event_t ev{};
        ev.type             = PTL_EVENT_SEND;
        ev.user_ptr         = msg.user_ptr;
        ev.hdr_data         = msg.hdr_data;
        ev.match_bits       = msg.match_bits;
        ev.rlength          = msg.length;
        ev.mlength          = msg.length;
        ev.remote_offset    = msg.remote_offset;
        ev.pt_index         = msg.pt_index;
        ev.ni_fail_type     = fail;
        ev.atomic_operation = msg.atomic_op;
        ev.atomic_type      = msg.atomic_type;
        post_event(md.eq, ev);
      }
      count_initiator(md, PTL_MD_EVENT_CT_SEND, msg.length, fail);
    }
  }
  finish_if_done(msg);
}

void Core::complete_response(Message& msg)
{
  NotifyBatch batch(*this);
  if (msg.response_completed || msg.response == ResponseKind::none)
    return;
  msg.response_completed        = true;
  bool reply                    = msg.response == ResponseKind::reply;
  const MemoryDescriptor* found = mds_.find(reply ? msg.get_md : msg.put_md);
  // The MDs are free as soon as the program can see the ACK/REPLY (event or counter): released first,
  // as posting the event or counting may run the program at once (a SimGrid simcall).
  release_mds(msg, true, true);
  if (found != nullptr) {
    MemoryDescriptor copy = *found; // posting lets the program run, which may release it
    MemoryDescriptor* md  = &copy;
    if (reply && msg.fail_type == PTL_NI_OK && !msg.reply_data.empty()) {
      NicMemoryAccess access{
          "the reply of a Get (or of a fetching atomic), written at its initiator", msg.reply_data.size(),
          ProcessMemory{true, md->owner, md->region.address_at(msg.local_get_offset), md->region.scattered()},
          ProcessMemory{}};
      NicMemoryAccessScope copying(access);
      md->region.write(msg.local_get_offset, msg.reply_data.data(), msg.reply_data.size());
    }
    bool ok = msg.fail_type == PTL_NI_OK;
    // Only PTL_ACK_REQ gives a full ACK event. An operation completed acknowledgment (PTL_OC_ACK_REQ) is "a
    // counting type of acknowledgment, but it can only count operations" (Portals 4 specification, ptl_ack_req_t),
    // as a simple counting one (PTL_CT_ACK_REQ) is: the reference implementation and BXI's own software Portals post
    // no full event for either (Sandia OpenSHMEM sized its event queue for SEND events only, and it overflowed).
    bool full_ack = !reply && msg.ack_req == PTL_ACK_REQ;
    if ((reply || full_ack) && !(ok && (md->options & PTL_MD_EVENT_SUCCESS_DISABLE))) {
      ptl_event_t ev{};
      ev.type             = reply ? PTL_EVENT_REPLY : PTL_EVENT_ACK;
      ev.user_ptr         = msg.user_ptr;
      ev.match_bits       = msg.match_bits;
      ev.rlength          = msg.length;
      ev.mlength          = msg.mlength;
      ev.remote_offset    = msg.target_offset;
      ev.pt_index         = msg.pt_index;
      ev.ptl_list         = msg.matched_list;
      ev.ni_fail_type     = msg.fail_type;
      ev.atomic_operation = msg.atomic_op;
      ev.atomic_type      = msg.atomic_type;
      if (reply)
        ev.start = md->region.address_at(msg.local_get_offset);
      post_event(md->eq, ev);
    }
    bool operations_only = !reply && msg.ack_req == PTL_OC_ACK_REQ;
    count_initiator(*md, reply ? PTL_MD_EVENT_CT_REPLY : PTL_MD_EVENT_CT_ACK, msg.mlength, msg.fail_type,
                    operations_only);
  }
  finish_if_done(msg);
}

} // namespace bxisim::portals
