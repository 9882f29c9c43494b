#include "ProcessWaiters.hpp"

#include <limits>

namespace bxisim::hw
{

ProcessWaiters::Waiter& ProcessWaiters::waiter(uint32_t process_id)
{
  auto it = waiters_.find(process_id);
  if (it == waiters_.end()) {
    it = waiters_.emplace(process_id, Waiter{WaitQueue(), simgrid::s4u::Semaphore::create(command_slots_)}).first;
  }
  return it->second;
}

portals::WaitStatus ProcessWaiters::wait(uint32_t process_id, double timeout)
{
  return waiter(process_id).blocked.wait(timeout) ? portals::WaitStatus::timeout : portals::WaitStatus::woken;
}

void ProcessWaiters::notify(uint32_t process_id)
{
  auto it = waiters_.find(process_id);
  if (it == waiters_.end())
    return;
  Waiter& waiting    = it->second;
  waiting.poll_delay = 0.0;
  waiting.blocked.wake_all();
}

void ProcessWaiters::polled(uint32_t process_id, portals::PollAction action)
{
  // A polling loop must let simulated time advance, and see an event soon after it comes: block until
  // it (where Core found that exact), else wait a little, longer each time nothing comes (DESIGN.md
  // section 5, "Polling"), woken early by an event of the process: a Portals event is seen when it
  // comes; only what Portals does not announce (a clock the loop reads, shared memory) waits the delay.
  if (action == portals::PollAction::block) {
    wait(process_id, std::numeric_limits<double>::infinity());
    return;
  }
  Waiter& polling    = waiter(process_id);
  polling.poll_delay = poll_backoff_.next(polling.poll_delay);
  wait(process_id, polling.poll_delay);
}

bool ProcessWaiters::take_command_slot(uint32_t process_id)
{
  simgrid::s4u::Semaphore& slots = *waiter(process_id).command_slots;
  bool stalls                    = slots.would_block();
  slots.acquire();
  return stalls;
}

void ProcessWaiters::release_command_slot(uint32_t process_id)
{
  waiter(process_id).command_slots->release();
}

} // namespace bxisim::hw
