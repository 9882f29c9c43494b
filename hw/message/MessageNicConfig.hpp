#pragma once
// Figures of the message-level NIC model (thesis 4.2-4.3), filled once from the nic.* parameters.

#include "hw/actors/PollBackoff.hpp"
#include "platforms/WireFaults.hpp"

#include <cstdint>
#include <set>

namespace bxisim::config
{
class Parameters;
}

namespace bxisim::hw::message
{

struct MessageNicConfig {
  int command_queue_depth;           // commands a process may have posted and not yet processed by TX
  int response_queue_depth;          // responses a NIC holds before its RX stops taking requests
  unsigned read_ahead_frames;        // frames per network whose payloads are read before the wire
  uint64_t link_credit_bytes;        // wire bytes per network a link may have travelling (link credits)
  uint64_t inline_max_matching;      // payloads up to this travel inside the command (with match bits)
  uint64_t inline_max_unmatched;     // ... without match bits
  uint64_t pio_max_matching;         // payloads up to this are written by the CPU (PIO), above: DMA
  uint64_t pio_max_unmatched;        // ... without match bits
  uint64_t early_send_max;           // SEND event from the E2E context cache, not at ACK time
  uint64_t pcie_packet;              // bytes of one PCIe packet (DMA pipelining grain)
  uint64_t wire_packet;              // bytes of one BXI packet on a link, header included
  uint64_t wire_packet_payload;      // payload bytes one BXI packet carries
  uint64_t command_bytes;            // a command written by the CPU to the NIC
  uint64_t event_bytes;              // a full event written back by the NIC
  double tx_delay;                   // TX processing of one command, seconds
  double rx_delay;                   // RX processing of one incoming message, seconds
  bool e2e;                          // end-to-end reliability (retransmission, BXI ACKs)
  double e2e_timeout;                // seconds before an unacknowledged message is sent again
  int e2e_retries;                   // retransmissions before the message is declared undeliverable
  bool quick_acks;                   // ACK events raised by the target, no ACK message on the wire
  bool model_pcie;                   // PCIe transfers at all
  bool model_pcie_commands;          // small PCIe transfers: commands, PIO writes, events
  std::set<uint64_t> dropped_frames; // wire frames (1-based, in sending order) the network loses
  platform::FaultSpec faults;        // links down, random losses (fault.*)
  unsigned flow_nic_limit;           // NIC flow control: requests in flight per destination NIC (0: off)
  unsigned flow_process_limit;       // ... per destination process (0: off)
  PollBackoff poll_backoff;          // what an empty poll of a process sleeps

  static MessageNicConfig from_parameters(const config::Parameters& parameters);

  /** Bytes a payload of `payload` bytes occupies on a BXI link: whole packets. */
  uint64_t wire_bytes(uint64_t payload) const;
};

} // namespace bxisim::hw::message
