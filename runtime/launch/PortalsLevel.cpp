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
                           const std::string& trace_folder, const std::string& vcd_file, const std::string& vcd_signals)
    : machine_(machine), ranks_(ranks), parameters_(parameters), vcd_file_(vcd_file), vcd_signals_(vcd_signals)
{
  if (level == "smpi")
    throw config::ConfigError(fmt::format("--level {}: this accuracy level is not available yet in this version of "
                                          "bxisim; use --level message or cycle.",
                                          level));
  if (level != "message" && level != "cycle")
    throw config::ConfigError(fmt::format(
        "--level '{}': unknown level; the levels are smpi, message and cycle (message and cycle are available).",
        level));
  if (not machine.has_node_model())
    throw config::ConfigError(fmt::format("--level {} needs the node model (a NIC per node), which SimGrid XML "
                                          "platforms do not have: use --platform fat-tree, single-switch or "
                                          "two-switches.",
                                          level));
  if (not vcd_file.empty() && level != "cycle")
    throw config::ConfigError("--vcd traces signals of the cycle NIC model: add --level cycle.");
  for (const auto& rank : ranks_) {
    const auto& placement = rank->placement();
    core_of_address_[{static_cast<ptl_nid_t>(placement.node), static_cast<ptl_pid_t>(placement.local_rank)}] =
        rank->host();
  }
  if (not trace_folder.empty())
    trace_ = hw::OperationTrace::open(trace_folder);
  enable_level(level);
  switch_level(level);

  auto& core = portals::Core::instance();
  core.setContextProvider([this] { return context_of_caller(); });
  core.setCallScope([] { return std::make_shared<os::SimulatorCall>(); });
}

hw::message::ProcessDirectory PortalsLevel::message_directory()
{
  return {[this](uint32_t id) { return ranks_.at(id)->host(); },
          [this](ptl_nid_t nid, ptl_pid_t pid) {
            auto it = core_of_address_.find({nid, pid});
            // A pid no rank has (a program choosing its own pids): the node's first core stands for it.
            return it != core_of_address_.end() ? it->second : machine_.core(static_cast<int>(nid), 0);
          }};
}

void PortalsLevel::enable_level(const std::string& level)
{
  if (level == "message" && not message_) {
    message_ = std::make_unique<hw::message::MessageNicModel>(
        machine_, hw::message::MessageNicConfig::from_parameters(parameters_), message_directory());
    message_->set_trace(trace_.get());
  } else if (level == "cycle" && not cycle_) {
    auto directory = message_directory();
    cycle_         = std::make_unique<hw::cycle::CycleNicModel>(
        machine_, parameters_, hw::cycle::ProcessDirectory{directory.core_of_process, directory.core_of_address},
        vcd_file_, vcd_signals_);
  }
}

void PortalsLevel::switch_level(const std::string& level)
{
  portals::NicModel* next = level == "cycle" ? static_cast<portals::NicModel*>(cycle_.get()) : message_.get();
  if (next == nullptr)
    throw std::logic_error("PortalsLevel::switch_level to a level whose model was not built (enable_level first)");
  current_ = next;
}

void PortalsLevel::start_current()
{
  if (current_ == message_.get() && not message_started_) {
    message_started_ = true;
    message_->start();
  } else if (current_ == cycle_.get()) {
    cycle_->start(); // once
  }
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
  start_current();
  const Rank& rank = *it->second;
  portals::ProcessContext context;
  context.id        = static_cast<uint32_t>(rank.index());
  context.nid       = static_cast<ptl_nid_t>(rank.placement().node);
  context.localRank = static_cast<ptl_pid_t>(rank.placement().local_rank);
  context.uid       = static_cast<ptl_uid_t>(getuid());
  context.nic       = current_;
  return context;
}

void PortalsLevel::finish()
{
  if (message_)
    message_->flush_trace();
  trace_.reset();
  if (cycle_)
    cycle_->check();
}

} // namespace bxisim::runtime
