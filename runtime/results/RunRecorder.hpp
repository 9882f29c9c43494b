#pragma once
// What happened in one `bxisim run`, for its summary (summary.json and the table at the end) and its
// timeline (--trace DIR): SimGrid activity counts, each rank's end, the simulated time spent at each
// accuracy level and in each region, and, with a timeline, the ranks' computation, MPI and Portals
// calls and the NICs' transfers. One recorder per run; the parts of the runtime that see events
// report them to RunRecorder::current().

#include "ChromeTrace.hpp"

#include <simgrid/s4u/Host.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bxisim::runtime
{

class Rank;

struct ActivityCounts {
  uint64_t communications = 0; // SimGrid communications that completed and were waited for
  uint64_t executions     = 0; // computations (CPU bursts, bxisim_compute, SMPI's benchmarked code)
  uint64_t sleeps         = 0; // actor sleeps (timeouts, polling back-off, NIC delays)
  uint64_t actors         = 0; // actors created (ranks, NIC actors, daemons)
  uint64_t time_steps     = 0; // distinct simulated times the engine advanced to
};

struct RegionRecord {
  std::string level; // the level it ran at
  uint64_t entries = 0;
  std::vector<double> simulated; // per rank, inclusive of nested regions
};

class RunRecorder
{
 public:
  /** `run_level`: the level outside regions; `trace_folder`: where the timeline goes (empty: none). */
  RunRecorder(const std::vector<std::unique_ptr<Rank>>& ranks, std::string run_level, const std::string& trace_folder,
              const std::vector<std::string>& node_names);
  ~RunRecorder();
  RunRecorder(const RunRecorder&)            = delete;
  RunRecorder& operator=(const RunRecorder&) = delete;

  /** The recorder of the run in progress, or nullptr. */
  static RunRecorder* current();

  bool has_timeline() const { return trace_.has_value(); }

  // Reported by the runtime.
  void rank_ended(int rank, double time);
  void region_boundary(int rank, const std::string& name, bool begin, const std::string& level, double time);
  /** The rank runs at `level` from `time` on (the time before counts in its previous level). */
  void level_switched(int rank, const std::string& level, double time);
  /** A call of `thread` of `rank` (nullptr: its main thread) on the timeline, on that thread's lane. */
  void call(int rank, const void* thread, const char* category, const std::string& name, double start, double end,
            const std::string& arguments);
  /** From now on, every outermost MPI call of a rank goes on its timeline lane (with a timeline). */
  void observe_mpi_calls();
  /** A NIC transfer as the S4BXI trace lists it (wire frames between nids, PCIe transfers of a nid). */
  void nic_operation(const char* operation, int initiator, int target, double start, double end);
  /** What stage `lane` of NIC `node` did (the message model's matching engine, each stage of the cycle model). */
  void nic_stage(int node, const char* lane, const std::string& name, double start, double end);
  /** A NIC counter (link credits, queue occupancy) took `value` at `time`. */
  void nic_counter(int node, const char* counter, double time, double value);

  // Read by the summary.
  const ActivityCounts& activities() const { return activities_; }
  double rank_end(int rank) const { return rank_end_.at(static_cast<size_t>(rank)); }
  /** Simulated seconds per level, per rank (outside regions: the run's level). Valid after every rank ended. */
  const std::vector<std::map<std::string, double>>& level_seconds() const { return level_seconds_; }
  const std::map<std::string, RegionRecord>& regions() const { return regions_; }

  /** Writes the timeline (if any), with link-occupancy counters; returns its path or "". */
  std::string finish_timeline();

 private:
  static constexpr int kRanksProcess    = 1;
  static constexpr int kFirstNicProcess = 100;
  enum NicLane { kTx, kRx, kPcie, kE2e };
  /** The lane (thread id) and category of a NIC stage, by the name the models give it; named on first use. */
  std::pair<int, const char*> stage_lane(int node, const char* lane);
  std::map<std::pair<int, std::string>, std::pair<int, const char*>> stage_lanes_;
  std::map<std::string, int> extra_lanes_; // stages the table below does not know, in order of first use

  void charge_level(int rank, double time);

  std::string run_level_;
  std::vector<double> rank_end_;
  std::vector<const Rank*> ranks_;
  std::map<simgrid::s4u::Host*, int> rank_of_host_;       // -1: a core several ranks share (--oversubscribe)
  std::map<const simgrid::s4u::Exec*, int> rank_of_exec_; // computations on shared cores, by the rank that started them
  ActivityCounts activities_;
  // Levels and regions.
  std::vector<std::vector<std::pair<std::string, double>>> open_regions_; // per rank: (name, start)
  std::vector<std::string> level_;                                        // per rank: where it runs
  std::vector<double> level_since_;
  std::vector<std::map<std::string, double>> level_seconds_;
  std::map<std::string, RegionRecord> regions_;
  // Timeline.
  std::optional<ChromeTrace> trace_;
  struct OpenMpiCall {
    double start = 0;      // when it started
    std::string arguments; // what it moves, to whom
  };
  // Per rank and thread (nullptr: the rank's main thread): under MPI_THREAD_MULTIPLE a rank's threads are in calls
  // at the same time, each on its own lane.
  std::map<std::pair<int, const void*>, OpenMpiCall> open_mpi_calls_;
  std::map<std::pair<int, const void*>, int> thread_lanes_;
  /** The timeline lane of `thread` of `rank`: the rank's own for its main thread, one of their own for the others. */
  int lane_of(int rank, const void* thread);
  struct Occupancy {
    double time;
    int node;
    const char* link;
    int change;
  };
  std::vector<Occupancy> occupancy_;
};

} // namespace bxisim::runtime
