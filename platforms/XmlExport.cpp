#include "XmlExport.hpp"

#include "Route.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <set>

namespace sg4 = simgrid::s4u;

namespace bxisim::platform
{

namespace
{
const sg4::Host* gateway_of(const SimulatedNode& node)
{
  return node.nic != nullptr ? node.nic : node.cores.front();
}

std::vector<const sg4::Host*> hosts_of(const SimulatedNode& node)
{
  std::vector<const sg4::Host*> hosts(node.cores.begin(), node.cores.end());
  if (node.nic != nullptr)
    hosts.insert(hosts.begin(), node.nic);
  return hosts;
}

class XmlWriter
{
 public:
  explicit XmlWriter(std::ostream& out) : out_(out) {}

  void declare_links(const std::vector<sg4::Link*>& links, const std::string& indent)
  {
    for (const auto* link : links) {
      if (not declared_.insert(link->get_name()).second)
        continue;
      const char* sharing = link->get_sharing_policy() == sg4::Link::SharingPolicy::FATPIPE ? "FATPIPE" : "SHARED";
      // {} prints the shortest text that reads back as the same double: the round trip is exact.
      fmt::print(out_, "{}<link id=\"{}\" bandwidth=\"{}Bps\" latency=\"{}s\" sharing_policy=\"{}\"/>\n", indent,
                 link->get_name(), link->get_bandwidth(), link->get_latency(), sharing);
    }
  }

  void print_link_list(const std::vector<sg4::Link*>& links, const std::string& indent)
  {
    for (const auto* link : links)
      fmt::print(out_, "{}<link_ctn id=\"{}\"/>\n", indent, link->get_name());
  }

  void print_node_zone(const SimulatedNode& node)
  {
    auto hosts = hosts_of(node);
    std::vector<std::pair<std::pair<const sg4::Host*, const sg4::Host*>, Route>> routes;
    for (const auto* source : hosts)
      for (const auto* destination : hosts)
        if (source != destination)
          routes.push_back({{source, destination}, Route::between(source, destination)});
    // The NIC's loopback (traffic that stays inside the node). A Full zone that has no route from a
    // host to itself would use SimGrid's own __loopback__ link instead.
    if (node.nic != nullptr) {
      Route loopback = Route::between(node.nic, node.nic);
      if (not loopback.links.empty())
        routes.push_back({{node.nic, node.nic}, std::move(loopback)});
    }

    fmt::print(out_, "    <zone id=\"{}\" routing=\"Full\">\n", node.name);
    for (const auto* host : hosts)
      fmt::print(out_, "      <host id=\"{}\" speed=\"{}f\"/>\n", host->get_name(), host->get_speed());
    for (const auto& entry : routes)
      declare_links(entry.second.links, "      ");
    for (const auto& [ends, route] : routes) {
      fmt::print(out_, "      <route src=\"{}\" dst=\"{}\" symmetrical=\"NO\">\n", ends.first->get_name(),
                 ends.second->get_name());
      print_link_list(route.links, "        ");
      fmt::print(out_, "      </route>\n");
    }
    fmt::print(out_, "    </zone>\n");
  }

 private:
  std::ostream& out_;
  std::set<std::string> declared_;
};
} // namespace

void export_simgrid_xml(std::ostream& out, const Machine& machine)
{
  XmlWriter writer(out);
  fmt::print(out, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
  fmt::print(out, "<!-- Exported by bxisim: {} -->\n", machine.description());
  fmt::print(out, "<platform version=\"4.1\">\n  <zone id=\"machine\" routing=\"Full\">\n");
  for (const auto& node : machine.nodes())
    writer.print_node_zone(node);

  const auto& nodes = machine.nodes();
  std::vector<Route> inter_node;
  for (const auto& source : nodes)
    for (const auto& destination : nodes)
      if (&source != &destination)
        inter_node.push_back(Route::between(gateway_of(source), gateway_of(destination)));
  for (const auto& route : inter_node)
    writer.declare_links(route.links, "    ");

  size_t next = 0;
  for (const auto& source : nodes)
    for (const auto& destination : nodes) {
      if (&source == &destination)
        continue;
      fmt::print(out, "    <zoneRoute src=\"{}\" dst=\"{}\" gw_src=\"{}\" gw_dst=\"{}\" symmetrical=\"NO\">\n",
                 source.name, destination.name, gateway_of(source)->get_name(), gateway_of(destination)->get_name());
      writer.print_link_list(inter_node[next++].links, "      ");
      fmt::print(out, "    </zoneRoute>\n");
    }
  fmt::print(out, "  </zone>\n</platform>\n");
}

} // namespace bxisim::platform
