/* A counting event (PtlCTAlloc) and the triggered operations waiting on it. */
#ifndef BXISIM_PORTALS_COUNTING_EVENT_HPP
#define BXISIM_PORTALS_COUNTING_EVENT_HPP

#include <portals4.h>

#include <cstdint>
#include <functional>
#include <map>

namespace bxisim::portals
{

class CountingEvent
{
 public:
  using Action = std::function<void()>;

  CountingEvent(ptl_handle_ni_t ni, uint32_t owner) : ni_(ni), owner_(owner) {}

  ptl_handle_ni_t ni() const { return ni_; }
  uint32_t owner() const { return owner_; }
  const ptl_ct_event_t& value() const { return value_; }
  void set(ptl_ct_event_t v) { value_ = v; }
  void add(ptl_ct_event_t inc)
  {
    value_.success += inc.success;
    value_.failure += inc.failure;
  }
  /* Whether a wait for `test` is over: success reached it, or a failure was counted. */
  bool reached(ptl_size_t test) const { return value_.success >= test || value_.failure > 0; }

  /* Triggered operations, in threshold order (insertion order among equal thresholds). */
  void add_triggered(ptl_size_t threshold, Action action) { triggered_.emplace(threshold, std::move(action)); }
  size_t pending_triggered() const { return triggered_.size(); }
  /* Removes and returns the first triggered operation whose threshold is reached, or an empty Action. */
  Action pop_ready();
  /* Discards every pending triggered operation; returns how many. */
  size_t cancel_triggered();

 private:
  ptl_handle_ni_t ni_;
  uint32_t owner_;
  ptl_ct_event_t value_{0, 0};
  std::multimap<ptl_size_t, Action> triggered_;
};

} // namespace bxisim::portals

#endif
