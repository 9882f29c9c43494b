#pragma once
// The four kinds of BXI wire frames, at both NIC levels.

#include <cstdint>

namespace bxisim::hw
{

enum class FrameKind : uint8_t {
  Request,     // initiator -> target: the command, with its payload unless it is a Get
  Response,    // target -> initiator: a Portals ACK, or a reply with its payload
  RequestAck,  // target -> initiator: BXI ACK of a request that needs no Portals response
  ResponseAck, // initiator -> target: BXI ACK of a response (itself unacknowledged)
};

/** "request", "response BXI ACK", ...: for logs and loss reports. */
const char* frame_kind_name(FrameKind kind);

} // namespace bxisim::hw
