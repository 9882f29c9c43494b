#pragma once
// One compute node: N core hosts and one NIC host in a zone of their own (S4BXI layout, thesis 4.1).
//
//   core_i --pcie-xfer-up--pcie-bus_UP--> NIC --pcie-bus_DOWN--pcie-xfer-down--> core_j
//
// The PCIe bus is one shared link per direction (PCIe is full duplex); the per-transfer cap is a
// FATPIPE link per direction, so a single transfer never exceeds it whatever the others do.
// Traffic between two cores of a node crosses the PCIe twice, through the NIC, as on BXI.
// The NIC is the zone's gateway: the node's BXI link starts there.
// A NIC sends the frames meant for its own node to itself through its loopback link (nodeK-nic ->
// nodeK-nic: nodeK-nic-loopback), so traffic inside a node goes core -> PCIe -> NIC -> loopback ->
// PCIe -> core, as on BXI hardware, never on the BXI wire.

#include "Machine.hpp"
#include "PlatformConfig.hpp"

#include <simgrid/s4u/NetZone.hpp>

#include <utility>

namespace bxisim::platform
{

struct BuiltNode {
  SimulatedNode node;
  simgrid::s4u::NetZone* zone;
};

/** Builds node `index` as a sealed zone whose parent is `parent`. */
BuiltNode build_node(simgrid::s4u::NetZone* parent, int index, const NodeConfig& config);

/** The netpoint and gateway pair SimGrid's cluster zones expect from a leaf. */
std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*> leaf_of(const BuiltNode& built);

std::string node_name(int index);

} // namespace bxisim::platform
