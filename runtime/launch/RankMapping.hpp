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

/** Whether ranks may outnumber the cores of their node (mpirun's --oversubscribe). */
enum class CoreSharing {
  Refused, // one rank per core: ranks that do not fit are an error naming the way out
  Allowed, // ranks beyond a node's cores share its cores, round-robin (SimGrid splits a core among its computations)
};

/**
 * One placement per rank. `ranks_per_node` 0 means one rank per core, or, when the ranks outnumber the machine's
 * cores and `sharing` allows it, as many per node as spreads them over every node. Uses the first
 * ceil(ranks / ranks_per_node) nodes; local ranks follow rank order and run on cores 0, 1, ... (then 0, 1, ... again
 * when shared). Throws config::ConfigError, naming the way out, when the ranks do not fit the machine.
 */
std::vector<RankPlacement> map_ranks(const platform::Machine& machine, int ranks, int ranks_per_node, MapBy map_by,
                                     CoreSharing sharing = CoreSharing::Refused);

} // namespace bxisim::runtime
