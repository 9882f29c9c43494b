#pragma once
// Response generator: builds the answer of a delivered request, a Portals ACK or a Get reply (whose
// payload the response packetizer reads by DMA), and hands it to the response packetizer. It holds
// `depth` requests: the LMEs take a slot before they commit one (ResponseSlots), so the stages between
// never wait for it and the LMEs stop when all are taken (the target's back-pressure). With
// quick ACKs (a simulation shortcut) an ACK completes at the initiator at once, without a frame.

#include "Channels.hpp"
#include "CycleNicConfig.hpp"
#include "Outbox.hpp"
#include "Stage.hpp"

#include <tlm_utils/simple_initiator_socket.h>

namespace bxisim::hw::cycle
{

class ResponseGenerator : public Stage
{
 public:
  tlm_utils::simple_initiator_socket<ResponseGenerator> out; // to the response packetizer
  sc_core::sc_port<ResponseSlotsIf> slots;                   // given back once a response is on its way

  ResponseGenerator(sc_core::sc_module_name name, const ResponseGeneratorConfig& config, int node, Outbox& outbox,
                    FramePool& pool)
      : Stage(name, config.depth), out("out"), slots("slots"), config_(config), node_(node), outbox_(outbox),
        pool_(pool)
  {
  }

  uint64_t responses = 0;

 protected:
  void process(tlm::tlm_generic_payload& request) override;

 private:
  ResponseGeneratorConfig config_;
  int node_;
  Outbox& outbox_;
  FramePool& pool_;
};

} // namespace bxisim::hw::cycle
