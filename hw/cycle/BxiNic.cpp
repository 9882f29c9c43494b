#include "BxiNic.hpp"

#include <string>

namespace bxisim::hw::cycle
{

BxiNic::BxiNic(sc_core::sc_module_name name, const CycleNicConfig& config, int node, Outbox& outbox, FramePool& pool)
    : sc_core::sc_module(name), pcie_endpoint("pcie_endpoint", config.pcie_endpoint, node, outbox),
      command_queue("command_queue", config.command_queue, node, outbox),
      command_decoder("command_decoder", config.command_decoder),
      address_translation("address_translation", config.address_translation),
      request_packetizer("request_packetizer", config.packetizer),
      response_packetizer("response_packetizer", config.packetizer), wire_arbiter("wire_arbiter", config.wire_arbiter),
      link_port("link_port", config.link_port, node, outbox),
      depacketizer("depacketizer", config.depacketizer, node, outbox), dma_writer("dma_writer", config.dma_writer),
      event_engine("event_engine", config.event_engine, node, outbox),
      response_generator("response_generator", config.response_generator, node, outbox, pool),
      e2e_engine("e2e_engine", config.e2e, config.link_port.early_send_max, node, outbox, pool), node_(node),
      headers_("headers", 64), writes_("writes", 16),
      response_slots_("response_slots", config.response_generator.depth), commit_order_("commit_order")
{
  wire_arbiter.trace_as(node);
  headers_.trace_as(node, "LME header queue");
  writes_.trace_as(node, "DMA write queue");
  // TX
  pcie_endpoint.commands.bind(command_queue.in);
  command_queue.out.bind(command_decoder.in);
  command_decoder.out.bind(address_translation.in);
  address_translation.out.bind(request_packetizer.in);
  request_packetizer.dma.bind(pcie_endpoint.dma);
  response_packetizer.dma.bind(pcie_endpoint.dma);
  request_packetizer.out.bind(wire_arbiter.vn[kComputeRequest]);
  response_packetizer.out.bind(wire_arbiter.vn[kComputeResponse]);
  wire_arbiter.out.bind(link_port.in);
  wire_arbiter.link.bind(link_port.ready);
  link_port.dma.bind(pcie_endpoint.dma);
  link_port.to_e2e.bind(e2e_engine.sent);
  // RX
  depacketizer.in.bind(link_port.received);
  depacketizer.in_responses.bind(link_port.received_responses);
  depacketizer.to_e2e.bind(e2e_engine.arrived);
  depacketizer.headers.bind(headers_);
  depacketizer.responses.bind(writes_);
  for (unsigned i = 0; i < config.list_matching.engines; ++i) {
    list_matching_engines.push_back(std::make_unique<ListMatchingEngine>(
        ("lme" + std::to_string(i)).c_str(), config.list_matching, node, outbox, commit_order_));
    list_matching_engines.back()->headers.bind(headers_);
    list_matching_engines.back()->out.bind(writes_);
    list_matching_engines.back()->slots.bind(response_slots_);
  }
  dma_writer.in.bind(writes_);
  dma_writer.dma.bind(pcie_endpoint.dma);
  dma_writer.out.bind(event_engine.in);
  event_engine.dma.bind(pcie_endpoint.dma);
  event_engine.to_response.bind(response_generator.in);
  response_generator.out.bind(response_packetizer.in);
  response_generator.slots.bind(response_slots_);
  // E2E
  e2e_engine.resend_request.bind(request_packetizer.in);
  e2e_engine.resend_response.bind(response_packetizer.in);
  e2e_engine.acks.bind(wire_arbiter.vn[kComputeResponse]);
  e2e_engine.flow.bind(wire_arbiter.credits);
}

void BxiNic::trace(sc_core::sc_trace_file* file, const std::string& pattern) const
{
  auto add = [&](const auto& value, const std::string& signal) {
    std::string full = std::string(name()) + "." + signal;
    if (pattern.empty() || full.find(pattern) != std::string::npos)
      sc_core::sc_trace(file, value, full);
  };
  add(command_queue.occupancy, "command_queue.occupancy");
  for (unsigned network = 0; network < kVirtualNetworks; ++network)
    add(wire_arbiter.queue(network).occupancy, "wire_arbiter.vn" + std::to_string(network) + ".occupancy");
  add(wire_arbiter.in_flight, "wire_arbiter.flow_in_flight");
  add(link_port.credits_of[kComputeRequest], "link_port.credits");
  add(link_port.credits_of[kComputeResponse], "link_port.response_credits");
  add(link_port.sending, "link_port.busy");
  for (size_t i = 0; i < list_matching_engines.size(); ++i)
    add(list_matching_engines[i]->busy, "lme" + std::to_string(i) + ".busy");
  add(e2e_engine.pending, "e2e_engine.pending");
}

} // namespace bxisim::hw::cycle
