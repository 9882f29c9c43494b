#include "DmaWriter.hpp"

#include "StageTrace.hpp"

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
      // Payload writes go in order, each holding the write engine for its serialization on the PCIe;
      // frames without payload (ACKs, Get requests) do not wait for the engine.
      if (sc_core::sc_time_stamp() < engine_free_at_)
        wait(engine_free_at_ - sc_core::sc_time_stamp());
      post_write(dma, *payload, size, frame.kind == FrameKind::Response ? kWriteToInitiator : 0);
      if (config_.model_pcie) {
        ++writes;
        bytes += size;
        engine_free_at_ = sc_core::sc_time_stamp() + to_sc_time(static_cast<double>(size) / config_.pcie.bandwidth);
        if (tracing_stages())
          trace_stage_until(frame.to, "DMA writer", frame_label(frame) + ": " + std::to_string(size) + " B to memory",
                            sc_core::sc_time_stamp(), engine_free_at_);
      }
    }
    forward(out, *payload);
    payload->release();
  }
}

} // namespace bxisim::hw::cycle
