#include "Machine.hpp"

#include <stdexcept>

namespace bxisim::platform
{

Machine::Machine(std::string description, std::vector<SimulatedNode> nodes, bool node_model,
                 std::function<std::string(int nodes)> growth)
    : description_(std::move(description)), nodes_(std::move(nodes)), node_model_(node_model),
      growth_(std::move(growth))
{
}

simgrid::s4u::Host* Machine::core(int node, int core) const
{
  return nodes_.at(static_cast<size_t>(node)).cores.at(static_cast<size_t>(core));
}

size_t Machine::core_count() const
{
  size_t count = 0;
  for (const auto& node : nodes_)
    count += node.cores.size();
  return count;
}

} // namespace bxisim::platform
