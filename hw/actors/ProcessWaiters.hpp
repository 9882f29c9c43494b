#pragma once
// How the ranks' processes wait on a NIC model, at both levels: a blocking Portals call sleeps until an
// event of its process (or a timeout), an empty poll sleeps a growing delay ended early by such an event,
// and a process posting more commands than its command queue holds waits for a slot.

#include "hw/actors/PollBackoff.hpp"
#include "hw/actors/WaitQueue.hpp"
#include "portals/core/NicModel.hpp"

#include <simgrid/s4u/Semaphore.hpp>

#include <cstdint>
#include <map>

namespace bxisim::hw
{

class ProcessWaiters
{
 public:
  ProcessWaiters(unsigned command_slots, PollBackoff poll_backoff)
      : command_slots_(command_slots), poll_backoff_(poll_backoff)
  {
  }

  /** Sleeps until notify() for this process or `timeout` seconds (infinity: no timeout). */
  portals::WaitStatus wait(uint32_t process_id, double timeout);
  /** An event of the process: its wait ends, and its next empty poll sleeps the shortest delay again. */
  void notify(uint32_t process_id);
  /** An empty poll: blocks until the next event, or sleeps the next delay of the back-off. */
  void polled(uint32_t process_id, portals::PollAction action);

  /**
   * A command of the process enters its queue; the caller waits while the queue is full. Returns whether
   * it had to (a stall, for the NIC's statistics).
   */
  bool take_command_slot(uint32_t process_id);
  /** The NIC took a command of the process out of its queue. */
  void release_command_slot(uint32_t process_id);

 private:
  struct Waiter {
    WaitQueue blocked; // its threads in wait() (a rank's threads may wait at once)
    simgrid::s4u::SemaphorePtr command_slots;
    double poll_delay = 0.0; // grows while a process polls in vain, back to 0 on an event
  };
  Waiter& waiter(uint32_t process_id);

  unsigned command_slots_;
  PollBackoff poll_backoff_;
  std::map<uint32_t, Waiter> waiters_;
};

} // namespace bxisim::hw
