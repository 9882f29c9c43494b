// The single table of bxisim parameters. Parsing, validation, `bxisim params` and docs/parameters.md
// all come from here: add a parameter by adding a row.

#include "ParameterSpec.hpp"

#include <algorithm>

namespace bxisim::config
{

namespace
{
using T                      = ParameterType;
constexpr Bound kPositive    = {0.0, false};
constexpr Bound kNonNegative = {0.0, true};
constexpr Bound kAtLeastOne  = {1.0, true};

const std::vector<ParameterSpec> kTable = {
    // --- topology -------------------------------------------------------------------------------
    {"platform.topology",
     T::Choice,
     "",
     "fat-tree",
     "Shape of the simulated machine: a fat-tree of nodes, one switch, two switches joined by one "
     "inter-switch link (the flow-control study), or a SimGrid XML platform loaded as-is",
     "DESIGN.md section 3",
     {"fat-tree", "single-switch", "two-switches", "xml"}},
    {"platform.xml", T::Path, "", "",
     "SimGrid XML platform file, used when platform.topology = xml (no node model is applied: each "
     "host is one core, for the smpi level)",
     "DESIGN.md section 3"},
    {"platform.nodes",
     T::Integer,
     "nodes",
     "4",
     "Nodes attached to the switch of the single-switch topology",
     "bxisim choice: the smallest machine with both intra- and inter-node routes to study",
     {},
     kAtLeastOne},
    {"platform.nodes_per_switch",
     T::Integer,
     "nodes",
     "3",
     "Nodes attached to each switch of the two-switches topology",
     "thesis 7.1, figure 7.1: two flooding pairs and one measured pair across the shared link",
     {},
     kAtLeastOne},
    {"platform.fat_tree", T::Text, "", "2;4,4;1,2;1,2",
     "Fat-tree shape in SimGrid's notation levels;down;up;link-count (D-mod-K routing, one node per leaf)",
     "SimGrid documentation, Platform_examples, fat-tree cluster example"},
    // --- node model -----------------------------------------------------------------------------
    {"node.cores",
     T::Integer,
     "cores",
     "8",
     "Core hosts per node (each rank runs on one core host)",
     "thesis 7.1: eight processes per node in the flow-control study",
     {},
     kAtLeastOne},
    {"node.core_speed",
     T::Speed,
     "flop/s",
     "10Gf",
     "Speed of one core host",
     "S4BXI examples/platform.xml (machine0: 10Gf)",
     {},
     kPositive},
    {"node.nic_speed",
     T::Speed,
     "flop/s",
     "1Gf",
     "Speed of the NIC host (NIC actors compute on it)",
     "S4BXI examples/platform.xml (machine0_NIC: 1Gf)",
     {},
     kPositive},
    {"pcie.bus_bandwidth",
     T::Bandwidth,
     "B/s",
     "15.75GBps",
     "Bandwidth of the PCIe bus, shared by every transfer in one direction",
     "thesis 4.1: PCIe gen3 x16, 15.75 GB/s",
     {},
     kPositive},
    {"pcie.bus_latency",
     T::Duration,
     "s",
     "250ns",
     "Latency of the PCIe bus",
     "S4BXI examples/platform.xml (machine0_PCI: 250ns)",
     {},
     kNonNegative},
    {"pcie.transfer_bandwidth",
     T::Bandwidth,
     "B/s",
     "12.5GBps",
     "Cap on the bandwidth of each single PCIe transfer (FATPIPE link, not shared): transfers flow from "
     "the bus onto the BXI link, so one transfer never beats the link",
     "thesis 4.1 (per-transfer cap of 12.5 GB/s), DESIGN.md section 3",
     {},
     kPositive},
    {"pcie.transfer_latency",
     T::Duration,
     "s",
     "0ns",
     "Latency of the per-transfer PCIe cap link",
     "S4BXI examples/platform.xml (machine0_PCI_FAT: 0ns)",
     {},
     kNonNegative},
    // --- BXI network ----------------------------------------------------------------------------
    {"bxi.link_bandwidth",
     T::Bandwidth,
     "B/s",
     "12.5GBps",
     "Bandwidth of a BXI link (NIC to switch, and switch to switch in fat-trees), each direction",
     "thesis 4.1: BXI v2 links are 100 Gb/s",
     {},
     kPositive},
    {"bxi.link_latency",
     T::Duration,
     "s",
     "500ns",
     "Latency of a BXI link",
     "S4BXI examples/platform.xml (machine0_BXI: 500ns)",
     {},
     kNonNegative},
    {"bxi.interswitch_bandwidth",
     T::Bandwidth,
     "B/s",
     "12.5GBps",
     "Bandwidth of the link joining the two switches of the two-switches topology, each direction",
     "thesis 7.1: one BXI link shared by the flows between the switches",
     {},
     kPositive},
    {"bxi.interswitch_latency",
     T::Duration,
     "s",
     "500ns",
     "Latency of the link joining the two switches of the two-switches topology",
     "same as bxi.link_latency (S4BXI examples/platform.xml)",
     {},
     kNonNegative},
    // --- CPU time of the ranks (bxisim run) -------------------------------------------------------
    {"cpu.simulate", T::Boolean, "", "true",
     "Simulate the CPU time ranks spend in their own code between two simulator calls as computation on "
     "their core (false: computation takes no simulated time, runs are deterministic)",
     "thesis 4.5.4 and SMPI's smpi/simulate-computation"},
    {"cpu.factor",
     T::Real,
     "",
     "1",
     "Simulated seconds per measured second of CPU time (the simulated core's speed relative to this machine's)",
     "SMPI's smpi/host-speed, as a ratio",
     {},
     kPositive},
    {"cpu.threshold",
     T::Duration,
     "s",
     "1us",
     "CPU bursts shorter than this are not simulated (they are mostly the cost of the simulator call itself)",
     "SMPI's smpi/cpu-threshold (default 1e-6 s)",
     {},
     kNonNegative},
};
} // namespace

std::string_view type_name(ParameterType type)
{
  switch (type) {
  case T::Integer:
    return "integer";
  case T::Real:
    return "number";
  case T::Bandwidth:
    return "bandwidth";
  case T::Duration:
    return "duration";
  case T::Speed:
    return "speed";
  case T::Size:
    return "size";
  case T::Boolean:
    return "boolean";
  case T::Choice:
    return "choice";
  case T::Text:
    return "text";
  case T::Path:
    return "path";
  }
  return "?";
}

const std::vector<ParameterSpec>& parameter_table()
{
  return kTable;
}

const ParameterSpec* find_parameter(std::string_view name)
{
  auto it = std::find_if(kTable.begin(), kTable.end(), [name](const ParameterSpec& spec) { return spec.name == name; });
  return it == kTable.end() ? nullptr : &*it;
}

} // namespace bxisim::config
