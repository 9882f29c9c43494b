#pragma once
// Options every simulating sub-command accepts: parameters (--config, --set, --platform) and
// SimGrid's own settings (--cfg, --log).

#include "config/Parameters.hpp"
#include "platforms/SimulatorSetup.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace bxisim::runtime
{

struct CommonOptions {
  std::string config_file;
  std::vector<std::string> assignments;
  std::string platform;
  std::vector<std::string> cfg;
  std::vector<std::string> log;

  /** Declares the options on `app` (they may appear before or after a sub-command). */
  void declare(CLI::App& app);
  /** Defaults, then the TOML file, then --platform, then --set: the last word wins. */
  config::Parameters parameters() const;
  platform::SimulatorOptions simulator_options() const { return {cfg, log}; }
};

} // namespace bxisim::runtime
