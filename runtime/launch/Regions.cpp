#include "Regions.hpp"

#include "OutputRouter.hpp"
#include "runtime/config/ConfigError.hpp"
#include "runtime/os/SimulatorCall.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>

namespace bxisim::runtime
{

namespace
{
Regions* the_regions = nullptr;

double wall_now()
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

[[noreturn]] void misuse(const Rank& rank, const std::string& what)
{
  FILE* out = OutputRouter::original_stderr();
  fmt::print(out, "bxisim: rank {}: {}\n", rank.index(), what);
  std::fflush(out);
  os::set_running_rank(const_cast<Rank*>(&rank)); // called inside a SimulatorCall: exit() ends the rank
  std::exit(1);                                   // bxisim's exit
}

std::string json_string(const std::string& text)
{
  std::string result = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      result += '\\';
    if (static_cast<unsigned char>(c) >= 0x20)
      result += c;
  }
  return result + "\"";
}
} // namespace

std::string level_name(int level)
{
  switch (level) {
  case 1:
    return "smpi";
  case 2:
    return "message";
  case 3:
    return "cycle";
  default:
    return "";
  }
}

void check_level(const std::string& level, const std::string& what)
{
  if (level != "smpi" && level != "message" && level != "cycle")
    throw config::ConfigError(
        fmt::format("{}: unknown level '{}'; the levels are smpi, message and cycle.", what, level));
}

Regions::Regions(std::string run_level, const std::vector<std::pair<std::string, std::string>>& remap, int ranks)
    : run_level_(std::move(run_level)), ranks_(ranks), open_(static_cast<size_t>(ranks)),
      boundaries_(static_cast<size_t>(ranks))
{
  for (const auto& [name, level] : remap) {
    if (name.empty() || name.size() > 63)
      throw config::ConfigError(fmt::format("--region '{}={}': give a region name of 1 to 63 characters, for "
                                            "example --region solve=smpi.",
                                            name, level));
    check_level(level, fmt::format("--region {}={}", name, level));
    remap_[name] = level;
  }
  the_regions = this;
}

Regions::~Regions()
{
  the_regions = nullptr;
}

Regions* Regions::current()
{
  return the_regions;
}

void Regions::begin(Rank& rank, const char* name, int level)
{
  if (name == nullptr || *name == '\0' || std::char_traits<char>::length(name) > 63)
    misuse(rank, "bxisim_region_begin needs a region name of 1 to 63 characters");
  auto& stack       = open_.at(static_cast<size_t>(rank.index()));
  std::string asked = level_name(level);
  if (level != 0 && asked.empty())
    misuse(rank, fmt::format("bxisim_region_begin(\"{}\", {}): the level is BXISIM_LEVEL_DEFAULT, _SMPI, _MESSAGE or "
                             "_CYCLE",
                             name, level));
  if (asked.empty()) // BXISIM_LEVEL_DEFAULT: the enclosing region's level
    asked = stack.empty() ? run_level_ : stack.back().level;
  auto remapped = remap_.find(name);
  if (remapped != remap_.end())
    asked = remapped->second;
  // One back end per run so far: every region runs at the run's level.
  std::string runs_at = run_level_;
  if (asked != runs_at && std::find(warned_.begin(), warned_.end(), name) == warned_.end()) {
    warned_.emplace_back(name);
    FILE* out = OutputRouter::original_stderr();
    fmt::print(out,
               "bxisim: region '{}' asks for level {}, but this run has one MPI back end, the {} level's: it runs "
               "at {} (switching levels inside a run is not available yet)\n",
               name, asked, runs_at, runs_at);
    std::fflush(out);
  }
  auto& totals = totals_[name];
  if (totals.simulated.empty()) {
    totals.simulated.assign(static_cast<size_t>(ranks_), 0.0);
    totals.wall.assign(static_cast<size_t>(ranks_), 0.0);
  }
  totals.asked = asked;
  totals.level = runs_at;
  stack.push_back({name, asked, os::rank_clock_exact(), wall_now()});
  boundaries_.at(static_cast<size_t>(rank.index())).push_back(std::string("+") + name);
  if (observer_)
    observer_(rank.index(), name, true, runs_at, stack.back().simulated_start);
}

