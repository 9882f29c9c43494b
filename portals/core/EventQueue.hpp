/* An event queue (PtlEQAlloc). It is circular, as the spec says (PtlEQAlloc) and the reference
 * implementation does: an event that finds it full overwrites the oldest one, and the next PtlEQGet
 * (PtlEQWait, PtlEQPoll) returns the oldest event left with PTL_EQ_DROPPED, meaning that events between
 * the previous one obtained and this one were lost. One extra slot is kept for PTL_EVENT_PT_DISABLED, so
 * that flow control can always tell the target that it disabled a portal table entry (flow control
 * disables the PT before the queue would overflow, so nothing is lost then). */
#ifndef BXISIM_PORTALS_EVENT_QUEUE_HPP
#define BXISIM_PORTALS_EVENT_QUEUE_HPP

#include <portals4.h>

#include <cstdint>
#include <deque>

namespace bxisim::portals
{

class EventQueue
{
 public:
  EventQueue(ptl_handle_ni_t ni, uint32_t owner, ptl_size_t count) : ni_(ni), owner_(owner), capacity_(count) {}

  ptl_handle_ni_t ni() const { return ni_; }
  uint32_t owner() const { return owner_; }
  /* Whether `n` more ordinary events fit. */
  bool has_room_for(ptl_size_t n) const { return events_.size() + n <= capacity_; }
  /* Appends an event; when the queue is full, the oldest event is dropped (and the drop remembered) and
   * false is returned. PT_DISABLED events may use the reserved slot. */
  bool post(const ptl_event_t& ev);
  /* PTL_OK, PTL_EQ_DROPPED (an event is returned too) or PTL_EQ_EMPTY. */
  int get(ptl_event_t* ev);
  bool empty() const { return events_.empty(); }

 private:
  ptl_handle_ni_t ni_;
  uint32_t owner_;
  ptl_size_t capacity_;
  std::deque<ptl_event_t> events_;
  bool dropped_ = false; // events were dropped since the last one obtained
};

} // namespace bxisim::portals

#endif
