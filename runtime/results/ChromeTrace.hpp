#pragma once
// A timeline in Chrome's trace-event format (JSON), which Perfetto (ui.perfetto.dev) and
// chrome://tracing open: lanes ("threads") grouped in "processes", spans, instant markers and
// counters, times in simulated microseconds. `bxisim trace render` draws the same file as a PNG.

#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <vector>

namespace bxisim::runtime
{

class ChromeTrace
{
 public:
  /** The trace will be DIR/trace.json; throws config::ConfigError when DIR cannot be written. */
  explicit ChromeTrace(const std::string& folder);

  /** Names a lane (`thread` of `process`) and its group; `order` sorts the groups in viewers. */
  void name_lane(int process, const std::string& process_name, int thread, const std::string& thread_name, int order);
  /** Something that took from `start` to `end` (simulated seconds) on a lane. */
  void span(int process, int thread, const std::string& category, const std::string& name, double start, double end,
            nlohmann::json args = nlohmann::json::object());
  /** A point in time on a lane (a region boundary). */
  void marker(int process, int thread, const std::string& category, const std::string& name, double time,
              nlohmann::json args = nlohmann::json::object());
  /** A value of counter `name` (one series `series`) from `time` on, drawn as a step curve in the group. */
  void counter(int process, const std::string& name, const std::string& series, double time, double value);

  /** Writes DIR/trace.json, events in time order; returns its path. */
  std::string write();
  size_t events() const { return events_.size(); }

 private:
  std::string path_;
  std::vector<nlohmann::json> metadata_;
  std::set<int> named_processes_;
  std::vector<std::pair<double, nlohmann::json>> events_;
};

} // namespace bxisim::runtime
