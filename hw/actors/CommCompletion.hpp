#pragma once
// Completion of SimGrid communications, including those nobody waits for.
//
// Both NIC models take a wire frame in when its transfer ends (a frame must not wait behind a longer
// one another NIC posted earlier: WireLanes.hpp), and the run's summary counts every communication. SimGrid 3.32's
// public completion signal, s4u::Activity::on_completion, fires only when an actor waits for or tests
// the activity, so it never fires for detached transfers. The kernel's own signal,
// kernel::activity::CommImpl::on_completion, fires for every communication when its network action
// ends (SimGrid's link-load and link-energy plugins use it); its class is not in SimGrid's installed
// headers, so the exported variable is named by its symbol. Callbacks run in the maestro, between
// two scheduling rounds: they may release semaphores, never block.

#include <simgrid/forward.h>
#include <simgrid/s4u/Comm.hpp>
#include <xbt/signal.hpp>

#include <functional>

namespace bxisim::hw
{

/** Calls `callback` with the kernel object of every SimGrid communication that ends (any, detached
 * or not; compare with `kernel_of`). Returns an id for `stop_watching_completions`. */
unsigned watch_completions(std::function<void(const void* kernel_comm)> callback);
void stop_watching_completions(unsigned id);

/** The kernel object that `watch_completions` reports for `comm` (valid once the comm started). */
inline const void* kernel_of(const simgrid::s4u::Comm& comm)
{
  return comm.get_impl();
}

} // namespace bxisim::hw
