#include "DmaWriter.hpp"

#include "StageTrace.hpp"

#include <algorithm>

namespace bxisim::hw::cycle
{

DmaWriter::DmaWriter(sc_core::sc_module_name name, const DmaWriterConfig& config)
    : sc_core::sc_module(name), in("in"), dma("dma"), out("out"), config_(config)
{
  SC_HAS_PROCESS(DmaWriter);
  SC_THREAD(run);
}

void DmaWriter::run()
{
  for (;;) {
    tlm::tlm_generic_payload* payload = in->pop();
    FrameExtension& frame             = frame_of(*payload);
    const portals::Message& message   = *frame.operation->message;
    uint64_t size                     = 0;
    if (frame.kind == FrameKind::Request)
      size = message.kind == portals::OpKind::get ? 0 : message.mlength;
    else
      size = message.responseBytes();
    wait(config_.setup);
    if (size > 0) {
      if (config_.model_pcie) {
        // The payload streams to memory while its frame arrives (thesis figure 4.10): with the engine
        // free, the engine pushes its last PCIe packet one packet after the frame's last wire packet
        // and the payload is in memory a PCIe latency later (in_memory_at, from the depacketizer).
        // The engine writes packets as they arrive, whichever payload they belong to, at the PCIe's
        // rate: it is late only when the payloads that have arrived, each from its first packet, need
        // more time than that. Two payloads arriving together from two NICs
        // then stream together; a payload that arrives while the engine is behind is written after what
        // it owes. The SimGrid transfer is posted when the engine gets to the payload (at once when it
        // streamed).
        const sc_core::sc_time now     = sc_core::sc_time_stamp();
        const sc_core::sc_time latency = to_sc_time(config_.pcie.latency);
        const sc_core::sc_time occupy  = to_sc_time(static_cast<double>(size) / config_.pcie.bandwidth);
        const sc_core::sc_time streamed =
            frame.in_memory_at > latency ? frame.in_memory_at - latency : sc_core::SC_ZERO_TIME;
        const sc_core::sc_time done = std::max(streamed, engine_done_with(frame.sent_at, occupy));
        if (done > now + occupy)
          wait(done - occupy - now); // earlier payloads hold the engine
        post_write(dma, *payload, size, frame.kind == FrameKind::Response ? kWriteToInitiator : 0);
        ++writes;
        bytes += size;
        frame.in_memory_at = done + latency; // its event waits for it (EventEngine)
        if (tracing_stages())
          trace_stage_until(frame.to, "DMA writer", frame_label(frame) + ": " + std::to_string(size) + " B to memory",
                            done - occupy, done);
      } else {
        post_write(dma, *payload, size, frame.kind == FrameKind::Response ? kWriteToInitiator : 0);
      }
    }
    forward(out, *payload);
    payload->release();
  }
}

sc_core::sc_time DmaWriter::engine_done_with(sc_core::sc_time first_packet, sc_core::sc_time occupy)
{
  // Frames are taken in the order their last packets arrived, not their first: a small frame that
  // arrived while a large one streamed in comes first, yet the large one's bytes were there before.
  // The engine's work is therefore counted in the order of first packets (a fluid queue served at the
  // PCIe's rate) over the last payloads: a frame still arriving may have started before any of them,
  // so none can be forgotten for being done, only for being old.
  auto at = std::upper_bound(work_.begin(), work_.end(), first_packet,
                             [](sc_core::sc_time t, const auto& entry) { return t < entry.first; });
  work_.insert(at, {first_packet, occupy});
  if (work_.size() > kWorkRemembered)
    work_.pop_front();
  auto finish = [this] {
    sc_core::sc_time t = sc_core::SC_ZERO_TIME;
    for (const auto& [start, work] : work_)
      t = std::max(t, start) + work;
    return t;
  };
  return finish();
}

} // namespace bxisim::hw::cycle
