#pragma once
// Regions of `bxisim/region.h`: which accuracy level each region asks for (re-mapped by --region),
// the simulated and wall time each rank spends in it, the check that every rank crosses the same
// boundaries, and the summary (a table on stdout, optionally JSON).
//
// A run has one MPI back end for all its ranks so far (smpi or message): a region mapped to another
// level runs at the run's level, and the summary says so. Switching back ends at a boundary needs
// the OpenMPI back end and the handle mirroring of issue 11 item 2 (not done).

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

  void begin(Rank& rank, const char* name, int level);
  void end(Rank& rank, const char* name);

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

  std::string run_level_;
  std::map<std::string, std::string> remap_;
  int ranks_;
  std::vector<std::vector<Open>> open_;              // per rank
  std::vector<std::vector<std::string>> boundaries_; // per rank: "+name" / "-name" in order
  std::map<std::string, Totals> totals_;             // by region name
  std::vector<std::string> warned_;
  BoundaryObserver observer_;
};

} // namespace bxisim::runtime
