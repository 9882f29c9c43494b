#include "SimulatorCall.hpp"

#include "RankHeap.hpp"
#include "ThreadLocals.hpp"
#include "runtime/launch/OutputRouter.hpp"
#include "runtime/launch/Rank.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <atomic>

namespace bxisim::os
{

namespace
{
// thread_local: threads a rank creates, and the simulator's own threads, are never "a rank's code".
// With SimGrid's default contexts every actor shares the maestro thread, which is why the pointer
// is saved in each SimulatorCall (on the actor's own stack) and restored when the call returns.
thread_local runtime::Rank* running = nullptr;
std::atomic<const ClockHooks*> hooks{nullptr};

std::atomic<runtime::Rank*> in_code{nullptr};
std::atomic<runtime::Rank*> last_in_code{nullptr};
std::atomic<unsigned long> transitions{0};
std::atomic<unsigned long> transitions_by_calls{0};
std::atomic<void (*)()> hold{nullptr};

// The simulation thread is the only writer of these (the supervisor's thread and signal handlers only read):
// plain loads and stores, no locked read-modify-write, which cost tens of ns at each of the two transitions of
// every simulator call.
void count(std::atomic<unsigned long>& counter)
{
  counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

/** Who runs now, and so which heap malloc() uses. */
void set_running(runtime::Rank* rank)
{
  running = rank;
  select_heap(rank != nullptr ? rank->heap() : nullptr);
}

/** What the rank's code finds as it resumes: its libc globals, the resuming thread's thread-local variables. */
void resume_process_state(runtime::Rank& rank)
{
  rank.process_state().restore_globals();
  install_thread_locals(rank);
}

void note_transition(runtime::Rank* rank)
{
  runtime::Rank* previous = in_code.load(std::memory_order_relaxed);
  in_code.store(rank, std::memory_order_relaxed);
  if (rank != nullptr)
    last_in_code.store(rank, std::memory_order_relaxed);
  count(transitions);
  if (runtime::Rank* moving = rank != nullptr ? rank : previous; moving == nullptr || not moving->preempted())
    count(transitions_by_calls);
  if (rank == nullptr)
    if (auto* hold_here = hold.load(std::memory_order_acquire))
      hold_here();
}
} // namespace

void set_clock_hooks(const ClockHooks* new_hooks)
{
  hooks.store(new_hooks, std::memory_order_relaxed);
}

const ClockHooks* clock_hooks()
{
  return hooks.load(std::memory_order_relaxed); // the supervisor's thread reads it too
}

runtime::Rank* rank_in_code()
{
  return in_code.load(std::memory_order_relaxed);
}

runtime::Rank* last_rank_in_code()
{
  return last_in_code.load(std::memory_order_relaxed);
}

unsigned long simulator_transitions()
{
  return transitions.load(std::memory_order_relaxed);
}

unsigned long call_transitions()
{
  return transitions_by_calls.load(std::memory_order_relaxed);
}

void hold_at_next_call(void (*hold_function)())
{
  hold.store(hold_function, std::memory_order_release);
}

runtime::Rank* running_rank()
{
  return running;
}

void set_running_rank(runtime::Rank* rank)
{
  set_running(rank);
  note_transition(rank);
}

void enter_rank_code(runtime::Rank& rank)
{
  runtime::OutputRouter::switch_to(rank.index());
  resume_process_state(rank);
  set_running_rank(&rank);
  rank.start_burst();
}

void leave_rank_code(runtime::Rank& rank)
{
  double burst = rank.end_burst(); // first: what comes after is the simulator's
  set_running_rank(nullptr);
  rank.process_state().save_globals();
  rank.simulate_burst(burst);
}

void enter_program_code_in_call(runtime::Rank& rank)
{
  runtime::OutputRouter::switch_to(rank.index());
  resume_process_state(rank);
  select_heap(rank.heap());
}

void leave_program_code_in_call(runtime::Rank& rank)
{
  select_heap(nullptr);
  rank.process_state().save_globals();
}

SimulatorCall::SimulatorCall() : rank_(running)
{
  if (rank_ == nullptr)
    return;
  // The burst ends first: the bookkeeping below is the simulator's, not the program's computation.
  burst_ = rank_->take_burst(at_edge_);
  set_running(nullptr);
  note_transition(nullptr);
  rank_->note_simulator_call(simgrid::s4u::Engine::get_clock());
  rank_->process_state().save_globals(); // another rank may run before this call returns
  burst_simulated_ = rank_->simulate_burst(burst_);
}

SimulatorCall::~SimulatorCall()
{
  if (rank_ == nullptr)
    return;
  runtime::OutputRouter::switch_to(rank_->index());
  rank_->note_simulator_call(simgrid::s4u::Engine::get_clock()); // back in its own code since then
  resume_process_state(*rank_);
  set_running(rank_);
  note_transition(rank_);
  if (at_edge_)
    rank_->defer_burst_start(); // at the call's exit edge, after the rest of the entry point
  else
    rank_->start_burst(); // last: the rank's burst starts as the call returns to its code
}

void enter_call_edge()
{
  if (running != nullptr) {
    running->end_burst_at_edge();
    select_heap(nullptr); // the entry point's own bookkeeping (its call scope) is the simulator's
  }
}

void leave_call_edge()
{
  if (running == nullptr)
    return;
  select_heap(running->heap());
  if (running->take_deferred_start())
    running->start_burst();
}

} // namespace bxisim::os
