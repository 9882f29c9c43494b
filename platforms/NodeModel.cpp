#include "NodeModel.hpp"

#include <simgrid/s4u/Link.hpp>

#include <fmt/format.h>

namespace sg4 = simgrid::s4u;

namespace bxisim::platform
{

std::string node_name(int index)
{
  return fmt::format("node{}", index);
}

BuiltNode build_node(sg4::NetZone* parent, int index, const NodeConfig& config)
{
  const std::string name = node_name(index);
  sg4::NetZone* zone     = sg4::create_star_zone(name);
  zone->set_parent(parent);

  SimulatedNode node{index, name, {}, nullptr};
  node.nic = zone->create_host(name + "-nic", config.nic_speed)->seal();

  auto make_link = [&](const std::string& suffix, const LinkSpec& spec, sg4::Link::SharingPolicy policy) {
    return zone->create_link(name + suffix, spec.bandwidth)
        ->set_latency(spec.latency)
        ->set_sharing_policy(policy)
        ->seal();
  };
  sg4::Link* transfer_up   = make_link("-pcie-xfer-up", config.pcie_transfer, sg4::Link::SharingPolicy::FATPIPE);
  sg4::Link* transfer_down = make_link("-pcie-xfer-down", config.pcie_transfer, sg4::Link::SharingPolicy::FATPIPE);
  sg4::Link* bus_up        = make_link("-pcie-bus-up", config.pcie_bus, sg4::Link::SharingPolicy::SHARED);
  sg4::Link* bus_down      = make_link("-pcie-bus-down", config.pcie_bus, sg4::Link::SharingPolicy::SHARED);

  // In a star zone a route is the source's way up followed by the destination's way down.
  for (int core = 0; core < config.cores; ++core) {
    sg4::Host* host = zone->create_host(fmt::format("{}-core{}", name, core), config.core_speed)->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {sg4::LinkInRoute(transfer_up), sg4::LinkInRoute(bus_up)}, false);
    zone->add_route(nullptr, host->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(bus_down), sg4::LinkInRoute(transfer_down)}, false);
    node.cores.push_back(host);
  }
  zone->add_route(node.nic->get_netpoint(), nullptr, nullptr, nullptr, {}, true);
  // Frames between processes of this node (or from a process to itself) turn round inside the NIC,
  // without the BXI wire: the star zone's loopback route, one shared link per NIC.
  sg4::Link* loopback = make_link("-nic-loopback", config.nic_loopback, sg4::Link::SharingPolicy::SHARED);
  zone->add_route(node.nic->get_netpoint(), node.nic->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(loopback)},
                  false);
  zone->seal();
  return {std::move(node), zone};
}

std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*> leaf_of(const BuiltNode& built)
{
  return {built.zone->get_netpoint(), built.node.nic->get_netpoint()};
}

} // namespace bxisim::platform
