#pragma once
// S4BXI-compatible trace of NIC operations (DESIGN.md section 7): one CSV line per transfer,
// `operation_type,initiator_nid,target_nid,start_time,end_time`, times in simulated seconds.
// Both NIC models record into it; it is off unless `--trace-csv DIR` is given. With `--trace DIR` it
// also carries what the NICs' stages did (timeline lanes and counters), which the CSV never holds.

#include <cstdio>
#include <functional>
#include <memory>
#include <string>

namespace bxisim::hw
{

class OperationTrace
{
 public:
  /** Opens a file for writing, as std::fopen(path, "w") does. */
  using FileOpener = std::function<std::FILE*(const char* path)>;
  /** Writes DIR/operations.csv (no file when `folder` is empty: observers only), opened by `open_file`
   * (the launcher's opens it where the ranks' descriptors are not); throws config::ConfigError when the
   * folder cannot be written. */
  static std::unique_ptr<OperationTrace> open(const std::string& folder, const FileOpener& open_file = {});
  /** Also hands every record to `observer` (the run's timeline). */
  using Observer = std::function<void(const char* operation, int initiator, int target, double start, double end)>;
  void set_observer(Observer observer) { observer_ = std::move(observer); }
  /** What a NIC stage did, for the timeline only (never in the CSV): `lane` names the stage
   * ("matching", "command decoder", "LME 2", ...), `name` what it worked on. */
  using StageObserver =
      std::function<void(int node, const char* lane, const std::string& name, double start, double end)>;
  /** A NIC's counter (link credits, queue occupancy) took `value` at `time`. */
  using CounterObserver = std::function<void(int node, const char* counter, double time, double value)>;
  void set_stage_observers(StageObserver stage, CounterObserver counter)
  {
    stage_observer_   = std::move(stage);
    counter_observer_ = std::move(counter);
  }
  /** Whether anyone looks at stages and counters (the models build no names otherwise). */
  bool wants_stages() const { return static_cast<bool>(stage_observer_); }
  void stage(int node, const char* lane, const std::string& name, double start, double end) const
  {
    if (stage_observer_)
      stage_observer_(node, lane, name, start, end);
  }
  void counter(int node, const char* counter, double time, double value) const
  {
    if (counter_observer_)
      counter_observer_(node, counter, time, value);
  }
  ~OperationTrace();
  OperationTrace(const OperationTrace&)            = delete;
  OperationTrace& operator=(const OperationTrace&) = delete;

  void record(const char* operation, int initiator_nid, int target_nid, double start, double end);
  const std::string& path() const { return path_; }

 private:
  OperationTrace(std::string path, std::FILE* file);
  std::string path_;
  std::FILE* file_;
  Observer observer_;
  StageObserver stage_observer_;
  CounterObserver counter_observer_;
};

} // namespace bxisim::hw
