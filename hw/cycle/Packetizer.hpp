#pragma once
// Packetizer: cuts a message into link packets (72 B: two 32 B flits and an 8 B header, thesis 4.3.3)
// and queues the frame on its virtual network. A DMA payload (a request above the PIO limit, any
// reply) is read through the PCIe endpoint: the frame goes once the first PCIe packet is in. The
// first packet is ready `head` after the packetizer takes the message; then it emits one packet per
// `per_packet` and takes the next message once the last is out. One packetizer per direction
// (requests, responses): they progress independently.

#include "Channels.hpp"
#include "CycleNicConfig.hpp"
#include "Stage.hpp"

#include <tlm_utils/simple_initiator_socket.h>

namespace bxisim::hw::cycle
{

class Packetizer : public Stage
{
 public:
  tlm_utils::simple_initiator_socket<Packetizer> dma; // to the PCIe endpoint
  sc_core::sc_port<FrameQueueIf> out;                 // the virtual network's queue

  Packetizer(sc_core::sc_module_name name, const PacketizerConfig& config)
      : Stage(name, 2), dma("dma"), out("out"), config_(config)
  {
  }

  uint64_t frames = 0, packets = 0;

 protected:
  void process(tlm::tlm_generic_payload& frame) override;

 private:
  PacketizerConfig config_;
};

} // namespace bxisim::hw::cycle
