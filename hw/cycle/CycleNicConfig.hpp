#pragma once
// Figures of the cycle NIC: one plain config struct per module, filled once from the parameter table
// (cycle.* for the pipeline, nic.* for the protocol figures both NIC models share). Times are
// sc_time constants derived once from the clock period: every latency is a whole number of cycles.

#include <systemc>

#include <cstdint>
#include <set>

namespace bxisim::config
{
class Parameters;
}

namespace bxisim::hw::cycle
{

/** The PCIe between a node's cores and its NIC, as SimGrid's route gives it (for the times a module
 * derives, such as when the first PCIe packet of a read is in). */
struct PcieFigures {
  double latency   = 0; // seconds
  double bandwidth = 1; // bytes per second (the route's bottleneck)
};

struct PcieEndpointConfig {
  sc_core::sc_time mmio;  // handling one MMIO command write
  uint64_t packet;        // PCIe packet: DMA reads and writes move in packets of this size
  PcieFigures pcie;       // for the arrival of a read's first packet
  bool model_pcie = true; // DMA transfers at all
  /** Time for the first packet of a `bytes` read to be in (all of it for one-packet reads). */
  sc_core::sc_time first_packet(uint64_t bytes) const;
};

struct CommandQueueConfig {
  unsigned slots;            // per process: the CPU waits when they are all used
  sc_core::sc_time schedule; // picking the next command among the processes' queues
};

struct CommandDecoderConfig {
  sc_core::sc_time decode;
  sc_core::sc_time tx_extra;                          // fixed extra TX time per command, after decoding (0: off)
  uint64_t inline_max_matching, inline_max_unmatched; // payload inside the command
  uint64_t pio_max_matching, pio_max_unmatched;       // payload written by the CPU; above: DMA
};

struct AddressTranslationConfig {
  unsigned tlb_entries;
  uint64_t page_size;
  sc_core::sc_time hit;  // TLB lookup
  sc_core::sc_time walk; // page walk on a miss
};

struct PacketizerConfig {
  sc_core::sc_time head;       // first packet of a message ready
  sc_core::sc_time per_packet; // initiation interval: one packet every this long
  uint64_t wire_packet;        // bytes of a link packet, header included
  uint64_t wire_packet_payload;
  /** Link packets that carry `payload` bytes (one at least: a header). */
  uint64_t packets(uint64_t payload) const;
};

struct WireArbiterConfig {
  sc_core::sc_time arbitrate; // one decision per frame
  unsigned vn_depth;          // frames each virtual network queue holds
  unsigned nic_limit;         // NIC flow control: requests in flight per destination NIC (0: off)
  unsigned process_limit;     // ... per destination process (0: off)
};

struct LinkPortConfig {
  double bandwidth;             // bytes per second of the NIC's link
  double loopback_bandwidth;    // bytes per second of the NIC's loopback (frames to its own node)
  uint64_t wire_packet;         // bytes per link packet
  uint64_t wire_packet_payload; // payload bytes one link packet carries
  unsigned flits_per_packet;    // link credits a packet takes in the peer's receive buffer
  unsigned credits;             // flits of the peer's receive buffer
  sc_core::sc_time port;        // the port's own latency per frame
  uint64_t early_send_max;      // SEND event once sent for payloads up to this (E2E context cache)
  bool e2e;
  std::set<uint64_t> dropped; // frames (1-based sending order) the network loses
  PcieFigures pcie;           // the DMA write engine's rate, for the payloads that arrive
  bool model_pcie = true;
  /** Time `bytes` occupy the port: on the link, or on the loopback for a frame to this node. */
  sc_core::sc_time serialization(uint64_t bytes, bool loopback = false) const;
};

struct DepacketizerConfig {
  sc_core::sc_time depacketize;
  PcieFigures pcie; // when an arrived payload will be in memory (see DmaWriterConfig::deposit)
  uint64_t pcie_packet;
  bool model_pcie = true;
};

struct ListMatchingEngineConfig {
  unsigned engines;       // LMEs working in parallel on incoming headers
  sc_core::sc_time match; // one header, start to decision
};

struct DmaWriterConfig {
  sc_core::sc_time setup; // per write
  PcieFigures pcie;       // the write engine holds the bus for each write's serialization
  uint64_t packet;
  bool model_pcie = true;
  /** Time after arrival for the last PCIe packet of `bytes` to be in memory (pipelined with the wire:
   * one packet, thesis figure 4.10). */
  sc_core::sc_time deposit(uint64_t bytes) const;
};

struct EventEngineConfig {
  sc_core::sc_time event; // building one full event or counter update
  uint64_t event_bytes;   // written to memory over PCIe
  bool write_events;      // the small PCIe transfers are simulated
};

struct ResponseGeneratorConfig {
  sc_core::sc_time generate;
  unsigned depth;  // responses it holds: the LMEs wait when it is full
  bool quick_acks; // ACK events without an ACK frame (simulation shortcut)
};

struct E2eEngineConfig {
  bool enabled;
  sc_core::sc_time timeout;
  int retries;
  sc_core::sc_time process; // per BXI ACK sent or received
};

struct CycleNicConfig {
  double clock_hz;
  sc_core::sc_time period;
  uint64_t command_bytes; // one command written by the CPU
  PcieEndpointConfig pcie_endpoint;
  CommandQueueConfig command_queue;
  CommandDecoderConfig command_decoder;
  AddressTranslationConfig address_translation;
  PacketizerConfig packetizer;
  WireArbiterConfig wire_arbiter;
  LinkPortConfig link_port;
  DepacketizerConfig depacketizer;
  ListMatchingEngineConfig list_matching;
  DmaWriterConfig dma_writer;
  EventEngineConfig event_engine;
  ResponseGeneratorConfig response_generator;
  E2eEngineConfig e2e;
  unsigned dma_readers;     // PCIe reads a NIC has outstanding at once
  bool model_pcie_commands; // command writes over PCIe

  /** `pcie`: the route between a core and its NIC; `link_bandwidth`: the NIC's link. */
  static CycleNicConfig from_parameters(const config::Parameters& parameters, const PcieFigures& pcie,
                                        double link_bandwidth);
  sc_core::sc_time cycles(uint64_t count) const { return period * static_cast<double>(count); }
};

/** Seconds to sc_time at SystemC's 1 ps resolution, and back. */
sc_core::sc_time to_sc_time(double seconds);
double to_seconds(const sc_core::sc_time& time);

} // namespace bxisim::hw::cycle
