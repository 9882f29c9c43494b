#include "SimulatorSetup.hpp"

#include "runtime/config/ConfigError.hpp"
#include "runtime/config/Spelling.hpp"

#include <boost/algorithm/string.hpp>
#include <fmt/format.h>

#include <csignal>
#include <unistd.h>

namespace bxisim::platform
{

const std::vector<std::string>& exact_timing_settings()
{
  static const std::vector<std::string> settings = {
      // SimGrid's default precision (1e-9 s) rounds sub-nanosecond delays (DESIGN.md section 4).
      "surf/precision:1e-13",
      // CM02: a message of S bytes takes latency + S / bandwidth; LV08 scales latency by 13.01.
      "network/model:CM02",
      // Portals ACKs are explicit messages, SimGrid must not add reverse traffic of its own.
      "network/crosstraffic:0",
      // BXI has no TCP window: lift the bound gamma / (2 latency) CM02 puts on each flow.
      "network/TCP-gamma:1e30",
  };
  return settings;
}

const std::vector<std::string>& smpi_settings()
{
  static const std::vector<std::string> settings = {
      // What smpirun (SimGrid 3.32's script) gives SimGrid before the user's settings: timing precision,
      // and CM02 with SMPI's piecewise latency and bandwidth factors (smpi/lat-factor, smpi/bw-factor).
      "surf/precision:1e-9",
      "network/model:SMPI",
  };
  return settings;
}

namespace
{
void exit_on_setup_abort(int)
{
  static const char message[] = "bxisim: SimGrid rejected a setting or the platform (its message is above); fix the "
                                "--cfg/--log option or the platform it names.\n";
  ssize_t ignored             = write(STDERR_FILENO, message, sizeof(message) - 1);
  (void)ignored;
  _exit(config::kUsageExitCode);
}

/** SimGrid's "Bad config key" error lists every key; keep the first line and suggest the closest key. */
std::string summarize_config_error(const std::string& what)
{
  std::vector<std::string> lines;
  boost::split(lines, what, boost::is_any_of("\n"));
  std::vector<std::string> keys;
  for (const auto& line : lines)
    if (line.size() > 2 && line[0] == ' ' && line.find(": (") != std::string::npos)
      keys.push_back(boost::trim_copy(line.substr(0, line.find(": ("))));
  std::string summary = lines.front();
  auto colon          = summary.rfind(": ");
  if (not keys.empty() && colon != std::string::npos) {
    std::vector<std::string_view> views(keys.begin(), keys.end());
    summary += config::did_you_mean(summary.substr(colon + 2), views);
  }
  return summary;
}
} // namespace

SetupAbortGuard::SetupAbortGuard()
{
  std::signal(SIGABRT, exit_on_setup_abort);
}

SetupAbortGuard::~SetupAbortGuard()
{
  std::signal(SIGABRT, SIG_DFL);
}

std::unique_ptr<simgrid::s4u::Engine> create_engine(const SimulatorOptions& options)
{
  std::vector<std::string> arguments = {"bxisim", "--log=xbt_cfg.thres:warning"};
  for (const auto& setting : options.smpi_defaults ? smpi_settings() : exact_timing_settings())
    arguments.push_back("--cfg=" + setting);
  for (const auto& setting : options.cfg) {
    if (setting.find(':') == std::string::npos)
      throw config::ConfigError(
          fmt::format("--cfg '{}': expected key:value, for example --cfg network/model:LV08.", setting));
    arguments.push_back("--cfg=" + setting);
  }
  for (const auto& setting : options.log)
    arguments.push_back("--log=" + setting);

  std::vector<char*> argv;
  for (auto& argument : arguments)
    argv.push_back(argument.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(arguments.size());
  try {
    return std::make_unique<simgrid::s4u::Engine>(&argc, argv.data());
  } catch (const std::exception& error) {
    throw config::ConfigError(fmt::format("bad SimGrid setting: {}. See the settings SimGrid knows at "
                                          "https://simgrid.org/doc/latest/Configuring_SimGrid.html.",
                                          summarize_config_error(error.what())));
  }
}

} // namespace bxisim::platform
