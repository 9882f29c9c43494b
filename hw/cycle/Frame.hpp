#pragma once
// What travels through the cycle NIC: one Portals operation in flight (`Operation`), and the frames
// that carry it as TLM generic payloads with a BXI extension (`FrameExtension`). A memory manager
// (`FramePool`) recycles the payloads instead of allocating one per frame.

#include "hw/actors/FrameKind.hpp"
#include "portals/core/Message.hpp"

#include <systemc>
#include <tlm>

#include <cstdint>
#include <memory>
#include <vector>

namespace bxisim::hw::cycle
{

/** The four virtual networks: compute/service x request/response (thesis 2.2.3). */
enum VirtualNetwork : unsigned { kComputeRequest = 0, kComputeResponse = 1, kServiceRequest = 2, kServiceResponse = 3 };
constexpr unsigned kVirtualNetworks = 4;

/** How the payload of a request reaches the NIC (thesis 4.3.3). */
enum class PayloadPath : uint8_t { Inline, Pio, Dma };

/** One Portals operation, from its command to its last acknowledgement. */
struct Operation {
  std::unique_ptr<portals::Message> message;
  int source_node    = 0;
  int target_node    = 0;
  PayloadPath path   = PayloadPath::Inline;
  uint64_t address   = 0; // virtual address of the request payload (address translation)
  unsigned source_vn = kComputeRequest;

  // End-to-end reliability: what each side has already seen, so retransmissions are delivered once.
  int request_sends          = 0;
  int response_sends         = 0;
  bool request_acknowledged  = false;
  bool response_acknowledged = false;
  bool request_arrived       = false;
  bool request_delivered     = false;
  bool response_arrived      = false;
  bool given_up              = false;
  bool send_completed        = false;
  bool holds_flow_credit     = false; // counted in the initiator NIC's flow-control window
  double command_posted_at   = 0;     // when the CPU wrote the command (S4BXI trace's PCI_COMMAND)
  // BXI ACKs of the request (sent by the target NIC) and of the response, and those that reached the other NIC
  // (lost or not): one still on its way keeps the E2E timer of the frame it acknowledges from resending it.
  int request_ack_sends     = 0;
  int request_ack_landings  = 0;
  int response_ack_sends    = 0;
  int response_ack_landings = 0;
};

/** The BXI fields of a frame (TLM extension of the generic payload). */
struct FrameExtension : tlm::tlm_extension<FrameExtension> {
  FrameKind kind = FrameKind::Request;
  std::shared_ptr<Operation> operation;
  int from            = 0;          // node of the NIC that sends the frame
  int to              = 0;          // node of the NIC it goes to
  uint64_t payload    = 0;          // payload bytes it carries
  uint64_t packets    = 1;          // BXI link packets
  uint64_t ordinal    = 0;          // 1-based, in the order frames enter the wire (fault injection)
  uint64_t last_flits = 0;          // credits its last chunk holds in the receiver's buffer
  bool read_pending   = false;      // its DMA read from host memory has not finished yet
  sc_core::sc_time sent_at;         // when its first packet entered the wire
  sc_core::sc_time arrived_at;      // when its last packet reached the receiving NIC
  sc_core::sc_time in_memory_at;    // when its payload's last PCIe packet is in the receiver's memory
  sc_core::sc_time written_by;      // when the receiver's write engine is through its payload (LinkPort)
  uint64_t payload_arrived = 0;     // payload bytes of the chunks arrived so far
  bool delivered_by_core   = false; // the semantics layer has processed it (set by the bridge)

  tlm::tlm_extension_base* clone() const override { return new FrameExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const FrameExtension&>(other); }
  /** Request frames go towards the target, as do BXI ACKs of responses. */
  bool towards_target() const { return kind == FrameKind::Request || kind == FrameKind::ResponseAck; }
  bool reliable() const { return kind == FrameKind::Request || kind == FrameKind::Response; }
  /** The virtual network it travels on: requests on the request network, everything else (responses,
   * BXI ACKs) on the response network. Each has its own link credits and receive buffer. */
  unsigned network() const { return kind == FrameKind::Request ? kComputeRequest : kComputeResponse; }
};

/** Recycles generic payloads (each with its FrameExtension); a payload returns here when its last
 * holder releases it. */
class FramePool : public tlm::tlm_mm_interface
{
 public:
  FramePool() = default;
  ~FramePool() override;
  FramePool(const FramePool&)            = delete;
  FramePool& operator=(const FramePool&) = delete;

  /** A payload with a fresh extension and a reference count of one. */
  tlm::tlm_generic_payload* allocate(FrameKind kind, std::shared_ptr<Operation> operation, int from, int to);
  void free(tlm::tlm_generic_payload* payload) override;
  size_t allocated() const { return all_.size(); }

 private:
  std::vector<tlm::tlm_generic_payload*> free_;
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> all_;
};

inline FrameExtension& frame_of(tlm::tlm_generic_payload& payload)
{
  return *payload.get_extension<FrameExtension>();
}

} // namespace bxisim::hw::cycle
