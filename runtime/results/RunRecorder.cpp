#include "RunRecorder.hpp"

#include "hw/actors/CommCompletion.hpp"
#include "middleware/RankMpi.hpp"
#include "runtime/launch/Rank.hpp"
#include "runtime/os/ThreadInterposition.hpp"

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace bxisim::runtime
{

namespace
{
RunRecorder* the_recorder = nullptr;

/** The NIC lane a transfer of the S4BXI trace belongs to, and the link class it occupies. */
bool is_pcie(const char* operation)
{
  return std::strncmp(operation, "PCI_", 4) == 0;
}
} // namespace

RunRecorder* RunRecorder::current()
{
  return the_recorder;
}

RunRecorder::RunRecorder(const std::vector<std::unique_ptr<Rank>>& ranks, std::string run_level,
                         const std::string& trace_folder, const std::vector<std::string>& node_names)
    : run_level_(std::move(run_level)), rank_end_(ranks.size(), -1.0), open_regions_(ranks.size()),
      level_(ranks.size(), run_level_), level_since_(ranks.size(), 0.0), level_seconds_(ranks.size())
{
  for (const auto& rank : ranks) {
    ranks_.push_back(rank.get());
    auto [entry, first] = rank_of_host_.emplace(rank->host(), rank->index());
    if (not first)
      entry->second = -1;
  }
  if (not trace_folder.empty()) {
    trace_.emplace(trace_folder);
    for (const auto& rank : ranks)
      trace_->name_lane(kRanksProcess, "ranks", rank->index(),
                        fmt::format("rank {} ({})", rank->index(), rank->node_name()), 0);
    for (size_t node = 0; node < node_names.size(); ++node) {
      int process      = kFirstNicProcess + static_cast<int>(node);
      std::string name = node_names[node] + " NIC";
      trace_->name_lane(process, name, kTx, "TX (wire out)", process);
      trace_->name_lane(process, name, kRx, "RX (wire in)", process);
      trace_->name_lane(process, name, kPcie, "PCIe / DMA", process);
      trace_->name_lane(process, name, kE2e, "E2E (BXI ACKs)", process);
    }
  }
  the_recorder = this;
  // SimGrid's signals are process-wide and outlive the recorder: each callback asks for the current one.
  static bool connected = false;
  if (connected)
    return;
  connected = true;
  simgrid::s4u::Activity::on_completion_cb([](const simgrid::s4u::Activity& activity) {
    RunRecorder* recorder = current();
    if (recorder == nullptr)
      return;
    if (const auto* exec = dynamic_cast<const simgrid::s4u::Exec*>(&activity)) {
      ++recorder->activities_.executions;
      if (recorder->trace_ && exec->get_host_number() == 1) {
        auto host = recorder->rank_of_host_.find(exec->get_host());
        int rank  = host != recorder->rank_of_host_.end() ? host->second : -1;
        if (auto started = recorder->rank_of_exec_.find(exec); started != recorder->rank_of_exec_.end()) {
          rank = started->second;
          recorder->rank_of_exec_.erase(started);
        }
        if (rank >= 0 && exec->get_finish_time() > exec->get_start_time())
          recorder->trace_->span(kRanksProcess, rank, "compute", "compute", exec->get_start_time(),
                                 exec->get_finish_time());
      }
    }
  });
  // A core several ranks share does not tell whose computation ended: the actor that starts it does (its main's
  // actor or one of its threads').
  simgrid::s4u::Exec::on_start_cb([](const simgrid::s4u::Exec& exec) {
    RunRecorder* recorder = current();
    if (recorder == nullptr || not recorder->trace_ || exec.get_host_number() != 1)
      return;
    auto host = recorder->rank_of_host_.find(exec.get_host());
    if (host == recorder->rank_of_host_.end() || host->second >= 0)
      return;
    long pid = simgrid::s4u::this_actor::get_pid();
    auto own = std::find_if(recorder->ranks_.begin(), recorder->ranks_.end(),
                            [pid](const Rank* rank) { return rank->main_actor_pid == pid; });
    if (own != recorder->ranks_.end())
      recorder->rank_of_exec_[&exec] = (*own)->index();
    else if (const Rank* rank = os::rank_of_simulated_thread())
      recorder->rank_of_exec_[&exec] = rank->index();
  });
  // Communications nobody waits for (detached transfers) too: the s4u signal misses them.
  hw::watch_completions([](const void*) {
    if (current() != nullptr)
      ++current()->activities_.communications;
  });
  simgrid::s4u::Actor::on_creation_cb([](simgrid::s4u::Actor&) {
    if (current() != nullptr)
      ++current()->activities_.actors;
  });
  simgrid::s4u::Actor::on_sleep_cb([](const simgrid::s4u::Actor&) {
    if (current() != nullptr)
      ++current()->activities_.sleeps;
  });
  simgrid::s4u::Engine::on_time_advance_cb([](double) {
    if (current() != nullptr)
      ++current()->activities_.time_steps;
  });
}

RunRecorder::~RunRecorder()
{
  if (mw::call_observer() != nullptr)
    mw::set_call_observer(nullptr);
  the_recorder = nullptr;
}

void RunRecorder::observe_mpi_calls()
{
  if (not trace_)
    return;
  static const mw::CallObserver kObserver{
      [](int rank, const char*) {
        if (current() != nullptr)
          current()->open_mpi_calls_[{rank, mw::calling_thread()}] = {simgrid::s4u::Engine::get_clock(), ""};
      },
      [](int rank, const char* arguments) {
        if (current() != nullptr)
          current()->open_mpi_calls_[{rank, mw::calling_thread()}].arguments = arguments;
      },
      [](int rank, const char* name) {
        RunRecorder* recorder = current();
        if (recorder == nullptr)
          return;
        const void* thread = mw::calling_thread();
        auto open          = recorder->open_mpi_calls_.find({rank, thread});
        if (open == recorder->open_mpi_calls_.end())
          return;
        double start = open->second.start, end = simgrid::s4u::Engine::get_clock();
        // Calls that take no simulated time are invisible, except those that move data (an eager send).
        if (end > start || not open->second.arguments.empty())
          recorder->call(rank, thread, "mpi", name, start, end, open->second.arguments);
        recorder->open_mpi_calls_.erase(open);
      }};
  mw::set_call_observer(&kObserver);
}

int RunRecorder::lane_of(int rank, const void* thread)
{
  if (thread == nullptr)
    return rank;
  // Above every rank's lane; numbered in the order the rank's threads first call MPI or Portals.
  constexpr int kFirstThreadLane = 1 << 24;
  auto [lane, added] =
      thread_lanes_.emplace(std::make_pair(rank, thread), kFirstThreadLane + static_cast<int>(thread_lanes_.size()));
  if (added) {
    int of_rank = 0;
    for (const auto& known : thread_lanes_)
      of_rank += known.first.first == rank ? 1 : 0;
    trace_->name_lane(kRanksProcess, "ranks", lane->second, fmt::format("rank {}, thread {}", rank, of_rank), 0);
  }
  return lane->second;
}

void RunRecorder::charge_level(int rank, double time)
{
  auto index = static_cast<size_t>(rank);
  level_seconds_[index][level_[index]] += time - level_since_[index];
  level_since_[index] = time;
}

void RunRecorder::level_switched(int rank, const std::string& level, double time)
{
  charge_level(rank, time);
  level_[static_cast<size_t>(rank)] = level;
}

void RunRecorder::rank_ended(int rank, double time)
{
  rank_end_.at(static_cast<size_t>(rank)) = time;
  charge_level(rank, time);
}

void RunRecorder::region_boundary(int rank, const std::string& name, bool begin, const std::string& level, double time)
{
  auto index   = static_cast<size_t>(rank);
  auto& record = regions_[name];
  if (record.simulated.empty())
    record.simulated.assign(rank_end_.size(), 0.0);
  if (begin) {
    record.level = level;
    open_regions_[index].emplace_back(name, time);
  } else if (not open_regions_[index].empty()) {
    record.simulated[index] += time - open_regions_[index].back().second;
    if (rank == 0)
      ++record.entries;
    open_regions_[index].pop_back();
  }
  if (trace_)
    trace_->marker(kRanksProcess, rank, "region", fmt::format("{} {} ({})", begin ? "begin" : "end", name, level), time,
                   {{"region", name}, {"level", level}});
}

void RunRecorder::call(int rank, const void* thread, const char* category, const std::string& name, double start,
                       double end, const std::string& arguments)
{
  if (not trace_)
    return;
  nlohmann::json args = nlohmann::json::object();
  if (not arguments.empty())
    args["arguments"] = arguments;
  trace_->span(kRanksProcess, lane_of(rank, thread), category, name, start, end, std::move(args));
}

void RunRecorder::nic_operation(const char* operation, int initiator, int target, double start, double end)
{
  if (not trace_)
    return;
  std::string name = operation;
  if (is_pcie(operation)) {
    trace_->span(kFirstNicProcess + initiator, kPcie, "pcie", name, start, end);
    occupancy_.push_back({start, initiator, "pcie", +1});
    occupancy_.push_back({end, initiator, "pcie", -1});
    return;
  }
  const char* link = initiator == target ? "loopback" : "wire";
  bool e2e         = name == "BXI_ACK";
  nlohmann::json args{{"from", initiator}, {"to", target}};
  trace_->span(kFirstNicProcess + initiator, e2e ? kE2e : kTx, e2e ? "e2e" : "tx",
               fmt::format("{} to nid {}", name, target), start, end, args);
  trace_->span(kFirstNicProcess + target, e2e ? kE2e : kRx, e2e ? "e2e" : "rx",
               fmt::format("{} from nid {}", name, initiator), start, end, args);
  occupancy_.push_back({start, initiator, link, +1});
  occupancy_.push_back({end, initiator, link, -1});
}

namespace
{
/** The NIC stages' lanes, in pipeline order (TX, then RX, then responses and E2E), and their categories. */
struct StageLane {
  const char* name;
  int lane;
  const char* category;
};
constexpr StageLane kStageLanes[] = {
    {"matching", 4, "match"},
    {"command decoder", 10, "stage-tx"},
    {"address translation", 11, "stage-tx"},
    {"packetizer (requests)", 12, "stage-tx"},
    {"wire arbiter", 13, "stage-tx"},
    {"link port", 14, "stage-tx"},
    {"depacketizer", 15, "stage-rx"},
    {"LME 0", 16, "match"},
    {"LME 1", 17, "match"},
    {"LME 2", 18, "match"},
    {"LME 3", 19, "match"},
    {"LME 4", 20, "match"},
    {"LME 5", 21, "match"},
    {"LME 6", 22, "match"},
    {"LME 7", 23, "match"},
    {"DMA writer", 24, "stage-rx"},
    {"event engine", 25, "stage-rx"},
    {"response generator", 26, "stage-response"},
    {"packetizer (responses)", 27, "stage-response"},
    {"E2E engine", 28, "e2e"},
};
constexpr int kFirstExtraLane = 40;
} // namespace

std::pair<int, const char*> RunRecorder::stage_lane(int node, const char* lane)
{
  auto key = std::make_pair(node, std::string(lane));
  auto it  = stage_lanes_.find(key);
  if (it != stage_lanes_.end())
    return it->second;
  std::pair<int, const char*> found{-1, "stage"};
  for (const auto& known : kStageLanes)
    if (key.second == known.name)
      found = {known.lane, known.category};
  if (found.first < 0) {
    auto extra  = extra_lanes_.emplace(key.second, kFirstExtraLane + static_cast<int>(extra_lanes_.size())).first;
    found.first = extra->second;
  }
  int process = kFirstNicProcess + node;
  trace_->name_lane(process, "", found.first, key.second, process);
  return stage_lanes_.emplace(key, found).first->second;
}

void RunRecorder::nic_stage(int node, const char* lane, const std::string& name, double start, double end)
{
  if (not trace_)
    return;
  auto [thread, category] = stage_lane(node, lane);
  trace_->span(kFirstNicProcess + node, thread, category, name, start, end);
}

void RunRecorder::nic_counter(int node, const char* counter, double time, double value)
{
  if (not trace_)
    return;
  trace_->counter(kFirstNicProcess + node, counter, counter, time, value);
}

std::string RunRecorder::finish_timeline()
{
  if (not trace_)
    return "";
  // Link occupancy: transfers in flight on each NIC's outgoing wire, loopback and PCIe, as step counters.
  std::stable_sort(occupancy_.begin(), occupancy_.end(), [](const Occupancy& a, const Occupancy& b) {
    return a.time < b.time || (a.time == b.time && a.change < b.change);
  });
  std::map<std::pair<int, std::string>, int> in_flight;
  for (const auto& change : occupancy_) {
    int& count = in_flight[{change.node, change.link}];
    count += change.change;
    trace_->counter(kFirstNicProcess + change.node, fmt::format("{} transfers in flight", change.link), change.link,
                    change.time, count);
  }
  return trace_->write();
}

} // namespace bxisim::runtime
