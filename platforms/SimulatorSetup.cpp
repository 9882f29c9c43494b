#include "SimulatorSetup.hpp"

#include "runtime/config/ConfigError.hpp"

#include <fmt/format.h>

namespace bxisim::platform {

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

std::unique_ptr<simgrid::s4u::Engine> create_engine(const SimulatorOptions& options)
{
  std::vector<std::string> arguments = {"bxisim", "--log=xbt_cfg.thres:warning"};
  for (const auto& setting : exact_timing_settings())
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
    throw config::ConfigError(fmt::format("bad SimGrid setting: {}. Run `bxisim --help-cfg`... or see "
                                          "https://simgrid.org/doc/latest/Configuring_SimGrid.html.",
                                          error.what()));
  }
}

} // namespace bxisim::platform