void Regions::end(Rank& rank, const char* name)
{
  auto& stack = open_.at(static_cast<size_t>(rank.index()));
  if (name == nullptr || stack.empty() || stack.back().name != name)
    misuse(rank, fmt::format("bxisim_region_end(\"{}\"): {}", name != nullptr ? name : "(null)",
                             stack.empty() ? std::string("no region is open")
                                           : "the innermost open region is '" + stack.back().name +
                                                 "': regions end in the reverse order of their beginnings"));
  const Open& open = stack.back();
  auto& totals     = totals_[open.name];
  auto index       = static_cast<size_t>(rank.index());
  double now       = os::rank_clock_exact();
  totals.simulated[index] += now - open.simulated_start;
  if (observer_)
    observer_(rank.index(), open.name, false, totals.level, now);
  totals.wall[index] += wall_now() - open.wall_start;
  if (rank.index() == 0)
    ++totals.entries;
  stack.pop_back();
  boundaries_.at(index).push_back(std::string("-") + name);
}

bool Regions::finish(const std::string& json_path, double end_time)
{
  bool same = true;
  for (int r = 1; r < ranks_; ++r)
    if (boundaries_[static_cast<size_t>(r)] != boundaries_[0]) {
      same = false;
      fmt::print(stderr,
                 "bxisim: rank {} crossed other region boundaries than rank 0 ({} against {} boundaries): every rank "
                 "must enter and leave the same regions in the same order\n",
                 r, boundaries_[static_cast<size_t>(r)].size(), boundaries_[0].size());
    }
  for (int r = 0; r < ranks_; ++r)
    if (not open_[static_cast<size_t>(r)].empty())
      fmt::print(stderr, "bxisim: rank {} ended inside region '{}' (no bxisim_region_end)\n", r,
                 open_[static_cast<size_t>(r)].back().name);
  if (totals_.empty() && json_path.empty())
    return same;
  fmt::print("bxisim: regions (simulated and wall seconds, the largest over ranks; nested regions count in their "
             "parents)\n");
  fmt::print("{:<24} {:>8} {:>8} {:>8} {:>16} {:>12}\n", "region", "asked", "ran at", "entries", "simulated", "wall");
  std::string json = fmt::format("{{\n  \"level\": {},\n  \"simulated_time\": {:.9f},\n  \"regions\": [",
                                 json_string(run_level_), end_time);
  bool first       = true;
  for (const auto& [name, totals] : totals_) {
    double simulated = *std::max_element(totals.simulated.begin(), totals.simulated.end());
    double wall      = *std::max_element(totals.wall.begin(), totals.wall.end());
    fmt::print("{:<24} {:>8} {:>8} {:>8} {:>16.9f} {:>12.6f}\n", name, totals.asked, totals.level, totals.entries,
               simulated, wall);
    json += fmt::format("{}\n    {{\"name\": {}, \"asked\": {}, \"level\": {}, \"entries\": {}, \"simulated\": "
                        "{:.9f}, \"wall\": {:.6f}, \"simulated_per_rank\": [{:.9f}]}}",
                        first ? "" : ",", json_string(name), json_string(totals.asked), json_string(totals.level),
                        totals.entries, simulated, wall, fmt::join(totals.simulated, ", "));
    first = false;
  }
  json += "\n  ]\n}\n";
  if (not json_path.empty()) {
    std::ofstream file(json_path);
    file << json;
    if (not file)
      fmt::print(stderr, "bxisim: cannot write {}\n", json_path);
  }
  return same;
}

} // namespace bxisim::runtime

extern "C" {

void bxisim_region_begin(const char* name, int level)
{
  bxisim::os::SimulatorCall call;
  auto* regions = bxisim::runtime::Regions::current();
  if (regions != nullptr && call.rank() != nullptr)
    regions->begin(*call.rank(), name, level);
}

void bxisim_region_end(const char* name)
{
  bxisim::os::SimulatorCall call;
  auto* regions = bxisim::runtime::Regions::current();
  if (regions != nullptr && call.rank() != nullptr)
    regions->end(*call.rank(), name);
}

} // extern "C"
