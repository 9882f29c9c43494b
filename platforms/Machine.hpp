#pragma once
// The simulated machine once built in SimGrid: which hosts are cores and NICs of which node.

#include <simgrid/s4u/Host.hpp>

#include <functional>
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
  /** `growth`: the options that make this kind of platform hold a given number of nodes, for messages. */
  Machine(std::string description, std::vector<SimulatedNode> nodes, bool node_model,
          std::function<std::string(int nodes)> growth);

  const std::string& description() const { return description_; }
  const std::vector<SimulatedNode>& nodes() const { return nodes_; }
  bool has_node_model() const { return node_model_; }
  simgrid::s4u::Host* core(int node, int core) const;
  size_t core_count() const;
  /** How to get a platform of this kind with `nodes` nodes ("--set platform.nodes=12"). */
  std::string options_for(int nodes) const { return growth_(nodes); }

 private:
  std::string description_;
  std::vector<SimulatedNode> nodes_;
  bool node_model_;
  std::function<std::string(int nodes)> growth_;
};

} // namespace bxisim::platform
