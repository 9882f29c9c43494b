// Single switch, and two switches joined by one inter-switch link (thesis 7.1, figure 7.1).
// A switch is a star zone whose members are the node zones and the switch's router (the gateway
// towards the other switch).

#include "NodeModel.hpp"
#include "Topologies.hpp"

#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <fmt/format.h>

namespace sg4 = simgrid::s4u;

namespace bxisim::platform
{

namespace
{
struct SwitchZone {
  sg4::NetZone* zone;
  simgrid::kernel::routing::NetPoint* router;
};

sg4::Link* create_duplex_link(sg4::NetZone* zone, const std::string& name, const LinkSpec& spec)
{
  return zone->create_split_duplex_link(name, spec.bandwidth)->set_latency(spec.latency)->seal();
}

SwitchZone build_switch(sg4::NetZone* parent, const std::string& name, int first_node, int node_count,
                        const PlatformConfig& config, std::vector<SimulatedNode>& nodes)
{
  sg4::NetZone* zone = sg4::create_star_zone(name + "-zone");
  if (parent != nullptr)
    zone->set_parent(parent);
  // The router sits in a zone of its own: SimGrid's hierarchical routing cannot reach a gateway placed
  // directly in a zone that also holds sub-zones (it would look the sub-zone's host up in the star).
  sg4::NetZone* router_zone = sg4::create_full_zone(name + "-router-zone");
  router_zone->set_parent(zone);
  auto* router = router_zone->create_router(name);
  router_zone->seal();
  zone->add_route(router_zone->get_netpoint(), nullptr, router, nullptr, {}, true);
  for (int index = first_node; index < first_node + node_count; ++index) {
    BuiltNode built          = build_node(zone, index, config.node);
    sg4::Link* bxi           = create_duplex_link(zone, built.node.name + "-bxi", config.bxi_link);
    auto [netpoint, gateway] = leaf_of(built);
    zone->add_route(netpoint, nullptr, gateway, nullptr, {sg4::LinkInRoute(bxi, sg4::LinkInRoute::Direction::UP)},
                    true);
    nodes.push_back(std::move(built.node));
  }
  zone->seal();
  return {zone, router};
}
} // namespace

Machine build_single_switch(const PlatformConfig& config)
{
  std::vector<SimulatedNode> nodes;
  build_switch(nullptr, "switch0", 0, config.single_switch_nodes, config, nodes);
  return Machine(fmt::format("single switch, {} nodes of {} cores", config.single_switch_nodes, config.node.cores),
                 std::move(nodes), true, [](int wanted) { return fmt::format("--set platform.nodes={}", wanted); });
}

Machine build_two_switches(const PlatformConfig& config)
{
  std::vector<SimulatedNode> nodes;
  sg4::NetZone* root = sg4::create_full_zone("machine");
  const int k        = config.nodes_per_switch;
  SwitchZone left    = build_switch(root, "switch0", 0, k, config, nodes);
  SwitchZone right   = build_switch(root, "switch1", k, k, config, nodes);
  sg4::Link* isl     = create_duplex_link(root, "interswitch", config.interswitch_link);
  root->add_route(left.zone->get_netpoint(), right.zone->get_netpoint(), left.router, right.router,
                  {sg4::LinkInRoute(isl, sg4::LinkInRoute::Direction::UP)}, true);
  root->seal();
  return Machine(fmt::format("two switches joined by one link, {} nodes of {} cores on each", k, config.node.cores),
                 std::move(nodes), true,
                 [](int wanted) { return fmt::format("--set platform.nodes_per_switch={}", (wanted + 1) / 2); });
}

} // namespace bxisim::platform
