#pragma once
// The summary of one `bxisim run` (DESIGN.md section 7): a JSON document following the versioned
// schema docs/summary.schema.json (docs/outputs.md describes each field), written to summary.json,
// and a short table of it printed on stderr at the end of the run.

#include "RunRecorder.hpp"

#include "config/Parameters.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace bxisim::runtime
{

class Rank;

constexpr int kSummarySchemaVersion = 1;

/** Counters of one NIC model, by name, as PortalsLevel::statistics() gives them. */
using NicCounters = std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>>;

struct SummaryFacts {
  std::string program;
  std::string level;
  int ranks_per_node = 0;
  std::string map_by;
  std::string platform;   // platform.topology
  int nodes          = 0; // nodes of the machine
  int nodes_used     = 0;
  int cores_per_node = 0;
  bool nic_model     = false; // a NIC model carried the traffic (message, cycle): link classes are counted
  NicCounters nic;
  int exit_code       = 0;
  double wall_seconds = 0;
  std::vector<std::pair<std::string, std::string>> outputs; // kind -> path of the other outputs of the run
};

/** The summary document. */
nlohmann::json make_summary(const SummaryFacts& facts, const config::Parameters& parameters,
                            const std::vector<std::unique_ptr<Rank>>& ranks, const RunRecorder& recorder);

/** Writes `summary` to `path` (through a temporary file and a rename); false (said on stderr) when it cannot. */
bool write_summary(const nlohmann::json& summary, const std::string& path);

/** The short table of the summary, for a terminal. */
void print_summary_table(const nlohmann::json& summary, std::FILE* out);

/** The command line of this process, as given (from /proc/self/cmdline). */
std::vector<std::string> own_command_line();
/** Peak resident memory of this process, in bytes: a page mapped at several addresses counts at each (the
 *  code the ranks' copies of OpenMPI share, os::share_read_only_pages). */
uint64_t peak_memory_bytes();
/** Memory this process uses now, in bytes: its proportional set size, each page counted once; 0 when the
 *  kernel does not say (/proc/self/smaps_rollup, Linux 4.14). */
uint64_t memory_in_use_bytes();

} // namespace bxisim::runtime
