#pragma once
// List Matching Engine (LME): takes the next incoming header, spends `match` on it, then commits it
// in arrival order (CommitOrder): once its payload is in memory, the semantics layer of portals/
// matches and deposits it (the bridge calls portals::Core::deliver_request, never a copy of the
// rules), and the header goes on to the DMA writer. Several LMEs share one header FIFO and work in
// parallel: the message rate of the receive side is engines / match. An engine takes a slot of the
// response generator before it commits (nic.response_queue_depth, the target's back-pressure), given
// back at once when the request needs no response.

#include "Channels.hpp"
#include "CycleNicConfig.hpp"
#include "Outbox.hpp"

#include <string>

namespace bxisim::hw::cycle
{

class ListMatchingEngine : public sc_core::sc_module
{
 public:
  sc_core::sc_port<FrameQueueIf> headers;
  sc_core::sc_port<FrameQueueIf> out;      // to the DMA writer
  sc_core::sc_port<ResponseSlotsIf> slots; // the response generator's

  ListMatchingEngine(sc_core::sc_module_name name, const ListMatchingEngineConfig& config, int node, Outbox& outbox,
                     CommitOrder& order);

  uint64_t matched = 0;
  int busy         = 0; // VCD

 private:
  void run();

  ListMatchingEngineConfig config_;
  int node_;
  Outbox& outbox_;
  CommitOrder& order_;
  std::string lane_; // its timeline lane: "LME 0", ...
};

} // namespace bxisim::hw::cycle
