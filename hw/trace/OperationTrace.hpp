#pragma once
// S4BXI-compatible trace of NIC operations (DESIGN.md section 7): one CSV line per transfer,
// `operation_type,initiator_nid,target_nid,start_time,end_time`, times in simulated seconds.
// Both NIC models record into it; it is off unless `--trace-csv DIR` is given.

#include <cstdio>
#include <functional>
#include <memory>
#include <string>

namespace bxisim::hw
{

class OperationTrace
{
 public:
  /** Writes DIR/operations.csv (no file when `folder` is empty: observers only); throws
   * config::ConfigError when the folder cannot be written. */
  static std::unique_ptr<OperationTrace> open(const std::string& folder);
  /** Also hands every record to `observer` (the run's timeline). */
  using Observer = std::function<void(const char* operation, int initiator, int target, double start, double end)>;
  void set_observer(Observer observer) { observer_ = std::move(observer); }
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
};

} // namespace bxisim::hw
