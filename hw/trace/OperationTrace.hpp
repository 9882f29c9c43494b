#pragma once
// S4BXI-compatible trace of NIC operations (DESIGN.md section 7): one CSV line per transfer,
// `operation_type,initiator_nid,target_nid,start_time,end_time`, times in simulated seconds.
// Both NIC models record into it; it is off unless `--trace-csv DIR` is given.

#include <cstdio>
#include <memory>
#include <string>

namespace bxisim::hw
{

class OperationTrace
{
 public:
  /** Writes DIR/operations.csv; throws config::ConfigError when the folder cannot be written. */
  static std::unique_ptr<OperationTrace> open(const std::string& folder);
  ~OperationTrace();
  OperationTrace(const OperationTrace&)            = delete;
  OperationTrace& operator=(const OperationTrace&) = delete;

  void record(const char* operation, int initiator_nid, int target_nid, double start, double end);
  const std::string& path() const { return path_; }

 private:
  OperationTrace(std::string path, std::FILE* file);
  std::string path_;
  std::FILE* file_;
};

} // namespace bxisim::hw
