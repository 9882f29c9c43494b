#pragma once
// The S4BXI trace's names of what a frame carries (DESIGN.md section 7), the same at both levels:
// PUT, GET, ATOMIC, FETCH_ATOMIC, SWAP for requests, ACK or REPLY for their responses, BXI_ACK for the
// link-level acknowledgements.

#include "portals/core/Message.hpp"

namespace bxisim::hw
{

/** The name of a request frame of `operation`. */
const char* s4bxi_request_name(portals::OpKind operation);
/** The name of the Portals response to a request of `operation`: ACK (Put, Atomic) or REPLY. */
const char* s4bxi_response_name(portals::OpKind operation);
/** The name of a BXI (link-level) acknowledgement. */
constexpr const char* kS4bxiBxiAck = "BXI_ACK";

/** The name of a frame of either model: both FrameKinds have Request, Response and two BXI ACK kinds. */
template <typename FrameKind>
const char* s4bxi_frame_name(FrameKind kind, portals::OpKind operation)
{
  switch (kind) {
  case FrameKind::Request:
    return s4bxi_request_name(operation);
  case FrameKind::Response:
    return s4bxi_response_name(operation);
  case FrameKind::RequestAck:
  case FrameKind::ResponseAck:
    return kS4bxiBxiAck;
  }
  return "?";
}

} // namespace bxisim::hw
