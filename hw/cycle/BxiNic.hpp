#pragma once
// One BXI NIC as SystemC modules, one per pipeline stage, joined by TLM-2.0 sockets and FIFOs:
//
//  TX: PcieEndpoint (MMIO) -> CommandQueue -> CommandDecoder -> AddressTranslation -> Packetizer
//      (requests; DMA reads through the PcieEndpoint) -> WireArbiter (4 virtual networks, flow
//      control) -> LinkPort (credits) -> SimGrid
//  RX: SimGrid -> LinkPort receive buffer -> Depacketizer -> ListMatchingEngine x N (in-order commit,
//      portals/ semantics through the bridge) -> DmaWriter -> EventEngine -> ResponseGenerator ->
//      Packetizer (responses) -> WireArbiter ...; responses at the initiator: Depacketizer ->
//      DmaWriter -> EventEngine (completion)
//  E2eEngine: retry table and timers, BXI ACKs (onto the response network, first), flow credits.

#include "AddressTranslation.hpp"
#include "CommandDecoder.hpp"
#include "CommandQueue.hpp"
#include "Depacketizer.hpp"
#include "DmaWriter.hpp"
#include "E2eEngine.hpp"
#include "EventEngine.hpp"
#include "LinkPort.hpp"
#include "ListMatchingEngine.hpp"
#include "Packetizer.hpp"
#include "PcieEndpoint.hpp"
#include "ResponseGenerator.hpp"
#include "WireArbiter.hpp"

#include <memory>
#include <vector>

namespace bxisim::hw::cycle
{

class BxiNic : public sc_core::sc_module
{
 public:
  BxiNic(sc_core::sc_module_name name, const CycleNicConfig& config, int node, Outbox& outbox, FramePool& pool);

  /** The bridge's inputs (called between two sc_start()s, never from a SystemC process). */
  void command_arrived(tlm::tlm_generic_payload* command) { pcie_endpoint.command_arrived(command); }
  void triggered(tlm::tlm_generic_payload* command) { command_queue.triggered(command); }
  void read_finished(tlm::tlm_generic_payload& frame) { pcie_endpoint.read_finished(frame); }
  void chunk_arrived(tlm::tlm_generic_payload* frame, uint64_t flits, bool last, double started_at)
  {
    link_port.chunk_arrived(frame, flits, last, to_sc_time(started_at));
  }
  void credits_returned(uint64_t flits, unsigned network) { link_port.credits_returned(flits, network); }
  void delivered() { commit_order_.delivered.notify(sc_core::SC_ZERO_TIME); }
  void return_flow_credit(Operation& operation) { wire_arbiter.return_credit(operation); }

  /** Adds the NIC's signals whose name contains `pattern` (empty: all) to a VCD trace. */
  void trace(sc_core::sc_trace_file* file, const std::string& pattern) const;

  int node() const { return node_; }

  PcieEndpoint pcie_endpoint;
  CommandQueue command_queue;
  CommandDecoder command_decoder;
  AddressTranslation address_translation;
  Packetizer request_packetizer;
  Packetizer response_packetizer;
  WireArbiter wire_arbiter;
  LinkPort link_port;
  Depacketizer depacketizer;
  std::vector<std::unique_ptr<ListMatchingEngine>> list_matching_engines;
  DmaWriter dma_writer;
  EventEngine event_engine;
  ResponseGenerator response_generator;
  E2eEngine e2e_engine;

 private:
  int node_;
  FrameQueue headers_; // incoming headers, for the LMEs
  FrameQueue writes_;  // to the DMA writer, from the LMEs and the depacketizer
  ResponseSlots response_slots_;
  CommitOrder commit_order_;
};

} // namespace bxisim::hw::cycle
