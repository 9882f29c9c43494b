#include "Bridge.hpp"

#include "CycleNicConfig.hpp"
#include "hw/actors/StackShadow.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <systemc>
#include <xbt/asserts.h>
#include <xbt/log.h>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_nic_cycle);
XBT_LOG_DEFAULT_CATEGORY(bxisim_nic_cycle);

namespace bxisim::hw::cycle
{

namespace
{
// How deep the SystemC kernel, the stages' methods and the Portals inputs go below Bridge::run, with margin.
constexpr uintptr_t kDeadFramesDepth = 256 * 1024;

bool systemc_ended()
{
  return (sc_core::sc_get_status() & (sc_core::SC_STOPPED | sc_core::SC_END_OF_SIMULATION)) != 0;
}
} // namespace

Bridge::Bridge(std::function<void()> drain) : drain_(std::move(drain)), wake_(simgrid::s4u::Semaphore::create(0)) {}

void Bridge::submit(std::function<void()> input)
{
  pending_.push_back(std::move(input));
  if (sleeping_) {
    sleeping_ = false;
    wake_->release();
  }
}

void Bridge::settle()
{
  // sc_start(SC_ZERO_TIME) runs exactly one delta cycle.
  while (not systemc_ended() && sc_core::sc_pending_activity_at_current_time())
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

bool Bridge::systemc_part()
{
  try {
    sc_core::sc_time target = to_sc_time(simgrid::s4u::Engine::get_clock());
    sc_core::sc_time now    = sc_core::sc_time_stamp();
    xbt_assert(target >= now, "SystemC (%s) is ahead of SimGrid", now.to_string().c_str());
    if (target > now)
      sc_core::sc_start(target - now); // leaves SystemC at `target`, its processes there made runnable
    settle();
    while (not pending_.empty()) {
      std::vector<std::function<void()>> inputs;
      inputs.swap(pending_);
      for (auto& input : inputs)
        input();
      settle();
    }
  } catch (...) {
    error_ = std::current_exception();
    return false;
  }
  systemc_stopped_ = systemc_ended();
  return not systemc_stopped_;
}

void Bridge::run()
{
  const ActorStack stack = actor_stack_from(__builtin_frame_address(0));
  forget_all_frames_at_exit(stack);
  for (;;) {
    // SystemC and the Portals inputs run below this frame; whatever they left there is dead (ASan only)
    forget_frames_below_caller(stack, kDeadFramesDepth);
    ++rounds_;
    if (not systemc_part())
      break;
    drain_(); // may simcall: other actors run and submit meanwhile
    if (not pending_.empty() || sc_core::sc_pending_activity_at_current_time())
      continue;
    sleeping_ = true;
    if (sc_core::sc_pending_activity_at_future_time())
      wake_->acquire_timeout(to_seconds(sc_core::sc_time_to_pending_activity()));
    else
      wake_->acquire();
    sleeping_ = false;
  }
  if (error_)
    XBT_ERROR("the SystemC NIC model failed; the simulation stops");
  simgrid::s4u::Actor::kill_all();
}

} // namespace bxisim::hw::cycle
