/* An event queue (PtlEQAlloc). Events that find it full are dropped; the PtlEQGet that returns the first
 * event posted after them returns PTL_EQ_DROPPED (as the spec words it: events were lost between this
 * one and the previous one obtained). One extra slot is kept for PTL_EVENT_PT_DISABLED,
 * so that flow control can always tell the target that it disabled a portal table entry. */
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
  bool hasRoomFor(ptl_size_t n) const { return events_.size() + n <= capacity_; }
  /* Appends an event; returns false (and remembers the drop) when it does not fit. PT_DISABLED events
   * may use the reserved slot. */
  bool post(const ptl_event_t& ev);
  /* PTL_OK, PTL_EQ_DROPPED (an event is returned too) or PTL_EQ_EMPTY. */
  int get(ptl_event_t* ev);
  bool empty() const { return events_.empty(); }

 private:
  ptl_handle_ni_t ni_;
  uint32_t owner_;
  ptl_size_t capacity_;
  struct Entry {
    ptl_event_t event;
    bool afterDrop; // events were dropped just before this one
  };
  std::deque<Entry> events_;
  bool dropped_ = false;
};

} // namespace bxisim::portals

#endif
