#include "CommonOptions.hpp"

#include "config/ConfigError.hpp"
#include "config/ParameterSpec.hpp"
#include "config/Spelling.hpp"
#include "platforms/SimulatorSetup.hpp"

#include <boost/algorithm/string/predicate.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace bxisim::runtime
{

void CommonOptions::declare(CLI::App& app)
{
  app.add_option("--config", config_file, "TOML file of parameters (see `bxisim params`)");
  app.add_option("--set", assignments, "Override one parameter: --set key=value (repeatable)");
  app.add_option("--platform", platform,
                 "Topology (fat-tree, single-switch, two-switches) or a SimGrid XML platform file; shorthand for "
                 "--set platform.topology=... (or platform.xml=FILE). XML platforms have no node model (no NIC): "
                 "`run` takes them at --level smpi only");
  app.add_option("--cfg", cfg, "SimGrid setting key:value, passed to SimGrid after bxisim's own (repeatable)");
  app.add_option("--log", log, "SimGrid logging setting, e.g. --log=bxisim.thres:debug (repeatable)");
  // As in SimGrid's own tools: the categories --log can name, bxisim's under `bxisim`, one per module.
  app.add_flag_callback(
      "--help-log-categories",
      [] {
        std::cout << platform::log_category_tree();
        throw CLI::Success();
      },
      "Print the log categories (bxisim's under `bxisim`, one per module; SimGrid's beside it) and exit");
}

config::Parameters CommonOptions::parameters() const
{
  config::Parameters parameters = config::Parameters::defaults();
  if (not config_file.empty())
    parameters.load_toml_file(config_file);
  if (not platform.empty()) {
    std::vector<std::string_view> topologies = config::find_parameter("platform.topology")->choices;
    topologies.erase(std::remove(topologies.begin(), topologies.end(), "xml"), topologies.end());
    bool topology = std::find(topologies.begin(), topologies.end(), platform) != topologies.end();
    if (not topology && not boost::algorithm::ends_with(platform, ".xml") &&
        not std::filesystem::is_regular_file(platform))
      throw config::ConfigError(fmt::format("--platform {}: neither a topology ({}) nor a SimGrid XML platform file "
                                            "(no such file).{}",
                                            platform, fmt::join(topologies, ", "),
                                            config::did_you_mean(platform, topologies)));
    if (not topology) {
      parameters.set("platform.topology", "xml", "--platform");
      parameters.set("platform.xml", platform, "--platform");
    } else {
      parameters.set("platform.topology", platform, "--platform");
    }
  }
  for (const auto& assignment : assignments)
    parameters.apply_assignment(assignment);
  return parameters;
}

} // namespace bxisim::runtime
