#include "StageTrace.hpp"

namespace bxisim::hw::cycle
{

const OperationTrace* stage_trace = nullptr;

const char* s4bxi_name(const FrameExtension& frame)
{
  portals::OpKind operation = frame.operation->message->kind;
  switch (frame.kind) {
  case FrameKind::Request:
    switch (operation) {
    case portals::OpKind::put:
      return "PUT";
    case portals::OpKind::get:
      return "GET";
    case portals::OpKind::atomic:
      return "ATOMIC";
    case portals::OpKind::fetchAtomic:
      return "FETCH_ATOMIC";
    case portals::OpKind::swap:
      return "SWAP";
    }
    return "REQUEST";
  case FrameKind::Response:
    return operation == portals::OpKind::put || operation == portals::OpKind::atomic ? "ACK" : "REPLY";
  case FrameKind::RequestAck:
  case FrameKind::ResponseAck:
    return "BXI_ACK";
  }
  return "?";
}

std::string frame_label(const FrameExtension& frame)
{
  std::string label = s4bxi_name(frame);
  if (frame.payload > 0)
    label += " " + std::to_string(frame.payload) + " B";
  return label;
}

} // namespace bxisim::hw::cycle
