#include "MessageNicConfig.hpp"

#include "config/ConfigError.hpp"
#include "config/Parameters.hpp"

#include <fmt/format.h>

namespace bxisim::hw::message
{

namespace
{
uint64_t bytes(const config::Parameters& parameters, const char* key)
{
  return static_cast<uint64_t>(parameters.real(key)); // sizes are quantities: "64KiB" is allowed
}
} // namespace

MessageNicConfig MessageNicConfig::from_parameters(const config::Parameters& parameters)
{
  MessageNicConfig config;
  config.command_queue_depth  = static_cast<int>(parameters.integer("nic.command_queue_depth"));
  config.response_queue_depth = static_cast<int>(parameters.integer("nic.response_queue_depth"));
  config.read_ahead_frames    = static_cast<unsigned>(parameters.integer("nic.read_ahead_frames"));
  config.inline_max_matching  = bytes(parameters, "nic.inline_max");
  config.inline_max_unmatched = bytes(parameters, "nic.inline_max_unmatched");
  config.pio_max_matching     = bytes(parameters, "nic.pio_max");
  config.pio_max_unmatched    = bytes(parameters, "nic.pio_max_unmatched");
  config.early_send_max       = bytes(parameters, "nic.early_send_max");
  config.pcie_packet          = bytes(parameters, "nic.pcie_packet");
  config.wire_packet          = bytes(parameters, "nic.wire_packet");
  config.wire_packet_payload  = bytes(parameters, "nic.wire_packet_payload");
  config.command_bytes        = bytes(parameters, "nic.command_size");
  config.event_bytes          = bytes(parameters, "nic.event_size");
  config.tx_delay             = parameters.real("nic.tx_delay");
  config.rx_delay             = parameters.real("nic.rx_delay");
  config.e2e                  = parameters.boolean("nic.e2e");
  config.e2e_timeout          = parameters.real("nic.e2e_timeout");
  config.e2e_retries          = static_cast<int>(parameters.integer("nic.e2e_retries"));
  config.quick_acks           = parameters.boolean("nic.quick_acks");
  config.flow_nic_limit       = static_cast<unsigned>(parameters.integer("nic.flow_control_nic_limit"));
  config.flow_process_limit   = static_cast<unsigned>(parameters.integer("nic.flow_control_process_limit"));
  config.model_pcie           = parameters.boolean("nic.model_pcie");
  config.model_pcie_commands  = config.model_pcie && parameters.boolean("nic.model_pcie_commands");
  config.dropped_frames       = parameters.frame_numbers("nic.drop_frames");
  config.faults               = platform::FaultSpec::from_parameters(parameters);
  config.poll_backoff         = PollBackoff::from_parameters(parameters);
  // The link credits, as the cycle model counts them: flits of the peer's buffer per virtual network.
  config.link_credit_bytes = static_cast<uint64_t>(parameters.integer("cycle.link_credits")) /
                             static_cast<uint64_t>(parameters.integer("cycle.flits_per_packet")) * config.wire_packet;
  if (config.wire_packet_payload > config.wire_packet)
    throw config::ConfigError(fmt::format("nic.wire_packet_payload ({}) exceeds nic.wire_packet ({}): a packet "
                                          "cannot carry more payload than its size.",
                                          config.wire_packet_payload, config.wire_packet));
  return config;
}

uint64_t MessageNicConfig::wire_bytes(uint64_t payload) const
{
  uint64_t packets = payload == 0 ? 1 : (payload + wire_packet_payload - 1) / wire_packet_payload;
  return packets * wire_packet;
}

} // namespace bxisim::hw::message
