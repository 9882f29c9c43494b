#pragma once
// `bxisim run`: from a program and a machine to N ranks run in simulated time, and an exit code.

#include "Rank.hpp"
#include "RankMapping.hpp"
#include "config/Parameters.hpp"
#include "platforms/SimulatorSetup.hpp"

#include <string>
#include <utility>
#include <vector>

namespace bxisim::runtime
{

struct LaunchOptions {
  int ranks                = 1;
  int ranks_per_node       = 0; // 0: one rank per core
  MapBy map_by             = MapBy::Core;
  CoreSharing core_sharing = CoreSharing::Refused; // --oversubscribe: Allowed
  std::vector<std::string> command;                // the program, then its arguments
  std::vector<std::string> privatized_libraries;
  bool keep_temps = false;
  std::string output_dir;        // empty: rank-prefixed lines on stdout/stderr
  bool rank_prefix  = true;      // false: ranks write to bxisim's own stdout/stderr, unrouted (as smpirun)
  std::string level = "message"; // accuracy level of the ranks' network operations
  std::string trace_csv;         // folder of the S4BXI-compatible trace, empty: no trace
  std::vector<std::pair<std::string, std::string>> mca; // --mca key value, for OpenMPI
  double watchdog       = 10.0; // wall seconds a rank may run without calling the simulator before a warning; 0: off
  double wall_limit     = 0.0;  // wall seconds after which the run stops (exit code 5); 0: none
  double preempt_after  = 1.0;  // wall seconds without calls before a busy-waiting rank's pauses add time; 0: no pause
  double sim_time_limit = 0.0;  // simulated seconds after which the run stops (exit code 5); 0: none
  std::vector<std::pair<std::string, std::string>> regions; // --region name=level
  std::string regions_json;                                 // --regions-json: the regions' summary as JSON
  std::string vcd;                                          // VCD file of cycle NIC signals, empty: none
  std::string vcd_signals;                                  // only the signals whose name contains this
  bool nic_stats = false;  // print the NIC models' counters (stalls, TLB...) at the end
  std::string summary;     // --summary FILE; empty: summary.json in --output-dir, else in the current folder
  bool no_summary = false; // --no-summary: no summary.json
  bool quiet      = false; // --quiet: no summary table, no progress line
  std::string trace;       // --trace DIR: Chrome trace-event timeline DIR/trace.json; empty: none
};

/** Runs the ranks; returns the exit code of `bxisim run`. Throws config::ConfigError on bad input. */
int launch(const LaunchOptions& options, const config::Parameters& parameters,
           const platform::SimulatorOptions& simulator_options);

} // namespace bxisim::runtime
