/* One Portals operation in flight: the request the initiator sends and, filled in by the target, the
 * response it returns. The semantics layer creates it; the NicModel owns it while it is in flight. */
#ifndef BXISIM_PORTALS_MESSAGE_HPP
#define BXISIM_PORTALS_MESSAGE_HPP

#include "ByteBuffer.hpp"

#include <portals4.h>

#include <array>
#include <cstdint>
#include <vector>

namespace bxisim::portals
{

enum class OpKind : uint8_t { put, get, atomic, fetch_atomic, swap };

/* What travels back from the target. */
enum class ResponseKind : uint8_t {
  none, // nothing (no ack requested, ack disabled by the ME, or dropped without an ack requested)
  ack,  // a Portals ACK (PTL_ACK_REQ, PTL_CT_ACK_REQ, PTL_OC_ACK_REQ), no payload
  reply // a reply carrying response_bytes() bytes (Get, FetchAtomic, Swap)
};

const char* op_kind_name(OpKind kind);

struct Message {
  Message() = default;
  ~Message(); // Core forgets it (Core::track)
  Message(const Message&)            = delete;
  Message& operator=(const Message&) = delete;

  // ---- request: what the model carries from the initiator to the target ----
  uint64_t id           = 0;     // unique, increasing in submission order
  bool triggered        = false; // fired by a counter on the NIC, not posted by the CPU
  OpKind kind           = OpKind::put;
  ptl_interface_t iface = 0;
  unsigned ni_options   = 0;       // PTL_NI_MATCHING/NO_MATCHING | LOGICAL/PHYSICAL of the initiator's NI; the
                                   // message targets the NI of the same kind at the target
  ptl_process_t source{};          // physical id of the initiator (nid = node index)
  ptl_process_t target{};          // physical id of the target, already translated from a rank if logical
  uint32_t source_process     = 0; // ProcessContext::id of the initiator
  ptl_uid_t uid               = 0;
  ptl_pt_index_t pt_index     = 0;
  ptl_match_bits_t match_bits = 0;
  ptl_size_t remote_offset    = 0;
  ptl_hdr_data_t hdr_data     = 0;
  ptl_ack_req_t ack_req       = PTL_NO_ACK_REQ;
  ptl_op_t atomic_op          = 0;
  ptl_datatype_t atomic_type  = 0;
  ptl_size_t length           = 0;         // requested length (rlength)
  std::array<unsigned char, 32> operand{}; // PtlSwap's operand (one element of atomic_type)

  /* The request payload (Put, Atomic, FetchAtomic, Swap): `length` bytes. It points into the
   * initiator's MD until the semantics layer copies it (when the SEND event is posted before the
   * target consumed it); a model never needs to copy it itself. Empty for a Get. */
  const unsigned char* payload() const { return owned_payload_.empty() ? borrowed_payload_ : owned_payload_.data(); }
  ptl_size_t request_bytes() const { return kind == OpKind::get ? 0 : length; }

  // ---- response: filled in by Core::deliver_request at the target ----
  bool delivered           = false;
  ResponseKind response    = ResponseKind::none;
  ptl_ni_fail_t fail_type  = PTL_NI_OK;
  ptl_size_t mlength       = 0;                 // bytes the target accepted
  ptl_size_t target_offset = 0;                 // the offset used in the target entry (remote or locally managed)
  ptl_list_t matched_list  = PTL_PRIORITY_LIST; // the list the target matched on (ptl_list of ACK/REPLY events)
  ByteBuffer reply_data;                        // reply payload (Get, FetchAtomic, Swap): mlength bytes
  ptl_size_t response_bytes() const { return response == ResponseKind::reply ? mlength : 0; }

  // ---- initiator bookkeeping: opaque to models ----
  ptl_handle_ni_t source_ni   = PTL_INVALID_HANDLE; // the initiator's NI; once it is gone, its memory may be too
  ptl_handle_md_t put_md      = PTL_INVALID_HANDLE; // the MD the payload comes from (not for a Get)
  ptl_handle_md_t get_md      = PTL_INVALID_HANDLE; // the MD the reply goes to (Get, FetchAtomic, Swap)
  ptl_size_t local_put_offset = 0;
  ptl_size_t local_get_offset = 0;
  void* user_ptr              = nullptr;
  bool send_completed         = false;
  bool response_completed     = false;
  bool put_md_released        = false; // the initiator's last event about put_md is posted: PtlMDRelease may succeed
  bool get_md_released        = false; // the same for get_md
  bool finished               = false; // the initiator is done with it: the model may destroy it
  bool tracked                = false; // in Core's list of unfinished messages

  /* Not an operation but a command the NIC stores (the registration of a triggered operation, which Core has
   * already put in place): the model charges it as any command the CPU posts (a command queue slot, the posted PCIe
   * write, the NIC's intake) and destroys it once the NIC has taken it. Nothing goes on the wire, no event follows. */
  bool command_only = false;

  void borrow_payload(const unsigned char* p) { borrowed_payload_ = p; }
  /* Whether the payload still lives in the initiator's memory (not copied into the message yet). */
  bool payload_borrowed() const { return owned_payload_.empty() && borrowed_payload_ != nullptr && length > 0; }
  void own_payload() // copies the borrowed payload into the message
  {
    if (owned_payload_.empty() && borrowed_payload_ != nullptr && length > 0)
      owned_payload_.assign(borrowed_payload_, borrowed_payload_ + length);
  }

 private:
  const unsigned char* borrowed_payload_ = nullptr;
  std::vector<unsigned char> owned_payload_;
};

} // namespace bxisim::portals

#endif
