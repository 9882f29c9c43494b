#include "portals/core/EventQueue.hpp"

namespace bxisim::portals
{

bool EventQueue::post(const ptl_event_t& ev)
{
  ptl_size_t limit = ev.type == PTL_EVENT_PT_DISABLED ? capacity_ + 1 : capacity_;
  bool kept_all    = true;
  while (!events_.empty() && events_.size() >= limit) {
    events_.pop_front(); // overwritten: the queue is circular
    dropped_ = true;
    kept_all = false;
  }
  events_.push_back(ev);
  return kept_all;
}

int EventQueue::get(ptl_event_t* ev)
{
  if (events_.empty())
    return PTL_EQ_EMPTY;
  if (ev != nullptr)
    *ev = events_.front();
  events_.pop_front();
  bool dropped = dropped_;
  dropped_     = false;
  return dropped ? PTL_EQ_DROPPED : PTL_OK;
}

} // namespace bxisim::portals
