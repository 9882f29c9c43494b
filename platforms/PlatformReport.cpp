#include "PlatformReport.hpp"

#include "Route.hpp"

#include "config/ConfigError.hpp"
#include "config/Spelling.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace sg4 = simgrid::s4u;

namespace bxisim::platform
{

namespace
{
std::string sharing_name(sg4::Link::SharingPolicy policy)
{
  switch (policy) {
  case sg4::Link::SharingPolicy::FATPIPE:
    return "FATPIPE";
  case sg4::Link::SharingPolicy::SPLITDUPLEX:
    return "SPLITDUPLEX";
  case sg4::Link::SharingPolicy::SHARED:
    return "SHARED";
  default:
    return "other";
  }
}

std::string bandwidth_text(double bytes_per_second)
{
  return fmt::format("{:g} GB/s", bytes_per_second / 1e9);
}

std::string latency_text(double seconds)
{
  return fmt::format("{:g} ns", seconds * 1e9);
}

const sg4::Host* host_or_throw(const std::string& name)
{
  if (auto* host = sg4::Host::by_name_or_null(name))
    return host;
  std::vector<std::string> names;
  for (const auto* host : sg4::Engine::get_instance()->get_all_hosts())
    names.push_back(host->get_name());
  std::vector<std::string_view> views(names.begin(), names.end());
  throw config::ConfigError(fmt::format("--route: no host named '{}' in this platform.{} `bxisim platform show` "
                                        "lists the hosts.",
                                        name, config::did_you_mean(name, views)));
}

/** Route pairs a reader wants first: inside a node (and the NIC's loopback the traffic inside a node
 * takes), to a neighbour, to the farthest node. */
std::vector<std::pair<const sg4::Host*, const sg4::Host*>> typical_routes(const Machine& machine)
{
  std::vector<std::pair<const sg4::Host*, const sg4::Host*>> pairs;
  const auto& nodes = machine.nodes();
  const auto& first = nodes.front();
  if (first.cores.size() > 1)
    pairs.emplace_back(first.cores[0], first.cores[1]);
  if (first.nic != nullptr)
    pairs.emplace_back(first.nic, first.nic);
  if (nodes.size() > 1)
    pairs.emplace_back(first.cores[0], nodes[1].cores[0]);
  if (nodes.size() > 2)
    pairs.emplace_back(first.cores[0], nodes.back().cores[0]);
  return pairs;
}
} // namespace

void print_route(std::ostream& out, const sg4::Host* source, const sg4::Host* destination)
{
  Route route = Route::between_or_throw(source, destination);
  fmt::print(out, "  {} -> {}\n", source->get_name(), destination->get_name());
  for (const auto* link : route.links)
    fmt::print(out, "    {:<32} {:>12} {:>10} {}\n", link->get_name(), bandwidth_text(link->get_bandwidth()),
               latency_text(link->get_latency()), sharing_name(link->get_sharing_policy()));
  fmt::print(out, "    total: {} links, latency {}, bottleneck {}\n", route.links.size(), latency_text(route.latency),
             bandwidth_text(route.bottleneck));
}

void print_platform_report(std::ostream& out, const Machine& machine, const ReportOptions& options)
{
  auto* engine = sg4::Engine::get_instance();
  std::vector<std::pair<const sg4::Host*, const sg4::Host*>> routes;
  for (const auto& [source, destination] : options.routes)
    routes.emplace_back(host_or_throw(source), host_or_throw(destination)); // before printing anything
  if (routes.empty())
    routes = typical_routes(machine);
  fmt::print(out, "Platform: {}\n", machine.description());
  fmt::print(out, "\nHosts ({}):\n", engine->get_host_count());
  for (const auto& node : machine.nodes()) {
    const auto* core  = node.cores.front();
    std::string cores = node.cores.size() == 1
                            ? core->get_name()
                            : fmt::format("{} .. {}", core->get_name(), node.cores.back()->get_name());
    fmt::print(out, "  {:<8} cores {} ({} x {:g} Gflop/s)", node.name, cores, node.cores.size(),
               core->get_speed() / 1e9);
    if (node.nic != nullptr)
      fmt::print(out, ", NIC {} ({:g} Gflop/s)", node.nic->get_name(), node.nic->get_speed() / 1e9);
    fmt::print(out, "\n");
  }
  if (options.list_links) {
    auto links = engine->get_all_links();
    std::sort(links.begin(), links.end(),
              [](const sg4::Link* a, const sg4::Link* b) { return a->get_name() < b->get_name(); });
    fmt::print(out, "\nLinks ({}):\n", links.size());
    for (const auto* link : links)
      fmt::print(out, "  {:<32} {:>12} {:>10} {}\n", link->get_name(), bandwidth_text(link->get_bandwidth()),
                 latency_text(link->get_latency()), sharing_name(link->get_sharing_policy()));
  }
  fmt::print(out, "\nRoutes:\n");
  for (auto [source, destination] : routes)
    print_route(out, source, destination);
  if (machine.description().rfind("fat-tree", 0) == 0)
    fmt::print(out,
               "\nFat-tree links are named by SimGrid: link_from_<child>_<switch>_<serial>, where elements 0 to "
               "{} are the nodes and higher numbers are switches; _UP goes towards the top of the tree.\n",
               machine.nodes().size() - 1);
}

} // namespace bxisim::platform
