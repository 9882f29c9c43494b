#pragma once
// What the SystemC NIC asks of the rest of the simulation. SystemC processes never call SimGrid nor
// the Portals semantics: they leave requests here, and the bridge carries them out between two
// sc_start() calls, at the same simulated time (DESIGN.md section 4, step 3).

#include "Frame.hpp"

#include <deque>

namespace bxisim::hw::cycle
{

struct OutboxRequest {
  enum class Kind {
    CommandTaken,     // a command left its queue: the process may post another (back-pressure to the CPU)
    DmaRead,          // read `bytes` from `process`'s memory into the NIC; the bridge reports the end
    DmaWrite,         // write `bytes` to `process`'s memory (posted: nobody waits for it)
    WireSend,         // `bytes` of `frame` leave the NIC towards `frame.to` (`last`: its final chunk)
    Deliver,          // the request reached its target: matching and deposit by the semantics layer
    CompleteSend,     // the SEND event of the operation is due
    CompleteResponse, // the ACK or REPLY of the operation is back
    DropRequest,      // E2E gave up on the request: the initiator sees PTL_NI_UNDELIVERABLE
    CreditReturn,     // `flits` of link credits go back to NIC `node` (its peer drained them)
    FlowCreditReturn, // without E2E: the request reached its target, its flow-control credit goes back
  };
  Kind kind;
  int node                             = 0;       // the NIC that asks
  tlm::tlm_generic_payload* frame      = nullptr; // held (acquired) until the bridge is done with it
  std::shared_ptr<Operation> operation = nullptr;
  uint32_t process                     = 0;    // whose command queue or memory
  bool initiator_memory                = true; // DMA: the initiator's memory (else the target's)
  uint64_t bytes                       = 0;
  uint64_t flits                       = 0; // WireSend: link credits the chunk holds
  unsigned network                     = 0; // WireSend, CreditReturn: the virtual network of those credits
  bool last                            = true;
  const char* trace_name               = "";
};

/** Requests of every NIC of the SystemC kernel, in the order they were made. */
class Outbox
{
 public:
  void post(OutboxRequest request)
  {
    if (request.frame != nullptr)
      request.frame->acquire();
    requests_.push_back(std::move(request));
  }
  bool empty() const { return requests_.empty(); }
  std::deque<OutboxRequest> take()
  {
    std::deque<OutboxRequest> taken;
    taken.swap(requests_);
    return taken;
  }

 private:
  std::deque<OutboxRequest> requests_;
};

} // namespace bxisim::hw::cycle
