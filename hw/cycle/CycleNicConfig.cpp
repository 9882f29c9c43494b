#include "CycleNicConfig.hpp"

#include "config/ConfigError.hpp"
#include "config/Parameters.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

// libsystemc.so defines main() and references sc_main: bxisim (and each test) has its own main, this
// one never runs. It lives in the file every user of the cycle model links.
int sc_main(int, char**)
{
  return 0;
}

namespace bxisim::hw::cycle
{

namespace
{
uint64_t bytes(const config::Parameters& parameters, const char* key)
{
  return static_cast<uint64_t>(parameters.real(key));
}
unsigned count(const config::Parameters& parameters, const char* key)
{
  return static_cast<unsigned>(parameters.integer(key));
}
} // namespace

sc_core::sc_time to_sc_time(double seconds)
{
  return sc_core::sc_time::from_value(static_cast<sc_dt::uint64>(std::llround(seconds * 1e12)));
}

double to_seconds(const sc_core::sc_time& time)
{
  return static_cast<double>(time.value()) * 1e-12;
}

sc_core::sc_time PcieEndpointConfig::first_packet(uint64_t bytes) const
{
  if (not model_pcie || bytes == 0)
    return sc_core::SC_ZERO_TIME;
  return to_sc_time(pcie.latency + static_cast<double>(std::min(bytes, packet)) / pcie.bandwidth);
}

uint64_t PacketizerConfig::packets(uint64_t payload) const
{
  return payload == 0 ? 1 : (payload + wire_packet_payload - 1) / wire_packet_payload;
}

sc_core::sc_time LinkPortConfig::serialization(uint64_t bytes, bool loopback) const
{
  return to_sc_time(static_cast<double>(bytes) / (loopback ? loopback_bandwidth : bandwidth));
}

sc_core::sc_time DmaWriterConfig::deposit(uint64_t bytes) const
{
  if (not model_pcie || bytes == 0)
    return sc_core::SC_ZERO_TIME;
  return to_sc_time(pcie.latency + static_cast<double>(std::min(bytes, packet)) / pcie.bandwidth);
}

CycleNicConfig CycleNicConfig::from_parameters(const config::Parameters& p, const PcieFigures& pcie,
                                               double link_bandwidth)
{
  CycleNicConfig c;
  c.clock_hz = p.real("cycle.clock");
  c.period   = to_sc_time(1.0 / c.clock_hz);
  if (c.period == sc_core::SC_ZERO_TIME)
    throw config::ConfigError(fmt::format("cycle.clock = {} Hz: a period under SystemC's 1 ps resolution; give at "
                                          "most 1e12 Hz.",
                                          c.clock_hz));
  auto cycles           = [&](const char* key) { return c.cycles(static_cast<uint64_t>(p.integer(key))); };
  bool model_pcie       = p.boolean("nic.model_pcie");
  c.model_pcie_commands = model_pcie && p.boolean("nic.model_pcie_commands");
  c.command_bytes       = bytes(p, "nic.command_size");
  c.dma_readers         = count(p, "cycle.dma_readers");

  c.pcie_endpoint       = {cycles("cycle.mmio_cycles"), bytes(p, "nic.pcie_packet"), pcie, model_pcie};
  c.command_queue       = {count(p, "cycle.command_queue_slots"), cycles("cycle.schedule_cycles")};
  c.command_decoder     = {cycles("cycle.decode_cycles"), cycles("cycle.tx_extra_cycles"),
                           bytes(p, "nic.inline_max"),    bytes(p, "nic.inline_max_unmatched"),
                           bytes(p, "nic.pio_max"),       bytes(p, "nic.pio_max_unmatched")};
  c.address_translation = {count(p, "cycle.tlb_entries"), bytes(p, "cycle.page_size"), cycles("cycle.tlb_hit_cycles"),
                           cycles("cycle.page_walk_cycles")};
  c.packetizer          = {cycles("cycle.packetize_cycles"), cycles("cycle.packet_cycles"), bytes(p, "nic.wire_packet"),
                           bytes(p, "nic.wire_packet_payload")};
  if (c.packetizer.wire_packet_payload > c.packetizer.wire_packet)
    throw config::ConfigError(fmt::format("nic.wire_packet_payload ({}) exceeds nic.wire_packet ({}): a packet "
                                          "cannot carry more payload than its size.",
                                          c.packetizer.wire_packet_payload, c.packetizer.wire_packet));
  c.wire_arbiter                  = {cycles("cycle.arbitrate_cycles"), count(p, "cycle.vn_depth"),
                                     count(p, "nic.flow_control_nic_limit"), count(p, "nic.flow_control_process_limit")};
  c.link_port.bandwidth           = link_bandwidth;
  c.link_port.loopback_bandwidth  = p.real("bxi.loopback_bandwidth");
  c.link_port.wire_packet         = c.packetizer.wire_packet;
  c.link_port.wire_packet_payload = c.packetizer.wire_packet_payload;
  c.link_port.flits_per_packet    = count(p, "cycle.flits_per_packet");
  c.link_port.credits             = count(p, "cycle.link_credits");
  c.link_port.port                = sc_core::SC_ZERO_TIME;
  c.link_port.early_send_max      = bytes(p, "nic.early_send_max");
  c.link_port.e2e                 = p.boolean("nic.e2e");
  c.link_port.dropped             = p.frame_numbers("nic.drop_frames");
  if (c.link_port.credits < c.link_port.flits_per_packet)
    throw config::ConfigError(fmt::format("cycle.link_credits ({}) is smaller than one packet's flits "
                                          "(cycle.flits_per_packet = {}): the link could never send; give at least {}.",
                                          c.link_port.credits, c.link_port.flits_per_packet,
                                          c.link_port.flits_per_packet));
  c.depacketizer         = {cycles("cycle.depacketize_cycles"), pcie, bytes(p, "nic.pcie_packet"), model_pcie};
  c.list_matching        = {count(p, "cycle.lme_count"), cycles("cycle.lme_cycles")};
  c.dma_writer           = {cycles("cycle.dma_write_cycles"), pcie, bytes(p, "nic.pcie_packet"), model_pcie};
  c.link_port.pcie       = pcie;
  c.link_port.model_pcie = model_pcie;
  c.event_engine         = {cycles("cycle.event_cycles"), bytes(p, "nic.event_size"), c.model_pcie_commands};
  c.response_generator   = {cycles("cycle.response_cycles"), count(p, "nic.response_queue_depth"),
                            p.boolean("nic.quick_acks")};
  c.e2e = {p.boolean("nic.e2e"), to_sc_time(p.real("nic.e2e_timeout")), static_cast<int>(p.integer("nic.e2e_retries")),
           cycles("cycle.e2e_cycles")};
  return c;
}

} // namespace bxisim::hw::cycle
