#pragma once
// Command decoder: reads a command and decides how its payload comes: inline (inside the command),
// PIO (written by the CPU with the command) or DMA (read by the NIC), thesis 4.3.3.

#include "CycleNicConfig.hpp"
#include "Stage.hpp"

#include <tlm_utils/simple_initiator_socket.h>

namespace bxisim::hw::cycle
{

class CommandDecoder : public Stage
{
 public:
  tlm_utils::simple_initiator_socket<CommandDecoder> out;

  CommandDecoder(sc_core::sc_module_name name, const CommandDecoderConfig& config)
      : Stage(name, 2), out("out"), config_(config)
  {
  }
  static PayloadPath path_of(const portals::Message& message, const CommandDecoderConfig& config);

  uint64_t decoded[3] = {0, 0, 0}; // by PayloadPath

 protected:
  void process(tlm::tlm_generic_payload& command) override;

 private:
  CommandDecoderConfig config_;
};

} // namespace bxisim::hw::cycle
