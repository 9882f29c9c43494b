#pragma once
// One Portals operation carried by the message-level NIC model, from command to last acknowledgement.

#include "portals/core/Message.hpp"

#include <simgrid/s4u/Host.hpp>

#include <memory>

namespace bxisim::hw::message
{

/** What one wire frame carries. */
enum class FrameKind {
  Request,     // initiator -> target: the command, with its payload unless it is a Get
  Response,    // target -> initiator: a Portals ACK or a reply with its payload
  RequestAck,  // target -> initiator: BXI ACK of a request that needs no Portals response
  ResponseAck, // initiator -> target: BXI ACK of a response (itself unacknowledged)
};

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
  bool request_delivered     = false; // the target NIC processed the request
  bool response_delivered    = false; // the initiator NIC processed the response
  bool given_up              = false;
  bool send_completed        = false;
  bool holds_command_slot    = false; // posted by the rank: frees a slot of its command queue once TX takes it
};

struct WireFrame {
  FrameKind kind;
  std::shared_ptr<InFlight> operation;
  uint64_t ordinal = 0; // 1-based, in the order frames enter the wire
};

} // namespace bxisim::hw::message
