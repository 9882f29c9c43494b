#include "OperationTrace.hpp"

#include "config/ConfigError.hpp"

#include <fmt/format.h>

#include <filesystem>

namespace bxisim::hw
{

std::unique_ptr<OperationTrace> OperationTrace::open(const std::string& folder, const FileOpener& open_file)
{
  if (folder.empty())
    return std::unique_ptr<OperationTrace>(new OperationTrace("", nullptr));
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  std::string path = (std::filesystem::path(folder) / "operations.csv").string();
  std::FILE* file  = nullptr;
  if (not error)
    file = open_file ? open_file(path.c_str()) : std::fopen(path.c_str(), "w");
  if (file == nullptr)
    throw config::ConfigError(
        fmt::format("--trace-csv '{}': cannot write {} there; give a folder you can write to.", folder, path));
  std::fputs("operation_type,initiator_nid,target_nid,start_time,end_time\n", file);
  return std::unique_ptr<OperationTrace>(new OperationTrace(path, file));
}

OperationTrace::OperationTrace(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}

OperationTrace::~OperationTrace()
{
  if (file_ != nullptr)
    std::fclose(file_);
}

void OperationTrace::record(const char* operation, int initiator_nid, int target_nid, double start, double end)
{
  // %.17g: the times read back bit for bit, so traces of two runs compare exactly.
  if (file_ != nullptr)
    std::fprintf(file_, "%s,%d,%d,%.17g,%.17g\n", operation, initiator_nid, target_nid, start, end);
  if (observer_)
    observer_(operation, initiator_nid, target_nid, start, end);
}

} // namespace bxisim::hw
