#include "RunSummary.hpp"

#include "hw/trace/TrafficCounters.hpp"
#include "runtime/launch/Rank.hpp"
#include "runtime/os/Preemption.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sys/resource.h>
#include <unistd.h>

namespace bxisim::runtime
{

namespace
{
/** default, file or command line: where a parameter's value comes from, from the origin Parameters records. */
std::string origin_kind(const std::string& origin)
{
  if (origin == "default")
    return "default";
  if (origin.rfind("--", 0) == 0)
    return "command line";
  return "file"; // FILE.toml:LINE
}

nlohmann::json rank_status(const Rank& rank)
{
  nlohmann::json status{{"rank", rank.index()}, {"node", rank.node_name()}, {"exit_code", nullptr}};
  switch (rank.state()) {
  case RankState::NotStarted:
    status["status"] = "not started";
    return status;
  case RankState::Running:
    status["status"] = "did not end";
    return status;
  case RankState::Killed:
    status["status"] = "stopped";
    return status;
  case RankState::Ended:
    break;
  }
  status["exit_code"] = rank.exit_code();
  if (rank.load_failed())
    status["status"] = "not loaded";
  else if (rank.crashed())
    status["status"] = "crashed";
  else if (rank.end_signal() != 0)
    status["status"] = fmt::format("killed by SIG{}", sigabbrev_np(rank.end_signal()));
  else
    status["status"] = "exited";
  return status;
}

std::string human_bytes(double bytes)
{
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit            = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, units[unit]);
}
} // namespace

