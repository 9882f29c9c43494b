#include "PortalsLevel.hpp"

#include "runtime/config/ConfigError.hpp"
#include "runtime/os/SimulatorCall.hpp"

#include "portals/core/Core.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <fmt/format.h>

#include <stdexcept>
#include <unistd.h>

namespace bxisim::runtime
{

PortalsLevel::PortalsLevel(const std::string& level, const platform::Machine& machine,
                           const std::vector<std::unique_ptr<Rank>>& ranks, const config::Parameters& parameters,
                           const std::string& trace_folder)
    : machine_(machine), ranks_(ranks)
{
  if (level == "cycle")
    throw config::ConfigError(fmt::format("--level {}: this accuracy level is not available yet in this version of "
                                          "bxisim; use --level message (or smpi for MPI programs).",
                                          level));
  if (level != "message")
    throw config::ConfigError(fmt::format(
        "--level '{}': unknown level; the levels are smpi, message and cycle (smpi and message are available).",
        level));
  if (not machine.has_node_model())
    throw config::ConfigError("--level message needs the node model (a NIC per node), which SimGrid XML platforms do "
                              "not have: use --platform fat-tree, single-switch or two-switches.");
  for (const auto& rank : ranks_) {
    const auto& placement = rank->placement();
    core_of_address_[{static_cast<ptl_nid_t>(placement.node), static_cast<ptl_pid_t>(placement.local_rank)}] =
        rank->host();
  }
  if (not trace_folder.empty())
    trace_ = hw::OperationTrace::open(trace_folder);

  hw::message::ProcessDirectory directory{[this](uint32_t id) { return ranks_.at(id)->host(); },
                                          [this](ptl_nid_t nid, ptl_pid_t pid) {
                                            auto it = core_of_address_.find({nid, pid});
                                            // A pid no rank has (a program choosing its own pids): the node's first
                                            // core stands for it.
                                            return it != core_of_address_.end()
                                                       ? it->second
                                                       : machine_.core(static_cast<int>(nid), 0);
                                          }};
  model_ = std::make_unique<hw::message::MessageNicModel>(
      machine, hw::message::MessageNicConfig::from_parameters(parameters), std::move(directory));
  model_->set_trace(trace_.get());

  auto& core = portals::Core::instance();
  core.setContextProvider([this] { return context_of_caller(); });
  core.setCallScope([] { return std::make_shared<os::SimulatorCall>(); });
}

PortalsLevel::~PortalsLevel()
{
  auto& core = portals::Core::instance();
  core.setContextProvider(nullptr);
  core.setCallScope(nullptr);
}

void PortalsLevel::register_rank_actor(long actor_pid, const Rank& rank)
{
  rank_of_actor_[actor_pid] = &rank;
}

portals::ProcessContext PortalsLevel::context_of_caller()
{
  auto it = rank_of_actor_.find(simgrid::s4u::this_actor::get_pid());
  if (it == rank_of_actor_.end())
    throw std::logic_error("a Portals function was called outside the main thread of a rank; bxisim runs Portals "
                           "calls of ranks only");
  if (not started_) {
    started_ = true;
    model_->start();
  }
  const Rank& rank = *it->second;
  portals::ProcessContext context;
  context.id        = static_cast<uint32_t>(rank.index());
  context.nid       = static_cast<ptl_nid_t>(rank.placement().node);
  context.localRank = static_cast<ptl_pid_t>(rank.placement().local_rank);
  context.uid       = static_cast<ptl_uid_t>(getuid());
  context.nic       = model_.get();
  return context;
}

void PortalsLevel::finish()
{
  model_->flush_trace();
  trace_.reset();
}

} // namespace bxisim::runtime
