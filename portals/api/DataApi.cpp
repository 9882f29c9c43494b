/* C entry points: Put, Get, Atomic, FetchAtomic, Swap, and their triggered forms. */
#include "portals/api/Guard.hpp"

using bxisim::portals::Core;
using bxisim::portals::guarded;
using bxisim::portals::OperationRequest;
using bxisim::portals::OpKind;

namespace
{

OperationRequest putRequest(OpKind kind, ptl_handle_md_t md, ptl_size_t offset, ptl_size_t length, ptl_ack_req_t ack,
                            ptl_process_t target, ptl_pt_index_t pt, ptl_match_bits_t bits, ptl_size_t remote,
                            void* user, ptl_hdr_data_t hdr)
{
  OperationRequest r;
  r.kind           = kind;
  r.putMd          = md;
  r.localPutOffset = offset;
  r.length         = length;
  r.ackReq         = ack;
  r.target         = target;
  r.ptIndex        = pt;
  r.matchBits      = bits;
  r.remoteOffset   = remote;
  r.userPtr        = user;
  r.hdrData        = hdr;
  return r;
}

OperationRequest getRequest(ptl_handle_md_t md, ptl_size_t offset, ptl_size_t length, ptl_process_t target,
                            ptl_pt_index_t pt, ptl_match_bits_t bits, ptl_size_t remote, void* user)
{
  OperationRequest r;
  r.kind           = OpKind::get;
  r.getMd          = md;
  r.localGetOffset = offset;
  r.length         = length;
  r.target         = target;
  r.ptIndex        = pt;
  r.matchBits      = bits;
  r.remoteOffset   = remote;
  r.userPtr        = user;
  return r;
}

OperationRequest fetchRequest(OpKind kind, ptl_handle_md_t getMd, ptl_size_t getOffset, ptl_handle_md_t putMd,
                              ptl_size_t putOffset, ptl_size_t length, ptl_process_t target, ptl_pt_index_t pt,
                              ptl_match_bits_t bits, ptl_size_t remote, void* user, ptl_hdr_data_t hdr,
                              const void* operand, ptl_op_t op, ptl_datatype_t type)
{
  OperationRequest r = putRequest(kind, putMd, putOffset, length, PTL_NO_ACK_REQ, target, pt, bits, remote, user, hdr);
  r.getMd            = getMd;
  r.localGetOffset   = getOffset;
  r.operand          = operand;
  r.atomicOp         = op;
  r.atomicType       = type;
  return r;
}

/** The operation with its memory descriptors named by their handles inside (Core::globalHandle). */
int issueInside(Core& core, OperationRequest request)
{
  request.putMd = core.globalHandle(request.putMd);
  request.getMd = core.globalHandle(request.getMd);
  return core.issue(request);
}

int issueTriggeredInside(Core& core, OperationRequest request, ptl_handle_ct_t trigger, ptl_size_t threshold)
{
  request.putMd = core.globalHandle(request.putMd);
  request.getMd = core.globalHandle(request.getMd);
  return core.issueTriggered(request, core.globalHandle(trigger), threshold);
}

/** What a timeline shows of a data movement: its size and its target. */
Core::CallArguments describe(ptl_size_t length, ptl_process_t target)
{
  return [length, target] {
    return "length=" + std::to_string(length) + ", target=nid " + std::to_string(target.phys.nid) + " pid " +
           std::to_string(target.phys.pid);
  };
}

} // namespace

extern "C" {

int PtlPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_ack_req_t ack_req,
           ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset,
           void* user_ptr, ptl_hdr_data_t hdr_data)
{
  return guarded("PtlPut", describe(length, target_id), [&](Core& c) {
    return issueInside(c, putRequest(OpKind::put, md_handle, local_offset, length, ack_req, target_id, pt_index,
                                     match_bits, remote_offset, user_ptr, hdr_data));
  });
}

int PtlGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_process_t target_id,
           ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr)
{
  return guarded("PtlGet", describe(length, target_id), [&](Core& c) {
    return issueInside(
        c, getRequest(md_handle, local_offset, length, target_id, pt_index, match_bits, remote_offset, user_ptr));
  });
}

int PtlAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_ack_req_t ack_req,
              ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset,
              void* user_ptr, ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype)
{
  return guarded("PtlAtomic", describe(length, target_id), [&](Core& c) {
    OperationRequest r = putRequest(OpKind::atomic, md_handle, local_offset, length, ack_req, target_id, pt_index,
                                    match_bits, remote_offset, user_ptr, hdr_data);
    r.atomicOp         = operation;
    r.atomicType       = datatype;
    return issueInside(c, r);
  });
}

int PtlFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset, ptl_handle_md_t put_md_handle,
                   ptl_size_t local_put_offset, ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                   ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data,
                   ptl_op_t operation, ptl_datatype_t datatype)
{
  return guarded("PtlFetchAtomic", describe(length, target_id), [&](Core& c) {
    return issueInside(c, fetchRequest(OpKind::fetchAtomic, get_md_handle, local_get_offset, put_md_handle,
                                       local_put_offset, length, target_id, pt_index, match_bits, remote_offset,
                                       user_ptr, hdr_data, nullptr, operation, datatype));
  });
}

int PtlSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset, ptl_handle_md_t put_md_handle,
            ptl_size_t local_put_offset, ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
            ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data,
            const void* operand, ptl_op_t operation, ptl_datatype_t datatype)
{
  return guarded("PtlSwap", describe(length, target_id), [&](Core& c) {
    return issueInside(c, fetchRequest(OpKind::swap, get_md_handle, local_get_offset, put_md_handle, local_put_offset,
                                       length, target_id, pt_index, match_bits, remote_offset, user_ptr, hdr_data,
                                       operand, operation, datatype));
  });
}

int PtlAtomicSync(void)
{
  return guarded("PtlAtomicSync", [](Core& c) { return c.atomicSync(); });
}

int PtlTriggeredPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_ack_req_t ack_req,
                    ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                    ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data, ptl_handle_ct_t trig_ct_handle,
                    ptl_size_t threshold)
{
  return guarded("PtlTriggeredPut", [&](Core& c) {
    return issueTriggeredInside(c,
                                putRequest(OpKind::put, md_handle, local_offset, length, ack_req, target_id, pt_index,
                                           match_bits, remote_offset, user_ptr, hdr_data),
                                trig_ct_handle, threshold);
  });
}

int PtlTriggeredGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_process_t target_id,
                    ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr,
                    ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return guarded("PtlTriggeredGet", [&](Core& c) {
    return issueTriggeredInside(
        c, getRequest(md_handle, local_offset, length, target_id, pt_index, match_bits, remote_offset, user_ptr),
        trig_ct_handle, threshold);
  });
}

int PtlTriggeredAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_ack_req_t ack_req,
                       ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                       ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data, ptl_op_t operation,
                       ptl_datatype_t datatype, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return guarded("PtlTriggeredAtomic", [&](Core& c) {
    OperationRequest r = putRequest(OpKind::atomic, md_handle, local_offset, length, ack_req, target_id, pt_index,
                                    match_bits, remote_offset, user_ptr, hdr_data);
    r.atomicOp         = operation;
    r.atomicType       = datatype;
    return issueTriggeredInside(c, r, trig_ct_handle, threshold);
  });
}

int PtlTriggeredFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset, ptl_handle_md_t put_md_handle,
                            ptl_size_t local_put_offset, ptl_size_t length, ptl_process_t target_id,
                            ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset,
                            void* user_ptr, ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                            ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return guarded("PtlTriggeredFetchAtomic", [&](Core& c) {
    return issueTriggeredInside(c,
                                fetchRequest(OpKind::fetchAtomic, get_md_handle, local_get_offset, put_md_handle,
                                             local_put_offset, length, target_id, pt_index, match_bits, remote_offset,
                                             user_ptr, hdr_data, nullptr, operation, datatype),
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
    return issueTriggeredInside(c,
                                fetchRequest(OpKind::swap, get_md_handle, local_get_offset, put_md_handle,
                                             local_put_offset, length, target_id, pt_index, match_bits, remote_offset,
                                             user_ptr, hdr_data, operand, operation, datatype),
                                trig_ct_handle, threshold);
  });
}

int PtlTriggeredCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment, ptl_handle_ct_t trig_ct_handle,
                      ptl_size_t threshold)
{
  return guarded("PtlTriggeredCTInc", [&](Core& c) {
    return c.triggeredCt(c.globalHandle(ct_handle), increment, true, c.globalHandle(trig_ct_handle), threshold);
  });
}

int PtlTriggeredCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct, ptl_handle_ct_t trig_ct_handle,
                      ptl_size_t threshold)
{
  return guarded("PtlTriggeredCTSet", [&](Core& c) {
    return c.triggeredCt(c.globalHandle(ct_handle), new_ct, false, c.globalHandle(trig_ct_handle), threshold);
  });
}

} // extern "C"
