#pragma once
// The Portals side of `bxisim run`: which NIC model carries the ranks' Portals operations, and who
// is calling. Ranks find portals4.h's functions in the bxisim executable; every call tells the
// semantics layer (portals/core) which rank makes it, and opens a SimulatorCall so that the time
// spent in the simulator is not counted as the rank's computation.
//
// Addressing convention (docs/running.md): a rank's physical id is nid = its node's index and, for
// PTL_PID_ANY, pid = its local rank on the node.

#include "Rank.hpp"

#include "hw/message/MessageNicModel.hpp"
#include "hw/trace/OperationTrace.hpp"
#include "platforms/Machine.hpp"
#include "runtime/config/Parameters.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace bxisim::runtime
{

class PortalsLevel
{
 public:
  /** Checks `level` (only "message" exists so far) and the nic.* parameters; nothing starts yet. */
  PortalsLevel(const std::string& level, const platform::Machine& machine,
               const std::vector<std::unique_ptr<Rank>>& ranks, const config::Parameters& parameters,
               const std::string& trace_folder);
  ~PortalsLevel();

  /** Rank `rank` runs in the actor `actor_pid`. */
  void register_rank_actor(long actor_pid, const Rank& rank);
  /** Rank `rank` has ended (main returned, exit): its Portals state goes, in its own actor. */
  void rank_ended(const Rank& rank);
  /** After the run: completes the trace. */
  void finish();
  /** Polling policy: see hw::message::MessageNicModel::set_poll_blocking. */
  void set_poll_blocking(std::function<bool(uint32_t)> may_block) { model_->set_poll_blocking(std::move(may_block)); }

 private:
  portals::ProcessContext context_of_caller();

  const platform::Machine& machine_;
  const std::vector<std::unique_ptr<Rank>>& ranks_;
  std::map<long, const Rank*> rank_of_actor_;
  std::map<std::pair<ptl_nid_t, ptl_pid_t>, simgrid::s4u::Host*> core_of_address_;
  std::unique_ptr<hw::OperationTrace> trace_;
  std::unique_ptr<hw::message::MessageNicModel> model_;
  bool started_ = false; // NIC actors start with the first Portals call: programs without Portals pay nothing
};

} // namespace bxisim::runtime
