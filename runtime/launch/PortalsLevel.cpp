#include "PortalsLevel.hpp"

#include "CrashReport.hpp"
#include "CyclePlugin.hpp"
#include "LibraryThreadCall.hpp"
#include "OutputRouter.hpp"

#include "config/ConfigError.hpp"
#include "runtime/os/KilledRankTermination.hpp"
#include "runtime/os/SimulatorCall.hpp"
#include "runtime/os/SimulatorDescriptors.hpp"
#include "runtime/os/ThreadInterposition.hpp"
#include "runtime/results/RunRecorder.hpp"

#include "portals/core/Core.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace bxisim::runtime
{

namespace
{
/** A Portals call of a rank: a simulator call that names itself as what the rank waits for until it returns. */
class PortalsCall : public os::SimulatorCall
{
 public:
  ~PortalsCall()
  {
    if (rank() != nullptr)
      rank()->set_waiting_for(nullptr);
    if (recorded != nullptr && rank() != nullptr && RunRecorder::current() != nullptr) {
      double end = simgrid::s4u::Engine::get_clock();
      // Calls that take no simulated time are invisible on a timeline, except the data movements.
      if (end > start || not arguments.empty())
        RunRecorder::current()->call(rank()->index(), os::running_simulated_thread(), "portals", recorded, start, end,
                                     arguments);
    }
  }
  const char* recorded = nullptr; // the function's name, when the run has a timeline
  double start         = 0.0;
  std::string arguments; // data movements only: PtlPut(md, size, target, ...)
};

bool moves_data(const char* function)
{
  static const std::set<std::string, std::less<>> kDataMovements = {
      "PtlPut",          "PtlGet",          "PtlAtomic",          "PtlFetchAtomic",          "PtlSwap",
      "PtlTriggeredPut", "PtlTriggeredGet", "PtlTriggeredAtomic", "PtlTriggeredFetchAtomic", "PtlTriggeredSwap"};
  return kDataMovements.count(std::string_view(function)) != 0;
}
} // namespace

PortalsLevel::PortalsLevel(const std::string& level, const platform::Machine& machine,
                           const std::vector<std::unique_ptr<Rank>>& ranks, const config::Parameters& parameters,
                           const std::string& trace_folder, const std::string& vcd_file, const std::string& vcd_signals)
    : machine_(machine), ranks_(ranks), parameters_(parameters), vcd_file_(vcd_file), vcd_signals_(vcd_signals)
{
  if (level != "message" && level != "cycle")
    throw config::ConfigError(fmt::format(
        "--level '{}': unknown level; the levels are smpi, message and cycle (smpi runs without a NIC model).", level));
  if (not machine.has_node_model())
    throw config::ConfigError(fmt::format("--level {} needs the node model (a NIC per node), which SimGrid XML "
                                          "platforms do not have: use --platform fat-tree, single-switch or "
                                          "two-switches.",
                                          level));
  if (not vcd_file.empty() && level != "cycle")
    throw config::ConfigError("--vcd traces signals of the cycle NIC model: add --level cycle.");
  for (const auto& rank : ranks_) {
    if (pid_of(*rank) >= PTL_PID_MAX) // each rank of a node is a Portals process of its own
      throw config::ConfigError(fmt::format(
          "{} ranks on one node: Portals 4 numbers a node's processes below PTL_PID_MAX ({}), so at most {} ranks per "
          "node run at --level {}; give --ppn {} or less (a larger platform), or --level smpi.",
          rank->placement().local_size, PTL_PID_MAX, PTL_PID_MAX - kFirstPid, level, PTL_PID_MAX - kFirstPid));
    core_of_address_[{static_cast<ptl_nid_t>(rank->placement().node), pid_of(*rank)}] = rank->host();
  }
  if (not trace_folder.empty())
    trace_ =
        hw::OperationTrace::open(trace_folder, [](const char* path) { return os::open_simulator_file(path, "w"); });
  enable_level(level);
  switch_level(level);

  auto& core = portals::Core::instance();
  portals::Core::set_call_edges({&os::enter_call_edge, &os::leave_call_edge});
  core.set_context_provider([this] { return context_of_caller(); });
  core.set_call_scope([](const char* function, const portals::Core::CallArguments& arguments) {
    auto call = std::make_shared<PortalsCall>();
    // What the deadlock report says while the rank blocks in this call. Two pointers, so that
    // std::function keeps them without allocating (every Portals call comes here): the function's name
    // is a literal and `arguments` outlives the call scope (guarded() holds both), whose end clears this.
    if (call->rank() != nullptr)
      call->rank()->set_waiting_for([function, described = &arguments] {
        return *described ? fmt::format("{}({})", function, (*described)()) : std::string(function);
      });
    if (call->rank() != nullptr && RunRecorder::current() != nullptr && RunRecorder::current()->has_timeline()) {
      call->recorded = function;
      call->start    = simgrid::s4u::Engine::get_clock();
      if (arguments && moves_data(function))
        call->arguments = arguments();
    }
    return call;
  });
}

hw::message::ProcessDirectory PortalsLevel::message_directory()
{
  return {[this](uint32_t id) { return ranks_.at(id)->host(); },
          [this](ptl_nid_t nid, ptl_pid_t pid) {
            auto it = core_of_address_.find({nid, pid});
            if (it != core_of_address_.end())
              return it->second;
            // A nid this machine does not have: no memory to reach (the model reports the request
            // undeliverable).
            if (nid >= machine_.nodes().size())
              return static_cast<simgrid::s4u::Host*>(nullptr);
            // A pid no rank has (a program choosing its own pids): the node's first core stands for it.
            return machine_.core(static_cast<int>(nid), 0);
          }};
}

void PortalsLevel::enable_level(const std::string& level)
{
  if (level == "message" && not message_) {
    message_ = std::make_unique<hw::message::MessageNicModel>(
        machine_, hw::message::MessageNicConfig::from_parameters(parameters_), message_directory());
    message_->set_trace(trace_.get());
    message_->set_on_lost_for_good([this](const std::string& why) { stop_on_lost_frame(why); });
  } else if (level == "cycle" && not cycle_) {
    auto directory = message_directory();
    auto make      = [&] {
      cycle_ = make_cycle_nic(machine_, parameters_,
                                   hw::cycle::ProcessDirectory{directory.core_of_process, directory.core_of_address},
                                   vcd_file_, vcd_signals_);
    };
    if (vcd_file_.empty())
      make();
    else
      os::open_above_ranks(make); // SystemC opens the VCD file itself
    cycle_->set_on_lost_for_good([this](const std::string& why) { stop_on_lost_frame(why); });
    cycle_->set_trace(trace_.get());
  }
}

void PortalsLevel::stop_on_lost_frame(const std::string& why)
{
  if (not lost_for_good_.empty())
    return;
  lost_for_good_ = why;
  FILE* out      = OutputRouter::original_stderr();
  fmt::print(out, "bxisim: {}\nbxisim: the run is stopped at simulated time {:.9f} s.\n", why,
             simgrid::s4u::Engine::get_clock());
  std::fflush(out);
  os::kill_every_actor();
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
  started_ = true;
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
  core.set_poll_blocking(nullptr);
  core.set_context_provider(nullptr);
  core.set_call_scope(nullptr);
  portals::Core::set_call_edges({});
}

void PortalsLevel::set_poll_blocking(std::function<bool(uint32_t)> may_block)
{
  portals::Core::instance().set_poll_blocking(std::move(may_block));
}

void PortalsLevel::register_rank_actor(long actor_pid, const Rank& rank)
{
  auto index = static_cast<size_t>(actor_pid);
  if (rank_of_actor_.size() <= index)
    rank_of_actor_.resize(index + 1, nullptr);
  rank_of_actor_[index] = &rank;
}

void PortalsLevel::rank_ended(const Rank& rank)
{
  // Its memory is about to go (its stack with its actor): operations still reading it are dropped, its
  // NIs finalized, so that nothing reaches its buffers any more.
  if (started_)
    portals::Core::instance().end_process(static_cast<uint32_t>(rank.index()));
}

portals::ProcessContext PortalsLevel::context_of_caller()
{
  if (on_library_thread())
    refuse_library_thread_call("a Portals function");
  auto pid           = static_cast<size_t>(simgrid::s4u::this_actor::get_pid());
  const Rank* caller = pid < rank_of_actor_.size() ? rank_of_actor_[pid] : nullptr;
  if (caller == nullptr)
    caller = os::rank_of_simulated_thread();
  if (caller == nullptr)
    throw std::logic_error("a Portals function was called outside the threads of a rank; bxisim runs Portals "
                           "calls of ranks only");
  start_current();
  const Rank& rank = *caller;
  portals::ProcessContext context;
  context.id            = static_cast<uint32_t>(rank.index());
  context.nid           = static_cast<ptl_nid_t>(rank.placement().node);
  context.any_pid       = pid_of(rank);
  static const auto uid = static_cast<ptl_uid_t>(getuid()); // every rank runs as this user: ask once
  context.uid           = uid;
  context.nic           = current_;
  return context;
}

void PortalsLevel::print_statistics() const
{
  if (message_ && message_started_) {
    auto s = message_->statistics();
    fmt::print(stderr,
               "bxisim: nic message: frames {}, lost {}, retransmissions {}, flow-control stalls {} ({:.9f} s)\n",
               s.frames_sent, s.frames_dropped, s.retransmissions, s.flow_stalls, s.flow_stalled_seconds);
  }
  if (cycle_ && started_) {
    auto s = cycle_->statistics();
    fmt::print(stderr,
               "bxisim: nic cycle: commands {}, frames {}, chunks {}, credit stalls {} ({:.9f} s), flow-control "
               "stalls {} ({:.9f} s), TLB hits {}, misses {}, headers matched {}, lost {}, retransmissions {}, "
               "bridge rounds {}\n",
               s.commands, s.frames_sent, s.chunks_sent, s.credit_stalls, s.credit_stalled_seconds, s.flow_stalls,
               s.flow_stalled_seconds, s.tlb_hits, s.tlb_misses, s.headers_matched, s.frames_dropped, s.retransmissions,
               s.bridge_rounds);
  }
}

std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> PortalsLevel::statistics() const
{
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> models;
  auto count = [](uint64_t value) { return static_cast<double>(value); };
  if (message_ && message_started_) {
    auto s = message_->statistics();
    models.push_back({"message",
                      {{"frames_sent", count(s.frames_sent)},
                       {"command_queue_stalls", count(s.command_queue_stalls)},
                       {"flow_control_stalls", count(s.flow_stalls)},
                       {"flow_control_stalled_seconds", s.flow_stalled_seconds},
                       {"retransmissions", count(s.retransmissions)},
                       {"frames_dropped", count(s.frames_dropped)}}});
  }
  if (cycle_ && started_) {
    auto s = cycle_->statistics();
    models.push_back({"cycle",
                      {{"commands", count(s.commands)},
                       {"frames_sent", count(s.frames_sent)},
                       {"chunks_sent", count(s.chunks_sent)},
                       {"command_queue_stalls", count(s.command_queue_stalls)},
                       {"credit_stalls", count(s.credit_stalls)},
                       {"credit_stalled_seconds", s.credit_stalled_seconds},
                       {"flow_control_stalls", count(s.flow_stalls)},
                       {"flow_control_stalled_seconds", s.flow_stalled_seconds},
                       {"tlb_hits", count(s.tlb_hits)},
                       {"tlb_misses", count(s.tlb_misses)},
                       {"headers_matched", count(s.headers_matched)},
                       {"retransmissions", count(s.retransmissions)},
                       {"frames_dropped", count(s.frames_dropped)},
                       {"bridge_rounds", count(s.bridge_rounds)}}});
  }
  return models;
}

void PortalsLevel::observe_operations(hw::OperationTrace::Observer observer, hw::OperationTrace::StageObserver stage,
                                      hw::OperationTrace::CounterObserver counter)
{
  if (not trace_)
    trace_ = hw::OperationTrace::open("");
  trace_->set_observer(std::move(observer));
  trace_->set_stage_observers(std::move(stage), std::move(counter));
  if (message_)
    message_->set_trace(trace_.get());
  if (cycle_)
    cycle_->set_trace(trace_.get()); // its stages report once the trace has observers
}

void PortalsLevel::finish()
{
  if (message_)
    message_->flush_trace();
  if (cycle_) {
    cycle_->flush_trace();
    cycle_->set_trace(nullptr);
  }
  trace_.reset();
  if (message_) {
    const auto& dropped = message_->config().dropped_frames;
    if (not dropped.empty() && *dropped.rbegin() > message_->frames_sent()) {
      std::vector<uint64_t> unreached(dropped.upper_bound(message_->frames_sent()), dropped.end());
      throw config::ConfigError(fmt::format(
          "nic.drop_frames: frame(s) {} were never sent (the run sent {} wire frames), so the network lost nothing "
          "there; give frame numbers from 1 to {} (--trace-csv lists the frames in order).",
          fmt::join(unreached, ","), message_->frames_sent(), message_->frames_sent()));
    }
  }
  if (cycle_)
    cycle_->check();
}

} // namespace bxisim::runtime
