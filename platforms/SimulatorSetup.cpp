#include "SimulatorSetup.hpp"

#include "config/ConfigError.hpp"
#include "config/Spelling.hpp"

#include <boost/algorithm/string.hpp>
#include <fmt/format.h>
#include <xbt/log.h>

#include <algorithm>

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
void collect_categories(const s_xbt_log_category_t* category, std::vector<std::string>& names)
{
  for (; category != nullptr; category = category->nextSibling) {
    names.emplace_back(category->name);
    collect_categories(category->firstChild, names);
  }
}

void print_categories(const s_xbt_log_category_t* category, int depth, std::string& out)
{
  for (; category != nullptr; category = category->nextSibling) {
    out += fmt::format("{:{}}{}: {}\n", "", 2 * depth, category->name,
                       category->description != nullptr ? category->description : "");
    print_categories(category->firstChild, depth + 1, out);
  }
}

/**
 * Refuses a --log setting naming a category that does not exist: SimGrid would keep it silently for
 * a category that might appear later, and the user would wait for messages that never come. Every
 * category is registered by a constructor when its library is loaded, so the tree is complete here.
 * (XBT documents no API to list categories: this reads its tree as xbt/log.h declares it.)
 */
void check_log_setting(const std::string& settings)
{
  std::vector<std::string> words;
  boost::split(words, settings, boost::is_any_of(" "), boost::token_compress_on);
  for (const auto& word : words) {
    if (word.empty() || word == "no_loc")
      continue;
    auto colon = word.find(':');
    auto dot   = word.rfind('.', colon);
    if (colon == std::string::npos || dot == std::string::npos)
      throw config::ConfigError(fmt::format("--log '{}': expected CATEGORY.thres:LEVEL (or .fmt:, .app:, .add:), for "
                                            "example --log=bxisim.thres:debug.",
                                            word));
    std::string name = word.substr(0, dot);
    std::vector<std::string> names;
    collect_categories(&_XBT_LOGV(XBT_LOG_ROOT_CAT), names);
    if (std::find(names.begin(), names.end(), name) != names.end())
      continue;
    std::vector<std::string_view> known(names.begin(), names.end());
    // Before 2026-11-28 the Portals, MPI and NIC categories had no bxisim_ prefix (portals_target, nic_cycle).
    std::string prefixed = "bxisim_" + name;
    std::string hint     = std::find(names.begin(), names.end(), prefixed) != names.end()
                               ? fmt::format(" Did you mean '{}'?", prefixed)
                               : config::did_you_mean(name, known);
    throw config::ConfigError(fmt::format("--log '{}': there is no log category '{}'.{} bxisim's categories start with "
                                          "bxisim (docs/running.md, \"Log categories\"); SimGrid's are listed at "
                                          "https://simgrid.org/doc/latest/Configuring_SimGrid.html#logging.",
                                          word, name, hint));
  }
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

std::string log_category_tree()
{
  std::string out;
  print_categories(_XBT_LOGV(XBT_LOG_ROOT_CAT).firstChild, 0, out);
  return out;
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
  for (const auto& setting : options.log) {
    check_log_setting(setting);
    arguments.push_back("--log=" + setting);
  }

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
