#include "Frame.hpp"

namespace bxisim::hw::cycle
{

FramePool::~FramePool()
{
  for (auto& payload : all_)
    payload->reset(); // deletes the extensions; the payload's own destructor must not call free()
}

tlm::tlm_generic_payload* FramePool::allocate(FrameKind kind, std::shared_ptr<Operation> operation, int from, int to)
{
  tlm::tlm_generic_payload* payload;
  if (free_.empty()) {
    all_.push_back(std::make_unique<tlm::tlm_generic_payload>(this));
    payload = all_.back().get();
    payload->set_extension(new FrameExtension);
  } else {
    payload = free_.back();
    free_.pop_back();
  }
  FrameExtension& frame = frame_of(*payload);
  frame                 = FrameExtension{};
  frame.kind            = kind;
  frame.operation       = std::move(operation);
  frame.from            = from;
  frame.to              = to;
  payload->set_command(tlm::TLM_WRITE_COMMAND);
  payload->set_address(static_cast<uint64_t>(to));
  payload->set_data_ptr(nullptr);
  payload->set_data_length(0);
  payload->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  payload->acquire();
  return payload;
}

void FramePool::free(tlm::tlm_generic_payload* payload)
{
  frame_of(*payload).operation.reset();
  free_.push_back(payload);
}

} // namespace bxisim::hw::cycle
