// Fat-tree: SimGrid's FatTreeZone (D-mod-K routing), each leaf being a node's own zone whose gateway
// is the NIC, so the leaf links of the tree are the nodes' BXI links.

#include "NodeModel.hpp"
#include "Topologies.hpp"

#include <simgrid/s4u/NetZone.hpp>

#include <fmt/format.h>

namespace sg4 = simgrid::s4u;

namespace bxisim::platform
{

Machine build_fat_tree(const PlatformConfig& config)
{
  const FatTreeShape& shape = config.fat_tree;
  std::vector<SimulatedNode> nodes(shape.leaf_count());
  auto make_leaf = [&config, &nodes](sg4::NetZone* tree, const std::vector<unsigned long>& /*coord*/,
                                     unsigned long id) {
    BuiltNode built = build_node(tree, static_cast<int>(id), config.node);
    auto leaf       = leaf_of(built);
    nodes.at(id)    = std::move(built.node);
    return leaf;
  };
  sg4::create_fatTree_zone("fat-tree", nullptr, sg4::FatTreeParams(shape.levels, shape.down, shape.up, shape.links),
                           sg4::ClusterCallbacks(make_leaf), config.bxi_link.bandwidth, config.bxi_link.latency,
                           sg4::Link::SharingPolicy::SPLITDUPLEX)
      ->seal();
  std::string description =
      fmt::format("fat-tree {} (D-mod-K), {} nodes of {} cores", shape.notation(), nodes.size(), config.node.cores);
  return Machine(std::move(description), std::move(nodes), true, [shape](int wanted) {
    FatTreeShape larger = shape; // the top level's children multiplied until the leaves are enough
    unsigned below      = shape.leaf_count() / shape.down.back();
    larger.down.back()  = (static_cast<unsigned>(wanted) + below - 1) / below;
    return fmt::format("--set 'platform.fat_tree={}', or --platform single-switch --set platform.nodes={}",
                       larger.notation(), wanted);
  });
}

} // namespace bxisim::platform
