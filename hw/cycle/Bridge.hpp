#pragma once
// The SimGrid <-> SystemC bridge (DESIGN.md section 4). One SystemC kernel holds every NIC; a daemon
// SimGrid actor owns it and SimGrid is the master clock. Each round:
//   1. catch SystemC up with SimGrid's clock and run the deltas at that time;
//   2. inject the inputs SimGrid actors submitted (commands, arriving frames, finished reads) and
//      settle the deltas again;
//   3. drain SystemC's outbox into SimGrid operations and calls of the Portals semantics;
//   4. sleep until SystemC's next timed event, or until an actor submits an input.
// SystemC processes never call SimGrid. An error inside SystemC (SC_REPORT_ERROR, sc_stop) ends the
// simulation: the exception is kept and rethrown after Engine::run.

#include <simgrid/s4u/Semaphore.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

namespace bxisim::hw::cycle
{

class Bridge
{
 public:
  explicit Bridge(std::function<void()> drain);

  /** Called by any SimGrid actor (never by a SystemC process): `input` runs at the current simulated
   * time, between two sc_start()s. No simcall unless the bridge sleeps. */
  void submit(std::function<void()> input);

  /** Body of the daemon actor. Returns only when SystemC stopped or failed (then kills every actor). */
  void run();

  /** The error SystemC raised, if any (rethrow it after Engine::run). */
  std::exception_ptr error() const { return error_; }
  bool systemc_stopped() const { return systemc_stopped_; }
  uint64_t rounds() const { return rounds_; }

 private:
  bool systemc_part();
  void settle();

  std::function<void()> drain_;
  std::vector<std::function<void()>> pending_;
  simgrid::s4u::SemaphorePtr wake_;
  bool sleeping_ = false;
  std::exception_ptr error_;
  bool systemc_stopped_ = false;
  uint64_t rounds_      = 0;
};

} // namespace bxisim::hw::cycle
