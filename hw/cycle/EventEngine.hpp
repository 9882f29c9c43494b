#pragma once
// Event engine: writes full events and counter updates to host memory over the PCIe. At the target,
// a delivered request's events were posted by the semantics layer at delivery; the engine writes
// them (after the payload, once the DMA writer has it in memory) and passes the request on to the
// response generator when it needs an answer. At the initiator, a response's events wait for its
// payload's last PCIe packet to be in memory, then the operation's SEND (if still due) and ACK/REPLY
// complete.

#include "CycleNicConfig.hpp"
#include "Outbox.hpp"
#include "PcieEndpoint.hpp"
#include "Stage.hpp"

#include <tlm_utils/simple_initiator_socket.h>

namespace bxisim::hw::cycle
{

class EventEngine : public Stage
{
 public:
  tlm_utils::simple_initiator_socket<EventEngine> dma;         // to the PCIe endpoint
  tlm_utils::simple_initiator_socket<EventEngine> to_response; // requests that need an answer

  EventEngine(sc_core::sc_module_name name, const EventEngineConfig& config, int node, Outbox& outbox)
      : Stage(name, 4), dma("dma"), to_response("to_response"), config_(config), node_(node), outbox_(outbox)
  {
  }

  uint64_t events = 0;

 protected:
  void process(tlm::tlm_generic_payload& frame) override;

 private:
  EventEngineConfig config_;
  int node_;
  Outbox& outbox_;
};

/** Posts the operation's SEND completion unless it was posted before or the operation was given up. */
void complete_send_once(const std::shared_ptr<Operation>& operation, int node, Outbox& outbox);

} // namespace bxisim::hw::cycle
