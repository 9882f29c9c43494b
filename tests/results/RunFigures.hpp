#pragma once
// What the tests of the run's outputs expect of examples/portals/pingpong.c, derived from the
// parameter defaults: each iteration is two Puts without ACK, each acknowledged by a BXI ACK (E2E).

#include "config/Parameters.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace bxisim::test
{

enum class Path { Wire, Loopback };

struct PingpongFigures {
  config::Parameters p = config::Parameters::defaults();

  /** Bytes of a frame on the wire or the loopback: BXI packets of nic.wire_packet bytes. */
  double frame_bytes(double payload) const { return packets(payload) * p.real("nic.wire_packet"); }
  double packets(double payload) const { return std::max(1.0, std::ceil(payload / p.real("nic.wire_packet_payload"))); }
  /** A frame's time on the links between two NICs (two links through the switch) or on the loopback. */
  double frame_time(double payload, Path path) const
  {
    return path == Path::Wire
               ? 2 * p.real("bxi.link_latency") + frame_bytes(payload) / p.real("bxi.link_bandwidth")
               : p.real("bxi.loopback_latency") + frame_bytes(payload) / p.real("bxi.loopback_bandwidth");
  }
  /** The command a Put writes to the NIC over PCIe: with its payload when PIO (inline payloads ride in the
   * command, the NIC reads DMA payloads itself). */
  double command_time(double payload) const
  {
    double latency   = p.real("pcie.transfer_latency") + p.real("pcie.bus_latency");
    double bandwidth = std::min(p.real("pcie.transfer_bandwidth"), p.real("pcie.bus_bandwidth"));
    return latency + (p.real("nic.command_size") +
                      (payload > p.real("nic.inline_max") && payload <= p.real("nic.pio_max") ? payload : 0)) /
                         bandwidth;
  }
};

inline const std::string kPingpong = std::string(BXISIM_EXAMPLE_PROGRAMS) + "/pingpong";

} // namespace bxisim::test
