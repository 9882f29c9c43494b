#include "SimulatorCall.hpp"

#include "runtime/launch/OutputRouter.hpp"
#include "runtime/launch/Rank.hpp"

namespace bxisim::os
{

namespace
{
// thread_local: threads a rank creates, and the simulator's own threads, are never "a rank's code".
// With SimGrid's default contexts every actor shares the maestro thread, which is why the pointer
// is saved in each SimulatorCall (on the actor's own stack) and restored when the call returns.
thread_local runtime::Rank* running = nullptr;
const ClockHooks* hooks             = nullptr;
} // namespace

void set_clock_hooks(const ClockHooks* new_hooks)
{
  hooks = new_hooks;
}

const ClockHooks* clock_hooks()
{
  return hooks;
}

runtime::Rank* running_rank()
{
  return running;
}

void set_running_rank(runtime::Rank* rank)
{
  running = rank;
}

SimulatorCall::SimulatorCall() : rank_(running)
{
  if (rank_ == nullptr)
    return;
  running          = nullptr;
  burst_           = rank_->end_burst();
  burst_simulated_ = rank_->simulate_burst(burst_);
}

SimulatorCall::~SimulatorCall()
{
  if (rank_ == nullptr)
    return;
  runtime::OutputRouter::switch_to(rank_->index());
  rank_->start_burst();
  running = rank_;
}

} // namespace bxisim::os
