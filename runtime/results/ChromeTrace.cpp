#include "ChromeTrace.hpp"

#include "config/ConfigError.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace bxisim::runtime
{

namespace
{
constexpr double kMicrosecondsPerSecond = 1e6;
}

ChromeTrace::ChromeTrace(const std::string& folder)
{
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  path_ = (std::filesystem::path(folder) / "trace.json").string();
  if (error || not std::ofstream(path_))
    throw config::ConfigError(
        fmt::format("--trace '{}': cannot write {} there; give a folder you can write to.", folder, path_));
}

void ChromeTrace::name_lane(int process, const std::string& process_name, int thread, const std::string& thread_name,
                            int order)
{
  if (named_processes_.insert(process).second) {
    metadata_.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", process}, {"args", {{"name", process_name}}}});
    metadata_.push_back(
        {{"ph", "M"}, {"name", "process_sort_index"}, {"pid", process}, {"args", {{"sort_index", order}}}});
  }
  metadata_.push_back(
      {{"ph", "M"}, {"name", "thread_name"}, {"pid", process}, {"tid", thread}, {"args", {{"name", thread_name}}}});
  metadata_.push_back({{"ph", "M"},
                       {"name", "thread_sort_index"},
                       {"pid", process},
                       {"tid", thread},
                       {"args", {{"sort_index", thread}}}});
}

void ChromeTrace::span(int process, int thread, const std::string& category, const std::string& name, double start,
                       double end, nlohmann::json args)
{
  events_.emplace_back(start, nlohmann::json{{"ph", "X"},
                                             {"cat", category},
                                             {"name", name},
                                             {"pid", process},
                                             {"tid", thread},
                                             {"ts", start * kMicrosecondsPerSecond},
                                             {"dur", (end - start) * kMicrosecondsPerSecond},
                                             {"args", std::move(args)}});
}

void ChromeTrace::marker(int process, int thread, const std::string& category, const std::string& name, double time,
                         nlohmann::json args)
{
  events_.emplace_back(time, nlohmann::json{{"ph", "i"},
                                            {"s", "t"},
                                            {"cat", category},
                                            {"name", name},
                                            {"pid", process},
                                            {"tid", thread},
                                            {"ts", time * kMicrosecondsPerSecond},
                                            {"args", std::move(args)}});
}

void ChromeTrace::counter(int process, const std::string& name, const std::string& series, double time, double value)
{
  events_.emplace_back(time, nlohmann::json{{"ph", "C"},
                                            {"name", name},
                                            {"pid", process},
                                            {"ts", time * kMicrosecondsPerSecond},
                                            {"args", {{series, value}}}});
}

std::string ChromeTrace::write()
{
  std::stable_sort(events_.begin(), events_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::ofstream file(path_);
  file << "{\"displayTimeUnit\": \"ns\",\n\"otherData\": {\"producer\": \"bxisim\", \"time_unit\": \"simulated "
          "microseconds\"},\n\"traceEvents\": [\n";
  bool first = true;
  auto emit  = [&](const nlohmann::json& event) {
    file << (first ? "" : ",\n") << event.dump();
    first = false;
  };
  for (const auto& event : metadata_)
    emit(event);
  for (const auto& [time, event] : events_)
    emit(event);
  file << "\n]}\n";
  if (not file)
    throw config::ConfigError(fmt::format("--trace: cannot write {} (disk full?).", path_));
  return path_;
}

} // namespace bxisim::runtime
