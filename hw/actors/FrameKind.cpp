#include "FrameKind.hpp"

namespace bxisim::hw
{

const char* frame_kind_name(FrameKind kind)
{
  switch (kind) {
  case FrameKind::Request:
    return "request";
  case FrameKind::Response:
    return "response";
  case FrameKind::RequestAck:
    return "request BXI ACK";
  case FrameKind::ResponseAck:
    return "response BXI ACK";
  }
  return "?";
}

} // namespace bxisim::hw