std::vector<std::string> own_command_line()
{
  std::ifstream file("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> words;
  std::string word;
  while (std::getline(file, word, '\0'))
    words.push_back(word);
  return words;
}

uint64_t peak_memory_bytes()
{
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024; // Linux gives kilobytes
}

uint64_t memory_in_use_bytes()
{
  std::ifstream rollup("/proc/self/smaps_rollup");
  std::string key;
  while (rollup >> key) {
    if (key == "Pss:") {
      uint64_t kib = 0;
      rollup >> kib;
      return kib * 1024;
    }
    rollup.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return 0;
}

nlohmann::json make_summary(const SummaryFacts& facts, const config::Parameters& parameters,
                            const std::vector<std::unique_ptr<Rank>>& ranks, const RunRecorder& recorder)
{
  nlohmann::json summary;
  summary["schema"]         = "bxisim-run-summary";
  summary["schema_version"] = kSummarySchemaVersion;
  summary["bxisim_version"] = BXISIM_VERSION;
  summary["command_line"]   = own_command_line();
  std::error_code error;
  summary["working_directory"] = std::filesystem::current_path(error).string();
  summary["program"]           = facts.program;
  summary["level"]             = facts.level;
  summary["exit_code"]         = facts.exit_code;
  summary["platform"]          = {{"topology", facts.platform},     {"nodes", facts.nodes},
                                  {"nodes_used", facts.nodes_used}, {"cores_per_node", facts.cores_per_node},
                                  {"ranks", ranks.size()},          {"ranks_per_node", facts.ranks_per_node},
                                  {"map_by", facts.map_by}};

  nlohmann::json table = nlohmann::json::array();
  for (const auto& spec : config::parameter_table()) {
    const std::string& origin = parameters.origin(spec.name);
    table.push_back({{"name", spec.name},
                     {"value", parameters.display(spec.name)},
                     {"unit", spec.unit},
                     {"origin", origin_kind(origin)},
                     {"set_by", origin}});
  }
  summary["parameters"] = table;

  // Simulated time: the run's end is the last rank's end (NIC actors are daemons).
  double end        = 0;
  nlohmann::json rk = nlohmann::json::array();
  for (const auto& rank : ranks) {
    nlohmann::json status        = rank_status(*rank);
    double rank_end              = recorder.rank_end(rank->index());
    status["end_time"]           = rank_end >= 0 ? nlohmann::json(rank_end) : nlohmann::json(nullptr);
    status["busy_wait_steps"]    = rank->busy_wait_steps();
    status["preemption_signals"] = rank->preemption_signals();
    end                          = std::max(end, rank_end); // a stopped rank's: when the run stopped it
    rk.push_back(status);
  }
  summary["simulated_time"] = end;
  summary["ranks"]          = rk;

  // Time per level: per rank, and the largest over ranks.
  nlohmann::json levels = nlohmann::json::object();
  for (size_t r = 0; r < ranks.size(); ++r)
    for (const auto& [level, seconds] : recorder.level_seconds()[r]) {
      auto& entry = levels[level];
      if (entry.is_null())
        entry = {{"simulated_max", 0.0}, {"simulated_per_rank", std::vector<double>(ranks.size(), 0.0)}};
      entry["simulated_per_rank"][r] = seconds;
      entry["simulated_max"]         = std::max(entry["simulated_max"].get<double>(), seconds);
    }
  summary["levels"] = levels;

  nlohmann::json regions = nlohmann::json::array();
  for (const auto& [name, record] : recorder.regions())
    regions.push_back({{"name", name},
                       {"level", record.level},
                       {"entries", record.entries},
                       {"simulated_max", *std::max_element(record.simulated.begin(), record.simulated.end())},
                       {"simulated_per_rank", record.simulated}});
  summary["regions"] = regions;

  if (facts.nic_model) {
    nlohmann::json traffic = nlohmann::json::object();
    for (auto link : {hw::LinkClass::Wire, hw::LinkClass::Pcie, hw::LinkClass::Loopback}) {
      const auto& count                  = hw::TrafficCounters::of(link);
      traffic[hw::link_class_name(link)] = {{"messages", count.messages}, {"bytes", count.bytes}};
    }
    summary["traffic"] = traffic;
  } else {
    summary["traffic"] = nullptr; // smpi: SimGrid's flow model carries MPI messages, no NIC, no link classes
  }
  nlohmann::json nic = nlohmann::json::object();
  for (const auto& [model, counters] : facts.nic) {
    nlohmann::json values = nlohmann::json::object();
    for (const auto& [name, value] : counters) // counts are integers, durations (*_seconds) are not
      values[name] = name.find("seconds") == std::string::npos ? nlohmann::json(static_cast<uint64_t>(value))
                                                               : nlohmann::json(value);
    nic[model] = values;
  }
  summary["nic"] = nic;

  const auto& activities         = recorder.activities();
  summary["simgrid"]             = {{"communications", activities.communications},
                                    {"executions", activities.executions},
                                    {"sleeps", activities.sleeps},
                                    {"actors", activities.actors},
                                    {"time_steps", activities.time_steps}};
  summary["wall_time"]           = facts.wall_seconds;
  summary["peak_memory_bytes"]   = peak_memory_bytes();
  summary["memory_in_use_bytes"] = memory_in_use_bytes();
  nlohmann::json outputs         = nlohmann::json::object();
  for (const auto& [kind, path] : facts.outputs)
    outputs[kind] = path;
  summary["outputs"] = outputs;
  return summary;
}

bool write_summary(const nlohmann::json& summary, const std::string& path)
{
  std::string temporary = fmt::format("{}.{}.part", path, getpid()); // runs sharing a folder never mix their files
  {
    std::ofstream file(temporary);
    file << summary.dump(2) << "\n";
    if (not file) {
      fmt::print(stderr,
                 "bxisim: cannot write the run summary to {}: give --summary FILE in a folder you can write "
                 "to, or --no-summary.\n",
                 path);
      return false;
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    fmt::print(stderr, "bxisim: cannot write the run summary to {}: {}.\n", path, error.message());
    return false;
  }
  return true;
}

void print_summary_table(const nlohmann::json& s, std::FILE* out)
{
  fmt::print(out, "bxisim: summary of the run ({})\n", s["outputs"].value("summary", "not written"));
  const auto& platform = s["platform"];
  int ranks_per_node   = platform.value("ranks_per_node", 0);
  int cores_per_node   = platform.value("cores_per_node", 0);
  fmt::print(out, "  {:<22} {} ranks of {} at level {} on {} ({} of {} nodes used{})\n", "run", s["ranks"].size(),
             s["program"].get<std::string>(), s["level"].get<std::string>(), platform["topology"].get<std::string>(),
             platform["nodes_used"].get<int>(), platform["nodes"].get<int>(),
             ranks_per_node > cores_per_node && cores_per_node > 0
                 ? fmt::format(", up to {} ranks on {} cores: cores shared", ranks_per_node, cores_per_node)
                 : "");
  fmt::print(out, "  {:<22} {:.9f} s simulated, {:.3f} s wall, peak memory {} ({} in use at the end)\n", "time",
             s["simulated_time"].get<double>(), s["wall_time"].get<double>(),
             human_bytes(s["peak_memory_bytes"].get<double>()), human_bytes(s["memory_in_use_bytes"].get<double>()));
  std::vector<std::string> changed;
  for (const auto& p : s["parameters"])
    if (p["origin"] != "default")
      changed.push_back(fmt::format("{}={} ({})", p["name"].get<std::string>(), p["value"].get<std::string>(),
                                    p["set_by"].get<std::string>()));
  fmt::print(out, "  {:<22} {}\n", "parameters set",
             changed.empty() ? std::string("none (all defaults)") : fmt::format("{}", fmt::join(changed, ", ")));
  // Ranks: ranges of ranks that ended alike.
  std::vector<std::string> ends;
  const auto& ranks = s["ranks"];
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1]["status"] == ranks[i]["status"] &&
           ranks[j + 1]["exit_code"] == ranks[i]["exit_code"] && ranks[j + 1]["end_time"] == ranks[i]["end_time"])
      ++j;
    std::string who = i == j ? fmt::format("rank {}", i) : fmt::format("ranks {}-{}", i, j);
    std::string at =
        ranks[i]["end_time"].is_null() ? std::string("-") : fmt::format("{:.9f} s", ranks[i]["end_time"].get<double>());
    std::string how = ranks[i]["status"].get<std::string>();
    if (how == "exited")
      how = fmt::format("exit code {}", ranks[i]["exit_code"].get<int>());
    ends.push_back(fmt::format("{}: {} at {}", who, how, at));
    i = j + 1;
  }
  constexpr size_t kShownGroups = 6; // of ranks that ended alike; summary.json has them all
  if (ends.size() > kShownGroups) {
    size_t hidden = ends.size() - kShownGroups;
    ends.resize(kShownGroups);
    ends.push_back(fmt::format("{} more groups in the summary file", hidden));
  }
  fmt::print(out, "  {:<22} {}\n", "rank ends", fmt::join(ends, "; "));
  // Pauses of preempted ranks that advanced simulated time by wall-clock measure (os/Preemption.hpp).
  unsigned long steps = 0;
  std::vector<int> stepped;
  for (const auto& rank : ranks)
    if (rank.value("busy_wait_steps", 0UL) > 0) {
      steps += rank["busy_wait_steps"].get<unsigned long>();
      stepped.push_back(rank["rank"].get<int>());
    }
  if (steps > 0)
    fmt::print(out,
               "  {:<22} {} pause(s) of ranks {} in their own code added {:.9f} s of simulated time in all: these "
               "times depend on the host's speed and change from run to run. If the program computes there "
               "rather than busy-waits on memory, --preempt-after 0 (or a larger value) keeps them exact\n",
               "busy-wait steps", steps, fmt::join(stepped, ","), static_cast<double>(steps) * os::kBusyWaitStep);
  std::vector<std::string> levels;
  for (const auto& [level, entry] : s["levels"].items())
    levels.push_back(fmt::format("{} {:.9f} s", level, entry["simulated_max"].get<double>()));
  fmt::print(out, "  {:<22} {}\n", "time per level (max)", fmt::join(levels, ", "));
  for (const auto& region : s["regions"])
    fmt::print(out, "  {:<22} {:.9f} s at {}, {} entries\n", "region " + region["name"].get<std::string>(),
               region["simulated_max"].get<double>(), region["level"].get<std::string>(), region["entries"].get<int>());
  if (not s["traffic"].is_null()) {
    std::vector<std::string> links;
    for (const auto& [link, count] : s["traffic"].items())
      links.push_back(fmt::format("{} {} msgs / {}", link, count["messages"].get<uint64_t>(),
                                  human_bytes(count["bytes"].get<double>())));
    fmt::print(out, "  {:<22} {}\n", "traffic", fmt::join(links, ", "));
  }
  for (const auto& [model, counters] : s["nic"].items()) {
    std::vector<std::string> values;
    for (const auto& [name, value] : counters.items())
      values.push_back(fmt::format("{} {}", name, value.dump()));
    fmt::print(out, "  {:<22} {}\n", "nic " + model, fmt::join(values, ", "));
  }
  const auto& sg = s["simgrid"];
  fmt::print(out, "  {:<22} {} communications, {} executions, {} sleeps, {} actors, {} time steps\n",
             "simgrid activities", sg["communications"].get<uint64_t>(), sg["executions"].get<uint64_t>(),
             sg["sleeps"].get<uint64_t>(), sg["actors"].get<uint64_t>(), sg["time_steps"].get<uint64_t>());
  std::fflush(out);
}

} // namespace bxisim::runtime
