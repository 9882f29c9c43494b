#include "PlatformConfig.hpp"

#include "config/ConfigError.hpp"
#include "config/Parameters.hpp"

#include <fmt/format.h>

namespace bxisim::platform
{

namespace
{
Topology topology_named(const std::string& name)
{
  if (name == "fat-tree")
    return Topology::FatTree;
  if (name == "single-switch")
    return Topology::SingleSwitch;
  if (name == "two-switches")
    return Topology::TwoSwitches;
  return Topology::Xml; // the table only lets these four names through
}

/**
 * A size that another topology reads, set for this one (`--set platform.nodes=2` on the fat-tree): it would change
 * nothing, and the user expects it to. Refused with the key that sizes the platform chosen.
 */
void refuse_another_topologys_size(const config::Parameters& parameters, Topology topology)
{
  struct Size {
    const char* key;
    Topology topology;
    const char* topology_name;
  };
  static const Size kSizes[] = {{"platform.nodes", Topology::SingleSwitch, "single-switch"},
                                {"platform.nodes_per_switch", Topology::TwoSwitches, "two-switches"},
                                {"platform.fat_tree", Topology::FatTree, "fat-tree"}};
  const Size* own            = nullptr;
  for (const Size& size : kSizes)
    if (size.topology == topology)
      own = &size;
  for (const Size& size : kSizes) {
    if (size.topology == topology || parameters.origin(size.key) == "default")
      continue;
    std::string chosen = parameters.text("platform.topology");
    throw config::ConfigError(fmt::format(
        "{}: {} sizes the {} topology, but the platform is {}, which it would leave unchanged. {} or drop {}.",
        parameters.origin(size.key), size.key, size.topology_name, chosen,
        own != nullptr ? fmt::format("Size the {} with {}, give --platform {},", chosen, own->key, size.topology_name)
                       : fmt::format("Give --platform {}", size.topology_name),
        size.key));
  }
}

LinkSpec link_from(const config::Parameters& parameters, const std::string& prefix)
{
  return {parameters.real(prefix + "bandwidth"), parameters.real(prefix + "latency")};
}
} // namespace

PlatformConfig PlatformConfig::from_parameters(const config::Parameters& parameters)
{
  PlatformConfig config;
  config.topology            = topology_named(parameters.text("platform.topology"));
  config.xml_file            = parameters.text("platform.xml");
  config.single_switch_nodes = static_cast<int>(parameters.integer("platform.nodes"));
  config.nodes_per_switch    = static_cast<int>(parameters.integer("platform.nodes_per_switch"));
  config.fat_tree            = FatTreeShape::parse(parameters.text("platform.fat_tree"), "platform.fat_tree");
  config.node.cores          = static_cast<int>(parameters.integer("node.cores"));
  config.node.core_speed     = parameters.real("node.core_speed");
  config.node.nic_speed      = parameters.real("node.nic_speed");
  config.node.pcie_bus       = link_from(parameters, "pcie.bus_");
  config.node.pcie_transfer  = link_from(parameters, "pcie.transfer_");
  config.node.nic_loopback   = link_from(parameters, "bxi.loopback_");
  config.bxi_link            = link_from(parameters, "bxi.link_");
  config.interswitch_link    = link_from(parameters, "bxi.interswitch_");
  refuse_another_topologys_size(parameters, config.topology);
  if (config.topology == Topology::Xml && config.xml_file.empty())
    throw config::ConfigError("platform.topology = xml needs a platform file: set platform.xml=FILE, or give "
                              "--platform FILE.xml.");
  if (config.topology != Topology::Xml && not config.xml_file.empty())
    throw config::ConfigError(fmt::format("platform.xml = '{}' is only read when platform.topology = xml; set "
                                          "platform.topology=xml, or drop platform.xml.",
                                          config.xml_file));
  return config;
}

int PlatformConfig::node_count() const
{
  switch (topology) {
  case Topology::FatTree:
    return static_cast<int>(fat_tree.leaf_count());
  case Topology::SingleSwitch:
    return single_switch_nodes;
  case Topology::TwoSwitches:
    return 2 * nodes_per_switch;
  case Topology::Xml:
    return 0;
  }
  return 0;
}

} // namespace bxisim::platform
