#include "portals/core/EventQueue.hpp"

namespace bxisim::portals
{

bool EventQueue::post(const ptl_event_t& ev)
{
  ptl_size_t limit = ev.type == PTL_EVENT_PT_DISABLED ? capacity_ + 1 : capacity_;
  if (events_.size() >= limit) {
    dropped_ = true;
    return false;
  }
  events_.push_back(ev);
  return true;
}

int EventQueue::get(ptl_event_t* ev)
{
  if (events_.empty())
    return PTL_EQ_EMPTY;
  if (ev != nullptr)
    *ev = events_.front();
  events_.pop_front();
  if (dropped_) {
    dropped_ = false;
    return PTL_EQ_DROPPED;
  }
  return PTL_OK;
}

} // namespace bxisim::portals
