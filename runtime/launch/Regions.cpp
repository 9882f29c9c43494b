#include "Regions.hpp"

#include "OutputRouter.hpp"
#include "RankBarrier.hpp"
#include "config/ConfigError.hpp"
#include "middleware/RankMpi.hpp"
#include "runtime/os/SimulatorCall.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>

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

/**
 * The meeting of every rank at a boundary that switches levels: a barrier in no simulated time, on a
 * SimGrid semaphore (RankBarrier), which a killed rank leaves cleanly (the job ends: MPI_Abort, a
 * reported deadlock, --sim-time-limit). Not Actor::suspend: SimGrid 3.32 starts a communication whose
 * sender or receiver is suspended in the suspended state, and resuming the actor resumes only the
 * activity it waits on, not a detached send it made before (SMPI's eager sends, the broadcast that
 * gives a new communicator its id): a rank that had reached the boundary left its small messages
 * frozen for ever, and the receiver hung (an MPI_Irecv posted before the boundary by a slower rank,
 * MPI_Comm_split or MPI_Comm_free right before a boundary).
 */
struct Regions::Meeting {
  RankBarrier barrier;
};

Regions::Regions(std::string run_level, const std::vector<std::pair<std::string, std::string>>& remap, int ranks)
    : run_level_(std::move(run_level)), ranks_(ranks), open_(static_cast<size_t>(ranks)),
      boundaries_(static_cast<size_t>(ranks)), level_(static_cast<size_t>(ranks), run_level_),
      level_since_(static_cast<size_t>(ranks), 0.0), level_wall_since_(static_cast<size_t>(ranks), wall_now()),
      rank_end_(static_cast<size_t>(ranks), -1.0)
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

