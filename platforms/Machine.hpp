#pragma once
// The simulated machine once built in SimGrid: which hosts are cores and NICs of which node.

#include <simgrid/s4u/Host.hpp>

#include <string>
#include <vector>

namespace bxisim::platform
{

struct SimulatedNode {
  int index;
  std::string name;                       // also the hostname its ranks see
  std::vector<simgrid::s4u::Host*> cores; // one host per core: SimGrid would spread work over a multicore host
  simgrid::s4u::Host* nic = nullptr;      // nullptr on XML platforms, which have no node model
};

class Machine
{
 public:
  Machine(std::string description, std::vector<SimulatedNode> nodes, bool node_model);

  const std::string& description() const { return description_; }
  const std::vector<SimulatedNode>& nodes() const { return nodes_; }
  bool has_node_model() const { return node_model_; }
  simgrid::s4u::Host* core(int node, int core) const;
  size_t core_count() const;

 private:
  std::string description_;
  std::vector<SimulatedNode> nodes_;
  bool node_model_;
};

} // namespace bxisim::platform
