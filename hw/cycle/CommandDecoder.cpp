#include "CommandDecoder.hpp"

#include "StageTrace.hpp"

namespace bxisim::hw::cycle
{

PayloadPath CommandDecoder::path_of(const portals::Message& message, const CommandDecoderConfig& config)
{
  bool matching    = (message.ni_options & PTL_NI_MATCHING) != 0;
  uint64_t payload = message.request_bytes();
  if (payload <= (matching ? config.inline_max_matching : config.inline_max_unmatched))
    return PayloadPath::Inline;
  if (payload <= (matching ? config.pio_max_matching : config.pio_max_unmatched))
    return PayloadPath::Pio;
  return PayloadPath::Dma;
}

void CommandDecoder::process(tlm::tlm_generic_payload& command)
{
  sc_core::sc_time start = sc_core::sc_time_stamp();
  wait(config_.decode);
  if (config_.tx_extra > sc_core::SC_ZERO_TIME) // cycle.tx_extra_cycles; off by default
    wait(config_.tx_extra);
  Operation& operation = *frame_of(command).operation;
  operation.path       = path_of(*operation.message, config_);
  ++decoded[static_cast<int>(operation.path)];
  if (tracing_stages()) {
    static const char* const kPaths[] = {"inline", "PIO", "DMA"};
    trace_stage(frame_of(command).from, "command decoder",
                frame_label(frame_of(command)) + " (" + kPaths[static_cast<int>(operation.path)] + ")", start);
  }
  forward(out, command);
}

} // namespace bxisim::hw::cycle
