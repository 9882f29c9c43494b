#include "LinkPort.hpp"

#include "StageTrace.hpp"

#include <algorithm>

namespace bxisim::hw::cycle
{

LinkPort::LinkPort(sc_core::sc_module_name name, const LinkPortConfig& config, int node, Outbox& outbox)
    : Stage(name, 1), dma("dma"), to_e2e("to_e2e"), received("received"), received_responses("received_responses"),
      ready("ready"), config_(config), node_(node), outbox_(outbox), rx_buffer_("rx_buffer"),
      rx_responses_("rx_responses")
{
  for (int& credits : credits_of)
    credits = static_cast<int>(config_.credits);
  received.bind(rx_buffer_);
  received_responses.bind(rx_responses_);
  ready.bind(*this);
  rx_buffer_.trace_as(node, "receive buffer (requests)");
  rx_responses_.trace_as(node, "receive buffer (responses)");
}

void LinkPort::count_write(FrameExtension& frame, uint64_t flits, bool last, sc_core::sc_time started)
{
  if (not config_.model_pcie || frame.payload == 0)
    return;
  uint64_t packets = flits / config_.flits_per_packet;
  uint64_t bytes   = last ? frame.payload - std::min(frame.payload, frame.payload_arrived)
                          : std::min(frame.payload - std::min(frame.payload, frame.payload_arrived),
                                     packets * config_.wire_packet_payload);
  frame.payload_arrived += bytes;
  // The chunk streamed in from the start of its transfer, shared as it may have been.
  sc_core::sc_time written =
      write_work_.done_with(started, to_sc_time(static_cast<double>(bytes) / config_.pcie.bandwidth));
  if (last)
    frame.written_by = written;
}

void LinkPort::chunk_arrived(tlm::tlm_generic_payload* frame, uint64_t flits, bool last, sc_core::sc_time started)
{
  FrameExtension& extension = frame_of(*frame);
  count_write(extension, flits, last, started);
  if (not last) {
    OutboxRequest back{OutboxRequest::Kind::CreditReturn, extension.from};
    back.flits   = flits;
    back.network = extension.network();
    outbox_.post(back);
    frame->release();
    return;
  }
  extension.arrived_at = sc_core::sc_time_stamp();
  extension.last_flits = flits;
  (extension.network() == kComputeRequest ? rx_buffer_ : rx_responses_).push_back(frame); // the credits bound it
  frame->release();
}

void LinkPort::credits_returned(uint64_t flits, unsigned network)
{
  credits_of[network] += static_cast<int>(flits);
  changed_.notify(sc_core::SC_ZERO_TIME);
  if (tracing_stages())
    trace_counter(node_, network == kComputeRequest ? "link credits (requests)" : "link credits (responses)",
                  credits_of[network]);
}

void LinkPort::process(tlm::tlm_generic_payload& payload)
{
  FrameExtension& frame    = frame_of(payload);
  const uint64_t fpp       = config_.flits_per_packet;
  const uint64_t chunk_max = std::max<uint64_t>(1, config_.credits / fpp / 2);
  int& credits             = credits_of[frame.network()];
  sending                  = 1;
  ++frames_sent; // when its first chunk goes, as the traffic counts: a run may end with a frame half sent
  frame.sent_at         = sc_core::sc_time_stamp();
  frame.payload_arrived = 0; // a frame sent again streams in again
  uint64_t remaining    = frame.packets;
  while (remaining > 0) {
    if (static_cast<uint64_t>(credits) < fpp) {
      ++credit_stalls;
      sc_core::sc_time since = sc_core::sc_time_stamp();
      while (static_cast<uint64_t>(credits) < fpp)
        wait(changed_);
      credit_stalled_time += sc_core::sc_time_stamp() - since;
    }
    uint64_t chunk = std::min({remaining, static_cast<uint64_t>(credits) / fpp, chunk_max});
    credits -= static_cast<int>(chunk * fpp);
    if (tracing_stages())
      trace_counter(node_, frame.network() == kComputeRequest ? "link credits (requests)" : "link credits (responses)",
                    credits);
    remaining -= chunk;
    uint64_t bytes = chunk * config_.wire_packet;
    ++chunks_sent;
    bytes_sent += bytes;
    // Inside a node the chunk goes to this NIC itself, over its loopback link (a SimGrid transfer,
    // shared with every other frame that turns round in this NIC, as in the message model).
    OutboxRequest send{OutboxRequest::Kind::WireSend, node_, &payload, frame.operation};
    send.bytes   = bytes;
    send.flits   = chunk * fpp;
    send.last    = remaining == 0;
    send.network = frame.network();
    outbox_.post(send);
    wait(config_.serialization(bytes, frame.to == node_));
  }
  sending = 0;
  if (tracing_stages())
    trace_stage(node_, "link port",
                frame_label(frame) + (frame.to == node_ ? " (loopback)" : " to nid " + std::to_string(frame.to)),
                frame.sent_at);
  // The NIC needs the whole payload before it may drop its copy (E2E); the read usually ended long ago.
  if (frame.read_pending) {
    payload.set_command(tlm::TLM_IGNORE_COMMAND);
    forward(dma, payload);
    payload.set_command(tlm::TLM_WRITE_COMMAND);
  }
  forward(to_e2e, payload);
  changed_.notify(sc_core::SC_ZERO_TIME); // free (the stage counts the frame done once this returns)
}

} // namespace bxisim::hw::cycle
