#pragma once
// One Portals operation carried by the message-level NIC model, from command to last acknowledgement.

#include "hw/actors/FrameKind.hpp"
#include "portals/core/Message.hpp"

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Host.hpp>

#include <memory>

namespace bxisim::hw::message
{

struct InFlight {
  std::unique_ptr<portals::Message> message;
  int source_node;
  int target_node;
  simgrid::s4u::Host* source_core; // where the initiator's memory is (PCIe reads of the payload, events)
  simgrid::s4u::Host* target_core; // where the target's memory is (PCIe writes of the payload, events)

  // End-to-end reliability: what each side has already seen, so retransmissions are delivered once.
  int request_sends          = 0;
  int response_sends         = 0;
  bool request_acknowledged  = false; // the initiator NIC got the response or a BXI ACK
  bool response_acknowledged = false; // the target NIC got a BXI ACK for its response
  bool request_arrived       = false; // the target NIC received the request (later copies are duplicates)
  bool request_delivered     = false; // the target NIC processed the request
  bool response_arrived      = false; // the initiator NIC received the response (later copies are duplicates)
  bool response_delivered    = false; // the initiator NIC processed the response
  bool given_up              = false;
  bool send_completed        = false;
  bool holds_command_slot    = false; // posted by the rank: frees a slot of its command queue once TX takes it
  bool holds_response_slot   = false; // its response waits in the target NIC's response queue
  bool holds_flow_credit     = false; // counted by the initiator NIC's flow control until acknowledged
  // E2E: the number of the entry watching the request (on the initiator NIC) and the response (on the
  // target NIC) in their NIC's E2E list; 0: none.
  uint64_t request_e2e  = 0;
  uint64_t response_e2e = 0;
  // Copies that reached the other NIC (delivered or lost there): fewer than sent means one is still on the
  // wire, slowed by contention. Its E2E timer then starts again when it lands (watch_at_landing).
  int request_landings           = 0;
  int response_landings          = 0;
  bool request_watch_at_landing  = false;
  bool response_watch_at_landing = false;
  // BXI ACKs of the request (sent by the target NIC) and of the response (by the initiator NIC), and those that
  // reached the other NIC: one still on its way keeps a landed frame's E2E timer from resending it.
  int request_ack_sends     = 0;
  int request_ack_landings  = 0;
  int response_ack_sends    = 0;
  int response_ack_landings = 0;
};

struct WireFrame {
  WireFrame(FrameKind frame_kind, std::shared_ptr<InFlight> carried) : kind(frame_kind), operation(std::move(carried))
  {
  }
  FrameKind kind;
  std::shared_ptr<InFlight> operation;
  uint64_t ordinal = 0;          // 1-based, in the order frames enter the wire
  double sent_at   = 0;          // when it entered the wire
  double ready_at  = 0;          // when its payload is in the receiver's memory: its events may go
  simgrid::s4u::CommPtr command; // the CPU's command write over PCIe, still on its way to the NIC
  double command_posted_at = 0;
  simgrid::s4u::CommPtr read; // its payload's DMA read, once started (while the frame before is sent)
  double read_started_at = 0;
};

} // namespace bxisim::hw::message
