#pragma once
// Depacketizer: takes each complete frame from the link port's receive buffer (returning its link
// credits to the sender), reassembles it and dispatches it: every frame to the E2E engine (BXI ACKs,
// acknowledgements); a new request's header to the list matching engines; a new response to the DMA
// writer. Retransmitted copies of what already arrived are dropped here (E2E acknowledged them).
// The response network's buffer goes first, and a request is taken only when the LMEs' header queue
// has room: a backed-up request path never keeps responses (and their credits) in the buffer.

#include "Channels.hpp"
#include "CycleNicConfig.hpp"
#include "Outbox.hpp"
#include "Stage.hpp"

#include <tlm_utils/simple_initiator_socket.h>

namespace bxisim::hw::cycle
{

class Depacketizer : public sc_core::sc_module
{
 public:
  sc_core::sc_port<FrameQueueIf> in;                       // the link port's receive buffer of requests
  sc_core::sc_port<FrameQueueIf> in_responses;             // ... of responses and BXI ACKs
  tlm_utils::simple_initiator_socket<Depacketizer> to_e2e; // every frame
  sc_core::sc_port<FrameQueueIf> headers;                  // to the LMEs
  sc_core::sc_port<FrameQueueIf> responses;                // to the DMA writer

  Depacketizer(sc_core::sc_module_name name, const DepacketizerConfig& config, int node, Outbox& outbox);

  uint64_t frames = 0, duplicates = 0;

 private:
  void run();
  tlm::tlm_generic_payload* next();
  sc_core::sc_time deposit(uint64_t bytes) const;

  DepacketizerConfig config_;
  int node_;
  Outbox& outbox_;
};

} // namespace bxisim::hw::cycle
