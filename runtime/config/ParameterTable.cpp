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
    {"bxi.loopback_bandwidth",
     T::Bandwidth,
     "B/s",
     "12.5GBps",
     "Bandwidth of the loopback inside each NIC, which carries the frames between two processes of one node "
     "(or from a process to itself) without the BXI wire; one link per NIC, shared by all such frames",
     "bxisim assumption: the NIC's internal datapath is sized for its port (thesis 4.1: 100 Gb/s = 12.5 GB/s); "
     "no published figure for BXI's loopback",
     {},
     kPositive},
    {"bxi.loopback_latency",
     T::Duration,
     "s",
     "0ns",
     "Latency of the loopback inside each NIC (no serdes, cable or switch on the way; the NIC's processing is "
     "nic.tx_delay and nic.rx_delay)",
     "bxisim assumption: no published figure for BXI's loopback",
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
    // --- MPI programs (bxisim run of a program calling MPI, over OpenMPI per rank) -----------------
    {"mpi.pml",
     T::Choice,
     "",
     "ob1",
     "OpenMPI's path over Portals: ob1 (pml ob1, btl portals4 and self, as BXI's OpenMPI) or cm (pml cm, mtl "
     "portals4 with its flow control)",
     "issue 10; DESIGN.md section 6",
     {"ob1", "cm"}},
    {"mpi.polling",
     T::Choice,
     "",
     "delay",
     "What an empty Portals poll inside a blocking MPI wait does: sleep a growing delay (10 ns to 1 us), or block "
     "until the rank's next Portals event (exact; not usable yet: it deadlocks when an event waits in another EQ)",
     "DESIGN.md section 5 (polling)",
     {"block", "delay"}},
    // --- message-level NIC model (bxisim run --level message) -------------------------------------
    {"nic.command_queue_depth", T::Integer, "commands", "89",
     "Commands a process may have posted that TX has not taken yet; the rank waits when they are all used",
     "thesis 4.3.2: 16 slots per process in BXI, 89 fit S4BXI's message-granularity pipeline best",
     {},
     kAtLeastOne},
    {"nic.response_queue_depth", T::Integer, "responses", "16",
     "Responses (ACKs, Get replies) a NIC holds before its RX stops taking requests: the back-pressure of the "
     "target NIC's pipeline",
     "bxisim choice, the depth of BXI's command queues (thesis 4.3.2: 16 slots)",
     {},
     kAtLeastOne},
    {"nic.inline_max", T::Size, "B", "8", "Largest payload carried inside the command (operations with match bits)",
     "thesis 4.3.3 (BXI v2)", {}, kNonNegative},
    {"nic.inline_max_unmatched", T::Size, "B", "16", "Largest payload carried inside the command (no match bits)",
     "thesis 4.3.3 (BXI v2)", {}, kNonNegative},
    {"nic.pio_max", T::Size, "B", "408",
     "Largest payload the CPU writes to the NIC (PIO) with match bits; above, the NIC reads it by DMA",
     "thesis 4.3.3 (BXI v2)", {}, kNonNegative},
    {"nic.pio_max_unmatched", T::Size, "B", "416", "Largest PIO payload without match bits",
     "thesis 4.3.3 (BXI v2)", {}, kNonNegative},
    {"nic.early_send_max", T::Size, "B", "64",
     "Payloads up to this size get their SEND event when sent (kept in the E2E context), larger ones at ACK time",
     "thesis 4.3.2 (BXI v2)", {}, kNonNegative},
    {"nic.pcie_packet", T::Size, "B", "512", "PCIe packet size: a DMA read must bring one in before the wire starts",
     "thesis 4.3.3 (512 B; 256 and 1024 B possible)", {}, kAtLeastOne},
    {"nic.wire_packet", T::Size, "B", "72", "Size of one BXI packet on a link, header included",
     "thesis 4.3.3: two 32 B flits and an 8 B header", {}, kAtLeastOne},
    {"nic.wire_packet_payload", T::Size, "B", "64", "Payload bytes one BXI packet carries",
     "thesis 4.3.3: two 32 B flits", {}, kAtLeastOne},
    {"nic.command_size", T::Size, "B", "64", "Bytes of one command written by the CPU to the NIC",
     "bxisim choice: one cache line, the unit of a posted PCIe write", {}, kNonNegative},
    {"nic.event_size", T::Size, "B", "64", "Bytes of one full event written back to memory by the NIC",
     "bxisim choice: one cache line (ptl_event_t is 64 B on x86-64)", {}, kNonNegative},
    {"nic.tx_delay", T::Duration, "s", "0ns", "TX processing time of one command before its transfer starts",
     "bxisim choice, to calibrate (thesis 4.6.1: S4BXI uses sleeps of a few hundred ns)", {}, kNonNegative},
    {"nic.rx_delay", T::Duration, "s", "0ns", "RX processing time of one incoming message before it is matched",
     "bxisim choice, to calibrate (thesis 4.6.1)", {}, kNonNegative},
    {"nic.e2e", T::Boolean, "", "true", "End-to-end reliability: BXI ACKs, retransmission after a timeout",
     "thesis 2.2.3 and 4.2.1 (BXI can turn it off)"},
    {"nic.e2e_timeout", T::Duration, "s", "1ms", "Time after which an unacknowledged message is sent again",
     "bxisim choice (a parameter of BXI's kernel module, thesis 4.2.1)", {}, kPositive},
    {"nic.e2e_retries", T::Integer, "", "5", "Retransmissions before a message is declared undeliverable",
     "bxisim choice (S4BXI_MAX_RETRIES in S4BXI)", {}, kNonNegative},
    {"nic.quick_acks", T::Boolean, "", "false",
     "Raise ACK events from the target without an ACK message on the wire (faster, less exact)",
     "thesis 4.3.4, S4BXI's quick ACKs"},
    {"nic.model_pcie", T::Boolean, "", "true", "Simulate PCIe transfers at all (false: faster, less exact)",
     "thesis 4.3.4, S4BXI's model_pci"},
    {"nic.model_pcie_commands", T::Boolean, "", "true",
     "Simulate the small PCIe transfers: commands, PIO payloads, events", "thesis 4.3.4, S4BXI's model_pci_commands"},
    {"nic.drop_frames", T::Text, "", "",
     "Wire frames the network loses, by their 1-based sending order (e.g. 1,5): to study E2E recovery",
     "bxisim choice (fault injection)"},
    // --- faults of the network (both NIC models) ------------------------------------------------
    {"fault.loss_rate", T::Real, "", "0",
     "Probability that a frame is lost on each BXI link it crosses (drawn per frame and link from fault.seed; "
     "the NIC's loopback never loses): E2E sends the lost frames again",
     "bxisim choice (fault injection)", {}, kNonNegative},
    {"fault.seed", T::Integer, "", "1", "Seed of the random frame losses: the same seed gives the same losses",
     "bxisim choice (fault injection)", {}, kNonNegative},
    {"fault.links", T::Text, "", "",
     "Links down during intervals, ';'-separated: link=NAME,down=T1[,up=T2] or link=NAME,profile=FILE (a SimGrid "
     "state profile); --fault adds one",
     "bxisim choice (fault injection)"},
    // --- NIC flow control (both NIC models; thesis 7.1) --------------------------------------------
    {"nic.flow_control_nic_limit", T::Integer, "requests", "0",
     "NIC flow control: requests a NIC may have in flight (sent, not yet acknowledged) towards one destination NIC; "
     "0 turns the limit off",
     "thesis 7.1 (the feature under study)", {}, kNonNegative},
    {"nic.flow_control_process_limit", T::Integer, "requests", "0",
     "NIC flow control: requests a NIC may have in flight towards one destination process; 0 turns the limit off",
     "thesis 7.1 (the feature under study)", {}, kNonNegative},
    // --- cycle-approximate NIC model (bxisim run --level cycle) -----------------------------------
    {"cycle.clock", T::Real, "Hz", "1e9", "Clock of the cycle NIC: every latency below is a whole number of its periods",
     "bxisim choice (BXI v2's ASIC clock is not published)", {}, kPositive},
    {"cycle.command_queue_slots", T::Integer, "commands", "16",
     "Command queue slots per process on the NIC; the CPU waits when they are all used",
     "thesis 4.3.2: 16 slots per process in BXI", {}, kAtLeastOne},
    {"cycle.mmio_cycles", T::Integer, "cycles", "2", "PCIe endpoint: taking one MMIO command write",
     "bxisim choice, calibrated: one-message latencies within 10% of the message model inside a node", {}, kNonNegative},
    {"cycle.schedule_cycles", T::Integer, "cycles", "2", "Command queues: picking the next command among the processes",
     "bxisim choice, to calibrate", {}, kNonNegative},
    {"cycle.decode_cycles", T::Integer, "cycles", "2", "Command decoder: one command (inline, PIO or DMA)",
     "bxisim choice, calibrated: one-message latencies within 10% of the message model inside a node", {}, kNonNegative},
    {"cycle.tlb_entries", T::Integer, "pages", "64", "Address translation (V2P): entries of the NIC's TLB",
     "bxisim choice (thesis 4.2.1: the NIC walks the page table as the MMU does)", {}, kAtLeastOne},
    {"cycle.page_size", T::Size, "B", "4KiB", "Address translation: page size", "x86-64 base pages", {}, kAtLeastOne},
    {"cycle.tlb_hit_cycles", T::Integer, "cycles", "1", "Address translation: a TLB hit",
     "bxisim choice, to calibrate", {}, kNonNegative},
    {"cycle.page_walk_cycles", T::Integer, "cycles", "100",
     "Address translation: a page walk on a TLB miss (later pages of a DMA payload are walked while earlier ones "
     "move, so only the first is on the critical path)",
     "bxisim choice, to calibrate", {}, kNonNegative},
    {"cycle.packetize_cycles", T::Integer, "cycles", "2", "Packetizer: until the first link packet of a message is ready",
     "bxisim choice, calibrated: one-message latencies within 10% of the message model inside a node", {}, kNonNegative},
    {"cycle.packet_cycles", T::Integer, "cycles", "4",
     "Packetizer: one link packet every this many cycles (4 at 1 GHz: faster than the 5.76 ns a 72 B packet takes "
     "on a 12.5 GB/s link)",
     "bxisim choice, to calibrate", {}, kAtLeastOne},
    {"cycle.vn_depth", T::Integer, "frames", "8", "Frames each of the four virtual network queues holds before the wire",
     "bxisim choice", {}, kAtLeastOne},
    {"cycle.arbitrate_cycles", T::Integer, "cycles", "1", "Wire arbiter: choosing the next frame among the virtual networks",
     "bxisim choice, to calibrate", {}, kNonNegative},
    {"cycle.flits_per_packet", T::Integer, "flits", "2", "Link credits one link packet takes in the peer's receive buffer",
     "thesis 4.3.3: a 72 B packet is two 32 B flits and a header", {}, kAtLeastOne},
    {"cycle.link_credits", T::Integer, "flits", "4096",
     "Link-level credits: flits of the peer's receive buffer; the link port stops when they are used up and goes on "
     "as the receiver drains them",
     "bxisim choice: above the bandwidth-delay product of a link round trip, so credits limit only under congestion",
     {}, kAtLeastOne},
    {"cycle.depacketize_cycles", T::Integer, "cycles", "2", "Depacketizer: one incoming frame",
     "bxisim choice, calibrated: one-message latencies within 10% of the message model inside a node", {}, kNonNegative},
    {"cycle.lme_count", T::Integer, "engines", "4", "List Matching Engines working in parallel on incoming headers",
     "thesis 1.3: four LMEs on the BXI ASIC (two on the FPGA prototype)", {}, kAtLeastOne},
    {"cycle.lme_cycles", T::Integer, "cycles", "48",
     "One LME: from a header to its matching decision (with 4 LMEs at 1 GHz: one header every 12 ns)",
     "bxisim choice, calibrated: one-message latencies within 10% of the message model inside a node", {}, kNonNegative},
    {"cycle.dma_write_cycles", T::Integer, "cycles", "2", "DMA writer: setting up one write to memory",
     "bxisim choice, to calibrate", {}, kNonNegative},
    {"cycle.event_cycles", T::Integer, "cycles", "2", "Event engine: building one event or counter update",
     "bxisim choice, calibrated: one-message latencies within 10% of the message model inside a node", {}, kNonNegative},
    {"cycle.response_cycles", T::Integer, "cycles", "2", "Response generator: building one ACK or Get reply",
     "bxisim choice, calibrated: one-message latencies within 10% of the message model inside a node", {}, kNonNegative},
    {"cycle.e2e_cycles", T::Integer, "cycles", "2", "E2E engine: one BXI ACK sent or taken",
     "bxisim choice, to calibrate", {}, kNonNegative},
    {"cycle.dma_readers", T::Integer, "reads", "4", "DMA reads a NIC has outstanding on the PCIe at once",
     "bxisim choice (PCIe read tags)", {}, kAtLeastOne},
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
