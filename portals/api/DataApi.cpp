/* C entry points: Put, Get, Atomic, FetchAtomic, Swap, and their triggered forms. */
#include "portals/api/Guard.hpp"

using bxisim::portals::Core;
using bxisim::portals::guarded;
using bxisim::portals::guarded_described;
using bxisim::portals::OperationRequest;
using bxisim::portals::OpKind;

namespace
{

OperationRequest put_request(OpKind kind, ptl_handle_md_t md, ptl_size_t offset, ptl_size_t length, ptl_ack_req_t ack,
                             ptl_process_t target, ptl_pt_index_t pt, ptl_match_bits_t bits, ptl_size_t remote,
                             void* user, ptl_hdr_data_t hdr)
{
  OperationRequest r;
  r.kind             = kind;
  r.put_md           = md;
  r.local_put_offset = offset;
  r.length           = length;
  r.ack_req          = ack;
  r.target           = target;
  r.pt_index         = pt;
  r.match_bits       = bits;
  r.remote_offset    = remote;
  r.user_ptr         = user;
  r.hdr_data         = hdr;
  return r;
}

OperationRequest get_request(ptl_handle_md_t md, ptl_size_t offset, ptl_size_t length, ptl_process_t target,
                             ptl_pt_index_t pt, ptl_match_bits_t bits, ptl_size_t remote, void* user)
{
  OperationRequest r;
  r.kind             = OpKind::get;
  r.get_md           = md;
  r.local_get_offset = offset;
  r.length           = length;
  r.target           = target;
  r.pt_index         = pt;
  r.match_bits       = bits;
  r.remote_offset    = remote;
  r.user_ptr         = user;
  return r;
}

OperationRequest fetch_request(OpKind kind, ptl_handle_md_t get_md, ptl_size_t get_offset, ptl_handle_md_t put_md,
                               ptl_size_t put_offset, ptl_size_t length, ptl_process_t target, ptl_pt_index_t pt,
                               ptl_match_bits_t bits, ptl_size_t remote, void* user, ptl_hdr_data_t hdr,
                               const void* operand, ptl_op_t op, ptl_datatype_t type)
{
  OperationRequest r =
      put_request(kind, put_md, put_offset, length, PTL_NO_ACK_REQ, target, pt, bits, remote, user, hdr);
  r.get_md           = get_md;
  r.local_get_offset = get_offset;
  r.operand          = operand;
  r.atomic_op        = op;
  r.atomic_type      = type;
  return r;
}

/** The operation with its memory descriptors named by their handles inside (Core::global_handle). */
int issue_inside(Core& core, OperationRequest request)
{
  request.put_md = core.global_handle(request.put_md);
  request.get_md = core.global_handle(request.get_md);
  return core.issue(request);
}

int issue_triggered_inside(Core& core, OperationRequest request, ptl_handle_ct_t trigger, ptl_size_t threshold)
{
  request.put_md = core.global_handle(request.put_md);
  request.get_md = core.global_handle(request.get_md);
  return core.issue_triggered(request, core.global_handle(trigger), threshold);
}

/** What a timeline shows of a data movement: its size and its target, a rank for an MD of a logical NI (whose
 * ptl_process_t holds no pid), a nid and pid otherwise. Which one is found now: the MD may be gone when it is shown. */
Core::CallArguments describe(Core& core, ptl_size_t length, ptl_process_t target, ptl_handle_md_t md)
{
  return [length, target, by_rank = core.targets_ranks(md)] {
    return "length=" + std::to_string(length) +
           (by_rank ? ", target=rank " + std::to_string(target.rank)
                    : ", target=nid " + std::to_string(target.phys.nid) + " pid " + std::to_string(target.phys.pid));
  };
}

/** The description of a data movement, made inside the call's guard. */
auto described(ptl_size_t length, ptl_process_t target, ptl_handle_md_t md)
{
  return [=](Core& core) { return describe(core, length, target, md); };
}

} // namespace

extern "C" {

int PtlPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_ack_req_t ack_req,
           ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset,
           void* user_ptr, ptl_hdr_data_t hdr_data)
{
  return guarded_described("PtlPut", described(length, target_id, md_handle), [&](Core& c) {
    return issue_inside(c, put_request(OpKind::put, md_handle, local_offset, length, ack_req, target_id, pt_index,
                                       match_bits, remote_offset, user_ptr, hdr_data));
  });
}

int PtlGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_process_t target_id,
           ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr)
{
  return guarded_described("PtlGet", described(length, target_id, md_handle), [&](Core& c) {
    return issue_inside(
        c, get_request(md_handle, local_offset, length, target_id, pt_index, match_bits, remote_offset, user_ptr));
  });
}

int PtlAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_ack_req_t ack_req,
              ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset,
              void* user_ptr, ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype)
{
  return guarded_described("PtlAtomic", described(length, target_id, md_handle), [&](Core& c) {
    OperationRequest r = put_request(OpKind::atomic, md_handle, local_offset, length, ack_req, target_id, pt_index,
                                     match_bits, remote_offset, user_ptr, hdr_data);
    r.atomic_op        = operation;
    r.atomic_type      = datatype;
    return issue_inside(c, r);
  });
}

int PtlFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset, ptl_handle_md_t put_md_handle,
                   ptl_size_t local_put_offset, ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                   ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data,
                   ptl_op_t operation, ptl_datatype_t datatype)
{
  return guarded_described("PtlFetchAtomic", described(length, target_id, get_md_handle), [&](Core& c) {
    return issue_inside(c, fetch_request(OpKind::fetch_atomic, get_md_handle, local_get_offset, put_md_handle,
                                         local_put_offset, length, target_id, pt_index, match_bits, remote_offset,
                                         user_ptr, hdr_data, nullptr, operation, datatype));
  });
}

int PtlSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset, ptl_handle_md_t put_md_handle,
            ptl_size_t local_put_offset, ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
            ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data,
            const void* operand, ptl_op_t operation, ptl_datatype_t datatype)
{
  return guarded_described("PtlSwap", described(length, target_id, get_md_handle), [&](Core& c) {
    return issue_inside(c, fetch_request(OpKind::swap, get_md_handle, local_get_offset, put_md_handle, local_put_offset,
                                         length, target_id, pt_index, match_bits, remote_offset, user_ptr, hdr_data,
                                         operand, operation, datatype));
  });
}

int PtlAtomicSync(void)
{
  return guarded("PtlAtomicSync", [](Core& c) { return c.atomic_sync(); });
}

int PtlTriggeredPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_ack_req_t ack_req,
                    ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                    ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data, ptl_handle_ct_t trig_ct_handle,
                    ptl_size_t threshold)
{
  return guarded("PtlTriggeredPut", [&](Core& c) {
    return issue_triggered_inside(c,
                                  put_request(OpKind::put, md_handle, local_offset, length, ack_req, target_id,
                                              pt_index, match_bits, remote_offset, user_ptr, hdr_data),
                                  trig_ct_handle, threshold);
  });
}

int PtlTriggeredGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_process_t target_id,
                    ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr,
                    ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return guarded("PtlTriggeredGet", [&](Core& c) {
    return issue_triggered_inside(
        c, get_request(md_handle, local_offset, length, target_id, pt_index, match_bits, remote_offset, user_ptr),
        trig_ct_handle, threshold);
  });
}

int PtlTriggeredAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_ack_req_t ack_req,
                       ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                       ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data, ptl_op_t operation,
                       ptl_datatype_t datatype, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return guarded("PtlTriggeredAtomic", [&](Core& c) {
    OperationRequest r = put_request(OpKind::atomic, md_handle, local_offset, length, ack_req, target_id, pt_index,
                                     match_bits, remote_offset, user_ptr, hdr_data);
    r.atomic_op        = operation;
    r.atomic_type      = datatype;
    return issue_triggered_inside(c, r, trig_ct_handle, threshold);
  });
}

int PtlTriggeredFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset, ptl_handle_md_t put_md_handle,
                            ptl_size_t local_put_offset, ptl_size_t length, ptl_process_t target_id,
                            ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset,
                            void* user_ptr, ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                            ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return guarded("PtlTriggeredFetchAtomic", [&](Core& c) {
    return issue_triggered_inside(c,
                                  fetch_request(OpKind::fetch_atomic, get_md_handle, local_get_offset, put_md_handle,
                                                local_put_offset, length, target_id, pt_index, match_bits,
                                                remote_offset, user_ptr, hdr_data, nullptr, operation, datatype),
                                  trig_ct_handle, threshold);
  });
}

int PtlTriggeredSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset, ptl_handle_md_t put_md_handle,
                     ptl_size_t local_put_offset, ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                     ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data,
                     const void* operand, ptl_op_t operation, ptl_datatype_t datatype, ptl_handle_ct_t trig_ct_handle,
                     ptl_size_t threshold)
{
  return guarded("PtlTriggeredSwap", [&](Core& c) {
    return issue_triggered_inside(c,
                                  fetch_request(OpKind::swap, get_md_handle, local_get_offset, put_md_handle,
                                                local_put_offset, length, target_id, pt_index, match_bits,
                                                remote_offset, user_ptr, hdr_data, operand, operation, datatype),
                                  trig_ct_handle, threshold);
  });
}

int PtlTriggeredCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment, ptl_handle_ct_t trig_ct_handle,
                      ptl_size_t threshold)
{
  return guarded("PtlTriggeredCTInc", [&](Core& c) {
    return c.triggered_ct(c.global_handle(ct_handle), increment, true, c.global_handle(trig_ct_handle), threshold);
  });
}

int PtlTriggeredCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct, ptl_handle_ct_t trig_ct_handle,
                      ptl_size_t threshold)
{
  return guarded("PtlTriggeredCTSet", [&](Core& c) {
    return c.triggered_ct(c.global_handle(ct_handle), new_ct, false, c.global_handle(trig_ct_handle), threshold);
  });
}

} // extern "C"
