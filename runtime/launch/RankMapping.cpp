#include "RankMapping.hpp"

#include "config/ConfigError.hpp"

#include <fmt/format.h>

namespace bxisim::runtime
{

std::vector<RankPlacement> map_ranks(const platform::Machine& machine, int ranks, int ranks_per_node, MapBy map_by,
                                     CoreSharing sharing)
{
  const auto& nodes = machine.nodes();
  if (ranks < 1)
    throw config::ConfigError(fmt::format("-n {}: give at least one rank.", ranks));
  if (nodes.empty())
    throw config::ConfigError("the platform has no node to run ranks on.");
  auto cores = static_cast<int>(nodes.front().cores.size());
  if (ranks_per_node < 0)
    throw config::ConfigError(fmt::format("--ppn {}: give a positive number of ranks per node.", ranks_per_node));
  bool shared     = sharing == CoreSharing::Allowed;
  auto node_count = static_cast<int>(nodes.size());
  if (ranks_per_node == 0)
    ranks_per_node = shared && ranks > node_count * cores ? (ranks + node_count - 1) / node_count : cores;
  if (ranks_per_node > cores && not shared)
    throw config::ConfigError(fmt::format("--ppn {}: the nodes of this platform have {} core(s), one rank per core; "
                                          "give --ppn {} or less, more cores with --set node.cores={}, or "
                                          "--oversubscribe for ranks that share cores.",
                                          ranks_per_node, cores, cores, ranks_per_node));
  int nodes_used = (ranks + ranks_per_node - 1) / ranks_per_node;
  if (nodes_used > node_count)
    throw config::ConfigError(fmt::format(
        "-n {} with {} rank(s) per node needs {} nodes, but the platform ({}) has {}. Use a larger platform ({}), "
        "{}{}or fewer ranks.",
        ranks, ranks_per_node, nodes_used, machine.description(), nodes.size(), machine.options_for(nodes_used),
        machine.has_node_model() ? "more cores per node (--set node.cores=...), " : "",
        shared ? "" : "--oversubscribe for ranks that share cores, "));

  std::vector<RankPlacement> placements;
  std::vector<int> per_node(static_cast<size_t>(nodes_used), 0);
  for (int rank = 0; rank < ranks; ++rank) {
    int node  = map_by == MapBy::Core ? rank / ranks_per_node : rank % nodes_used;
    int local = per_node[static_cast<size_t>(node)]++;
    placements.push_back({rank, node, local, 0, local});
  }
  for (auto& placement : placements) {
    placement.local_size = per_node[static_cast<size_t>(placement.node)];
    auto node_cores      = static_cast<int>(nodes[static_cast<size_t>(placement.node)].cores.size());
    if (shared)
      placement.core %= node_cores;
    else if (placement.core >= node_cores)
      throw config::ConfigError(fmt::format("node {} has too few cores for {} ranks (or give --oversubscribe).",
                                            nodes[static_cast<size_t>(placement.node)].name, placement.local_size));
  }
  return placements;
}

} // namespace bxisim::runtime
