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
  events_.push_back({ev, dropped_});
  dropped_ = false;
  return true;
}

int EventQueue::get(ptl_event_t* ev)
{
  if (events_.empty())
    return PTL_EQ_EMPTY;
  Entry e = events_.front();
  events_.pop_front();
  if (ev != nullptr)
    *ev = e.event;
  return e.afterDrop ? PTL_EQ_DROPPED : PTL_OK;
}

} // namespace bxisim::portals