std::string Regions::begin(Rank& rank, const char* name, int level)
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
  // Without a switcher, the run has one back end: every region runs at the run's level.
  std::string runs_at = switcher_ ? asked : run_level_;
  if (asked != runs_at && std::find(warned_.begin(), warned_.end(), name) == warned_.end()) {
    warned_.emplace_back(name);
    FILE* out = OutputRouter::original_stderr();
    fmt::print(out,
               "bxisim: region '{}' asks for level {}, but this run has one MPI back end, the {} level's: it runs "
               "at {} (levels switch in MPI programs run on a platform with the node model, with bxisim's OpenMPI "
               "built)\n",
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
  bool switches = runs_at != level_.at(static_cast<size_t>(rank.index()));
  if (observer_ && not switches) // else the region starts after the switch (restart)
    observer_(rank.index(), name, true, runs_at, stack.back().simulated_start);
  return switches ? runs_at : std::string();
}

std::string Regions::place(Rank& rank) const
{
  const auto& stack = open_.at(static_cast<size_t>(rank.index()));
  return stack.empty() ? fmt::format("no region (the run's level, {})", run_level_)
                       : fmt::format("region '{}' ({})", stack.back().name, stack.back().level);
}

void Regions::restart(Rank& rank)
{
  auto& stack = open_.at(static_cast<size_t>(rank.index()));
  if (not stack.empty()) {
    stack.back().simulated_start = os::rank_clock_exact();
    stack.back().wall_start      = wall_now();
    if (observer_)
      observer_(rank.index(), stack.back().name, true, totals_[stack.back().name].level, stack.back().simulated_start);
  }
}

void Regions::account_level(Rank& rank, double now)
{
  auto index      = static_cast<size_t>(rank.index());
  auto& simulated = level_simulated_[level_[index]];
  auto& wall      = level_wall_[level_[index]];
  simulated.resize(static_cast<size_t>(ranks_), 0.0);
  wall.resize(static_cast<size_t>(ranks_), 0.0);
  simulated[index] += now - level_since_[index];
  wall[index] += wall_now() - level_wall_since_[index];
  level_since_[index]      = now;
  level_wall_since_[index] = wall_now();
}

void Regions::set_switcher(Switcher switcher)
{
  switcher_ = std::move(switcher);
  meeting_  = std::make_unique<Meeting>();
}

void Regions::meet(Rank& rank, const std::string& name)
{
  meeting_->barrier.arrive_and_wait(rank, ranks_, [name, size = ranks_](int arrived) {
    return fmt::format("the other ranks at the boundary of region '{}', which changes levels ({} of {} ranks "
                       "arrived): every rank must cross the same region boundaries",
                       name, arrived, size);
  });
}

void Regions::switch_level(Rank& rank, const std::string& name, const std::string& level, const std::string& place)
{
  {
    os::SimulatorCall call;
    account_level(rank, os::rank_clock_exact());
    meet(rank, name);
    if (rank.index() == 0)
      ++switches_;
  }
  {
    mw::LibraryScope library; // the back ends' code (a first MPI_Init, the handles carried across) is not the program's
    switcher_(rank, level, place);
  }
  os::SimulatorCall call;
  double now = os::rank_clock_exact();
  account_level(rank, now); // the switch itself counts in the level left
  level_.at(static_cast<size_t>(rank.index())) = level;
  if (level_observer_)
    level_observer_(rank.index(), level, now);
}

std::string Regions::end(Rank& rank, const char* name)
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
  std::string back_to = stack.empty() ? run_level_ : stack.back().level;
  return switcher_ && back_to != level_[index] ? back_to : std::string();
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
  for (const auto& [name, level] : remap_)
    if (totals_.count(name) == 0) {
      // Most often a misspelt name: the run went on at other levels than the user believes.
      std::vector<std::string> entered;
      for (const auto& [entered_name, totals] : totals_)
        entered.push_back("'" + entered_name + "'");
      fmt::print(stderr,
                 "bxisim: warning: --region {}={} re-mapped a region no rank entered; {}. Check the name given to "
                 "bxisim_region_begin (or bxisim::region) in the program.\n",
                 name, level,
                 entered.empty() ? std::string("the program entered no region")
                                 : fmt::format("the regions entered were {}", fmt::join(entered, ", ")));
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
  json += "\n  ]";
  if (switcher_) {
    for (int r = 0; r < ranks_; ++r) {
      auto index      = static_cast<size_t>(r);
      auto& simulated = level_simulated_[level_[index]];
      auto& wall      = level_wall_[level_[index]];
      simulated.resize(static_cast<size_t>(ranks_), 0.0);
      wall.resize(static_cast<size_t>(ranks_), 0.0);
      double ended = rank_end_[index] >= 0 ? rank_end_[index] : end_time;
      simulated[index] += std::max(0.0, ended - level_since_[index]);
      wall[index] += wall_now() - level_wall_since_[index];
    }
    fmt::print("bxisim: levels ({} switches; simulated and wall seconds at each level, the largest over ranks)\n",
               switches_);
    json += fmt::format(",\n  \"switches\": {},\n  \"levels\": [", switches_);
    first = true;
    for (const auto& [level, simulated_per_rank] : level_simulated_) {
      double simulated = *std::max_element(simulated_per_rank.begin(), simulated_per_rank.end());
      double wall      = *std::max_element(level_wall_[level].begin(), level_wall_[level].end());
      fmt::print("  {:<8} {:>16.9f} {:>12.6f}\n", level, simulated, wall);
      json += fmt::format("{}\n    {{\"level\": {}, \"simulated\": {:.9f}, \"wall\": {:.6f}}}", first ? "" : ",",
                          json_string(level), simulated, wall);
      first = false;
    }
    json += "\n  ]";
  }
  json += "\n}\n";
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
  auto* regions               = bxisim::runtime::Regions::current();
  bxisim::runtime::Rank* rank = nullptr;
  std::string switch_to;
  {
    bxisim::os::SimulatorCall call;
    if (regions == nullptr || call.rank() == nullptr)
      return;
    rank      = call.rank();
    switch_to = regions->begin(*rank, name, level);
    if (switch_to.empty())
      regions->note_place(*rank);
  }
  if (switch_to.empty())
    return;
  // In the rank's code: the new back end may start here.
  regions->switch_level(*rank, name, switch_to, fmt::format("region '{}' ({})", name, switch_to));
  bxisim::os::SimulatorCall call;
  regions->restart(*rank); // the region's times start after the switch
}

void bxisim_region_end(const char* name)
{
  auto* regions               = bxisim::runtime::Regions::current();
  bxisim::runtime::Rank* rank = nullptr;
  std::string switch_to;
  {
    bxisim::os::SimulatorCall call;
    if (regions == nullptr || call.rank() == nullptr)
      return;
    rank      = call.rank();
    switch_to = regions->end(*rank, name);
    if (switch_to.empty())
      regions->note_place(*rank);
  }
  if (not switch_to.empty())
    regions->switch_level(*rank, name, switch_to, regions->place(*rank));
}

// Fortran (bxif90, bxisim_regionf.h): the name has a length of its own, its trailing blanks are not part of it.
void bxisim_region_begin_(const char* name, const int* level, size_t length)
{
  while (length > 0 && name[length - 1] == ' ')
    --length;
  bxisim_region_begin(std::string(name, length).c_str(), *level);
}

void bxisim_region_end_(const char* name, size_t length)
{
  while (length > 0 && name[length - 1] == ' ')
    --length;
  bxisim_region_end(std::string(name, length).c_str());
}
} // extern "C"
