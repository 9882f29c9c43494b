// Fuzz target: SimGrid settings as `--cfg key:value` gives them (one per line; a line starting with
// "log " is a `--log` setting instead), then the default machine built and reported as
// `bxisim platform show` does, a route included. Each input runs in a child process (ForkedRun.hpp):
// SimGrid takes its settings once per process. A bad setting must end in a ConfigError or SimGrid's
// clean refusal (exit code 2).
#include "ForkedRun.hpp"

#include "config/Parameters.hpp"
#include "platforms/PlatformConfig.hpp"
#include "platforms/PlatformReport.hpp"
#include "platforms/SimulatorSetup.hpp"
#include "platforms/Topologies.hpp"

#include <cstdint>
#include <sstream>
#include <string>

namespace
{
int configure(const std::string& text)
{
  bxisim::platform::SimulatorOptions options;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("log ", 0) == 0)
      options.log.push_back(line.substr(4));
    else
      options.cfg.push_back(line);
  }
  auto config = bxisim::platform::PlatformConfig::from_parameters(bxisim::config::Parameters::defaults());
  bxisim::platform::SetupAbortGuard guard;
  auto engine  = bxisim::platform::create_engine(options);
  auto machine = bxisim::platform::build_machine(config);
  std::ostringstream sink;
  bxisim::platform::ReportOptions report;
  report.routes.emplace_back(machine.nodes().front().cores.front()->get_name(),
                             machine.nodes().back().cores.front()->get_name());
  bxisim::platform::print_platform_report(sink, machine, report);
  return 0;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  std::string text(reinterpret_cast<const char*>(data), size);
  bxisim::fuzz::run_in_child([&text] { return configure(text); });
  return 0;
}
