#pragma once
// Places ranks on the core hosts of the simulated machine (`bxisim run --ppn --map-by`).

#include "Rank.hpp"
#include "platforms/Machine.hpp"

#include <vector>

namespace bxisim::runtime
{

enum class MapBy {
  Core, // fill a node's cores before the next node: ranks 0..ppn-1 on node 0
  Node, // round-robin over the nodes used: rank 0 on node 0, rank 1 on node 1, ...
};

/**
 * One placement per rank. `ranks_per_node` 0 means one rank per core. Uses the first
 * ceil(ranks / ranks_per_node) nodes; local ranks follow rank order and run on cores 0, 1, ...
 * Throws config::ConfigError, naming the way out, when the ranks do not fit the machine.
 */
std::vector<RankPlacement> map_ranks(const platform::Machine& machine, int ranks, int ranks_per_node, MapBy map_by);

} // namespace bxisim::runtime
