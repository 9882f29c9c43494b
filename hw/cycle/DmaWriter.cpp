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
      size = message.response_bytes();
    wait(config_.setup);
    if (size > 0) {
      if (config_.model_pcie) {
        // The payload streams to memory while its frame arrives: with the engine keeping up, its last
        // PCIe packet is pushed one packet after the frame's last wire packet and it is in memory a PCIe
        // latency later (in_memory_at, from the depacketizer). The SimGrid transfer is posted when the
        // engine gets to the payload (at once when it streamed).
        const sc_core::sc_time now     = sc_core::sc_time_stamp();
        const sc_core::sc_time latency = to_sc_time(config_.pcie.latency);
        const sc_core::sc_time occupy  = to_sc_time(static_cast<double>(size) / config_.pcie.bandwidth);
        const sc_core::sc_time streamed =
            frame.in_memory_at > latency ? frame.in_memory_at - latency : sc_core::SC_ZERO_TIME;
        const sc_core::sc_time done = std::max(streamed, frame.written_by);
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

} // namespace bxisim::hw::cycle
