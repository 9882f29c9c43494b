// Any SimGrid XML platform, loaded as-is. No node model applies: each host is one node of one core,
// which is what SMPI expects at the fast level.

#include "Topologies.hpp"

#include "config/ConfigError.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <fmt/format.h>

#include <fstream>

namespace bxisim::platform
{

Machine load_xml_platform(const PlatformConfig& config)
{
  if (not std::ifstream(config.xml_file))
    throw config::ConfigError(fmt::format("platform.xml = '{}': cannot read this file. Give the path of a SimGrid XML "
                                          "platform (see SimGrid's examples/platforms).",
                                          config.xml_file));
  auto* engine = simgrid::s4u::Engine::get_instance();
  try {
    engine->load_platform(config.xml_file);
  } catch (const std::exception& error) {
    throw config::ConfigError(fmt::format("platform.xml = '{}': SimGrid cannot load this platform: {}. Check it "
                                          "against https://simgrid.org/simgrid.dtd.",
                                          config.xml_file, error.what()));
  }
  std::vector<SimulatedNode> nodes;
  for (auto* host : engine->get_all_hosts()) {
    if (not(host->get_speed() > 0)) // SimGrid accepts a negative speed, which would make computations go back in time
      throw config::ConfigError(fmt::format("platform.xml = '{}': host '{}' has speed {} flop/s; give each host a "
                                            "positive speed (speed=\"1Gf\").",
                                            config.xml_file, host->get_name(), host->get_speed()));
    nodes.push_back({static_cast<int>(nodes.size()), host->get_name(), {host}, nullptr});
  }
  if (nodes.empty())
    throw config::ConfigError(
        fmt::format("platform.xml = '{}': the platform has no host; ranks need hosts to run on.", config.xml_file));
  std::string description = fmt::format("SimGrid XML platform {}, {} hosts", config.xml_file, nodes.size());
  return Machine(std::move(description), std::move(nodes), false,
                 [](int wanted) { return fmt::format("a platform file with {} hosts or more", wanted); });
}

} // namespace bxisim::platform
