#pragma once
// The description of the simulated machine, filled once from the parameter table.

#include "FatTreeShape.hpp"

#include <string>

namespace bxisim::config
{
class Parameters;
}

namespace bxisim::platform
{

enum class Topology { FatTree, SingleSwitch, TwoSwitches, Xml };

struct LinkSpec {
  double bandwidth; // bytes per second
  double latency;   // seconds
};

struct NodeConfig {
  int cores;
  double core_speed;      // flop/s
  double nic_speed;       // flop/s
  LinkSpec pcie_bus;      // shared by every transfer in one direction
  LinkSpec pcie_transfer; // per-transfer cap (FATPIPE)
  LinkSpec nic_loopback;  // inside the NIC: frames between processes of the node, no BXI wire
};

struct PlatformConfig {
  Topology topology;
  std::string xml_file;
  int single_switch_nodes;
  int nodes_per_switch;
  FatTreeShape fat_tree;
  NodeConfig node;
  LinkSpec bxi_link;
  LinkSpec interswitch_link;

  static PlatformConfig from_parameters(const config::Parameters& parameters);
  /** Nodes the topology holds (0 for an XML platform: it has no node model). */
  int node_count() const;
};

} // namespace bxisim::platform
