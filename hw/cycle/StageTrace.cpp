#include "StageTrace.hpp"

#include "hw/trace/S4bxiNames.hpp"

namespace bxisim::hw::cycle
{

const OperationTrace* stage_trace = nullptr;

const char* s4bxi_name(const FrameExtension& frame)
{
  return s4bxi_frame_name(frame.kind, frame.operation->message->kind);
}

std::string frame_label(const FrameExtension& frame)
{
  std::string label = s4bxi_name(frame);
  if (frame.payload > 0)
    label += " " + std::to_string(frame.payload) + " B";
  return label;
}

} // namespace bxisim::hw::cycle
