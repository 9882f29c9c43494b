#pragma once
// The Portals side of `bxisim run`: which NIC model carries the ranks' Portals operations, and who
// is calling. Ranks find portals4.h's functions in the bxisim executable; every call tells the
// semantics layer (portals/core) which rank makes it, and opens a SimulatorCall so that the time
// spent in the simulator is not counted as the rank's computation.
//
// Addressing convention (docs/running.md): a rank's physical id is nid = its node's index and, for
// PTL_PID_ANY, pid = 1 + its local rank on the node (kFirstPid).

#include "Rank.hpp"

#include "config/Parameters.hpp"
#include "hw/cycle/CycleNic.hpp"
#include "hw/message/MessageNicModel.hpp"
#include "hw/trace/OperationTrace.hpp"
#include "platforms/Machine.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace bxisim::runtime
{

class PortalsLevel
{
 public:
  /** The Portals pid of a rank whose NI asks for PTL_PID_ANY: its local rank plus this. Not 0: OpenMPI's
   * coll/portals4 takes pid 0 for the MTL's logical addressing and leaves the communicator, so with pid =
   * local rank the first rank of each node ran other collective algorithms than its neighbours. */
  static constexpr ptl_pid_t kFirstPid = 1;
  static ptl_pid_t pid_of(const Rank& rank) { return kFirstPid + static_cast<ptl_pid_t>(rank.placement().local_rank); }

  /** Checks `level` (message or cycle) and the nic.* (and cycle.*) parameters; builds the level's NIC
   * model (the cycle model elaborates SystemC here, before the run); nothing starts yet. `vcd_file`
   * (cycle level): a VCD of the NIC signals whose names contain `vcd_signals`. */
  PortalsLevel(const std::string& level, const platform::Machine& machine,
               const std::vector<std::unique_ptr<Rank>>& ranks, const config::Parameters& parameters,
               const std::string& trace_folder, const std::string& vcd_file = "", const std::string& vcd_signals = "");
  ~PortalsLevel();

  /** Rank `rank` runs in the actor `actor_pid`. */
  void register_rank_actor(long actor_pid, const Rank& rank);
  /** Rank `rank` has ended (main returned, exit): its Portals state goes, in its own actor. */
  void rank_ended(const Rank& rank);
  /** After the run: completes the trace; rethrows an error the cycle model raised. */
  void finish();
  /** Polling policy of both NIC models: see portals::Core::set_poll_blocking. */
  void set_poll_blocking(std::function<bool(uint32_t)> may_block);
  /** Prints the counters of the NIC models that ran on stderr ("bxisim: nic ..." lines). */
  void print_statistics() const;
  /** The same counters, per NIC model that ran, by name (for the run summary). */
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> statistics() const;
  /** Hands every NIC transfer of the S4BXI trace to `observer` too, and what the NICs' stages did to
   * `stage` and `counter` (both levels; the timeline). */
  void observe_operations(hw::OperationTrace::Observer observer, hw::OperationTrace::StageObserver stage = nullptr,
                          hw::OperationTrace::CounterObserver counter = nullptr);
  /** The NIC model new Portals commands go to ("message" or "cycle"). Switching keeps all Portals
   * state (it lives in portals/core); operations in flight finish in the model that started them.
   * Both models must have been built (the constructor builds the start level's; `enable_level`
   * builds the other before the run). */
  void switch_level(const std::string& level);
  void enable_level(const std::string& level);
  const char* level() const { return current_->name(); }
  /** Why the run was stopped because the network lost a frame that nothing sends again (E2E off);
   * empty when it was not. */
  const std::string& lost_for_good() const { return lost_for_good_; }

 private:
  portals::ProcessContext context_of_caller();

  const platform::Machine& machine_;
  const std::vector<std::unique_ptr<Rank>>& ranks_;
  std::vector<const Rank*> rank_of_actor_; // by actor pid (small numbers): every Portals call looks itself up
  std::map<std::pair<ptl_nid_t, ptl_pid_t>, simgrid::s4u::Host*> core_of_address_;
  std::unique_ptr<hw::OperationTrace> trace_;
  void start_current();

  const config::Parameters& parameters_;
  hw::message::ProcessDirectory message_directory();
  std::string vcd_file_, vcd_signals_;
  std::unique_ptr<hw::message::MessageNicModel> message_;
  std::unique_ptr<hw::cycle::CycleNic> cycle_; // from the plugin (CyclePlugin.hpp)
  std::string lost_for_good_;
  void stop_on_lost_frame(const std::string& why);
  portals::NicModel* current_ = nullptr;
  bool started_               = false; // a Portals call was made: ranks' ends finalize their Portals state
  bool message_started_ = false; // NIC actors start with the first Portals call: programs without Portals pay nothing
};

} // namespace bxisim::runtime
