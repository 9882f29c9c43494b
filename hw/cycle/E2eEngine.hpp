#pragma once
// E2E engine (end-to-end reliability, thesis 2.2.3): keeps a retry table of the reliable frames this
// NIC sent (requests, responses) with a timer started when their last packet left; sends a frame
// again through its packetizer when the timer expires unacknowledged, gives up after `retries`
// retransmissions (the initiator then sees PTL_NI_UNDELIVERABLE). It acknowledges what arrives with
// BXI ACKs, which overtake the frames waiting on the response network, and takes the BXI ACKs and
// responses that acknowledge this NIC's frames, returning their flow-control credits. A request whose
// payload fits the E2E context (early_send_max) gets its SEND event once sent.
//
// Event-driven: the timer thread sleeps until the oldest unacknowledged deadline, and an
// acknowledgement that clears it moves the wake-up on; no process wakes for an acknowledged frame.

#include "Channels.hpp"
#include "CycleNicConfig.hpp"
#include "Outbox.hpp"

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <deque>

namespace bxisim::hw::cycle
{

class E2eEngine : public sc_core::sc_module
{
 public:
  tlm_utils::simple_target_socket<E2eEngine> sent;    // from the link port: frames that left
  tlm_utils::simple_target_socket<E2eEngine> arrived; // from the depacketizer: frames that came in
  tlm_utils::simple_initiator_socket<E2eEngine> resend_request;
  tlm_utils::simple_initiator_socket<E2eEngine> resend_response;
  sc_core::sc_port<FrameQueueIf> acks; // the response network's queue (BXI ACKs go first)
  sc_core::sc_port<FlowCreditIf> flow; // the wire arbiter's flow-control credits

  E2eEngine(sc_core::sc_module_name name, const E2eEngineConfig& config, uint64_t early_send_max, int node,
            Outbox& outbox, FramePool& pool);

  uint64_t retransmissions = 0, bxi_acks_sent = 0, given_up = 0;
  int pending = 0; // frames waiting for an acknowledgement (VCD)

 private:
  void on_sent(tlm::tlm_generic_payload& frame, sc_core::sc_time& delay);
  void on_arrived(tlm::tlm_generic_payload& frame, sc_core::sc_time& delay);
  void timer();
  void acknowledge(const FrameExtension& frame, FrameKind kind);
  void give_up(FrameExtension& frame);
  static bool acknowledged(const FrameExtension& frame);

  E2eEngineConfig config_;
  uint64_t early_send_max_;
  int node_;
  Outbox& outbox_;
  FramePool& pool_;
  std::deque<std::pair<sc_core::sc_time, tlm::tlm_generic_payload*>> table_; // deadlines in sending order
  sc_core::sc_event registered_, acknowledged_;
};

} // namespace bxisim::hw::cycle
