#pragma once
// Regions of `bxisim/region.h`: which accuracy level each region asks for (re-mapped by --region),
// the simulated and wall time each rank spends in it, the check that every rank crosses the same
// boundaries, and the summary (a table on stdout, optionally JSON).
//
// In a run with both MPI back ends (an MPI program that annotates regions, on a platform with the node
// model, with bxisim's OpenMPI built: see Launcher.cpp), each boundary whose level differs from the
// current one is a switch: every rank meets the others there (a barrier that takes no simulated time),
// then the NIC model (message, cycle) and the MPI back end (SMPI, the rank's OpenMPI) change for all
// ranks (middleware/LevelSwitch.hpp). Otherwise a region mapped to another level runs at the run's
// level, and the summary says so.

#include "Rank.hpp"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace bxisim::runtime
{

/** "smpi", "message" or "cycle" for BXISIM_LEVEL_x (1, 2, 3); "" for anything else. */
std::string level_name(int level);
/** Throws config::ConfigError unless `level` is smpi, message or cycle; `what` names the setting. */
void check_level(const std::string& level, const std::string& what);

class Regions
{
 public:
  /** `run_level`: the run's level; `remap`: --region name=level settings, checked here. */
  Regions(std::string run_level, const std::vector<std::pair<std::string, std::string>>& remap, int ranks);
  ~Regions();

  /**
   * What changes the calling rank's level at a boundary, after every rank reached it (in the rank's
   * own code, not in a simulator call). Not set: the run has one level.
   */
  using Switcher = std::function<void(Rank& rank, const std::string& level, const std::string& place)>;
  void set_switcher(Switcher switcher); // after the engine exists
  /** Told where the rank is at each boundary that does not switch (for the switch's reports). */
  void set_placer(std::function<void(Rank&, const std::string& place)> placer) { placer_ = std::move(placer); }
  void note_place(Rank& rank)
  {
    if (placer_)
      placer_(rank, place(rank));
  }

  /** In a simulator call: enters region `name`; returns the level to switch to, or "" (no switch). */
  std::string begin(Rank& rank, const char* name, int level);
  /** In a simulator call: leaves region `name`; returns the level to switch to, or "" (no switch). */
  std::string end(Rank& rank, const char* name);
  /** In the rank's code: meets every rank at the boundary of region `name`, then switches to `level`. */
  void switch_level(Rank& rank, const std::string& name, const std::string& level, const std::string& place);
  /** Where the rank is, for reports: "region 'solve' (cycle)". */
  std::string place(Rank& rank) const;
  /** In a simulator call: the innermost region's times start now (after a switch). */
  void restart(Rank& rank);
  /** When a rank ended: its time at its last level counts until then. */
  void rank_ended(int rank, double time) { rank_end_.at(static_cast<size_t>(rank)) = time; }

  /**
   * After the run: prints the table (when the program used regions), writes `json_path` (if not
   * empty); returns false when ranks crossed different boundaries (said on stderr).
   */
  bool finish(const std::string& json_path, double end_time);

  /** The regions of this run, for the exported functions (nullptr outside a run). */
  static Regions* current();

  /** Told of every boundary a rank crosses, with the level the region runs at (the run summary, the timeline). */
  using BoundaryObserver =
      std::function<void(int rank, const std::string& name, bool begin, const std::string& level, double time)>;
  void set_boundary_observer(BoundaryObserver observer) { observer_ = std::move(observer); }
  /** Told when a rank's level changes (after the switch, whose time counts in the level left). */
  using LevelObserver = std::function<void(int rank, const std::string& level, double time)>;
  void set_level_observer(LevelObserver observer) { level_observer_ = std::move(observer); }

 private:
  struct Open {
    std::string name;
    std::string level;
    double simulated_start;
    double wall_start;
  };
  struct Totals {
    std::string asked; // the level the code asked for, after --region
    std::string level; // the level it ran at
    long entries = 0;
    std::vector<double> simulated; // per rank
    std::vector<double> wall;      // per rank
  };

  void meet(Rank& rank, const std::string& name);
  void account_level(Rank& rank, double now);

  std::string run_level_;
  std::map<std::string, std::string> remap_;
  int ranks_;
  std::vector<std::vector<Open>> open_;              // per rank
  std::vector<std::vector<std::string>> boundaries_; // per rank: "+name" / "-name" in order
  std::map<std::string, Totals> totals_;             // by region name
  std::vector<std::string> warned_;
  BoundaryObserver observer_;
  LevelObserver level_observer_;
  Switcher switcher_;
  std::function<void(Rank&, const std::string&)> placer_;
  struct Meeting;
  std::unique_ptr<Meeting> meeting_;
  std::vector<std::string> level_;                                          // per rank: its current level
  std::vector<double> level_since_;                                         // per rank: since when (simulated)
  std::vector<double> level_wall_since_;                                    // per rank: since when (wall)
  std::vector<double> rank_end_;                                            // per rank, -1 while it runs
  std::map<std::string, std::vector<double>> level_simulated_, level_wall_; // per level, per rank
  long switches_ = 0;
};

} // namespace bxisim::runtime
