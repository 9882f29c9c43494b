#pragma once
// Wire arbiter: four virtual network queues progressing independently, one link. It picks the next
// frame among the networks whose head may go, in turns counted in packets (hw/actors/PacketFairTurns:
// the message model's link takes turns the same way), and hands whole frames to the link port,
// so packets of different messages are never interleaved on the wire. It hands the link port a frame
// only when the port is free and the frame's network has link credits for a packet (it decides on the
// next frame while the port sends the previous one, then checks again when the port is free): a
// request waiting for credits never holds the wire against the responses that would free them.
//
// NIC flow control (thesis 7.1, off by default): a request may enter the wire only while the NIC has
// fewer than `nic_limit` requests in flight towards its destination NIC and fewer than
// `process_limit` towards its destination process; the credit comes back with the request's
// acknowledgement (the E2E engine returns it). A blocked head stalls its virtual network (the
// others go on); stalls are counted.

#include "Channels.hpp"
#include "CycleNicConfig.hpp"
#include "hw/actors/PacketFairTurns.hpp"

#include <tlm_utils/simple_initiator_socket.h>

#include <map>
#include <memory>

namespace bxisim::hw::cycle
{

class WireArbiter : public sc_core::sc_module, public FlowCreditIf
{
 public:
  tlm_utils::simple_initiator_socket<WireArbiter> out; // to the link port
  sc_core::sc_export<FrameQueueIf> vn[kVirtualNetworks];
  sc_core::sc_export<FlowCreditIf> credits;
  sc_core::sc_port<LinkReadyIf> link; // the link port: free, and credits per network

  WireArbiter(sc_core::sc_module_name name, const WireArbiterConfig& config);

  void return_credit(Operation& operation) override;
  const FrameQueue& queue(unsigned network) const { return *queues_[network]; }
  /** Reports the queues' occupancy on the timeline as NIC `node`'s (with --trace). */
  void trace_as(int node)
  {
    static const char* const kNames[kVirtualNetworks] = {"vn0 queue (requests)", "vn1 queue (responses)",
                                                         "vn2 queue (service requests)",
                                                         "vn3 queue (service responses)"};
    for (unsigned network = 0; network < kVirtualNetworks; ++network)
      queues_[network]->trace_as(node, kNames[network]);
  }

  uint64_t frames      = 0;
  uint64_t link_stalls = 0;           // times every waiting network lacked link credits
  uint64_t flow_stalls = 0;           // times a request waited for a flow-control credit
  sc_core::sc_time flow_stalled_time; // total time requests waited for one
  int in_flight = 0;                  // requests holding a credit (VCD)

 private:
  void arbiter();
  bool may_go(tlm::tlm_generic_payload& frame) const;
  /** The packets of each network's head that may go (0: none); says why others wait. */
  PacketFairTurns<kVirtualNetworks>::Heads ready_heads(bool& flow_stalled, bool& link_stalled) const;
  static std::pair<ptl_nid_t, ptl_pid_t> process_of(const Operation& operation);

  WireArbiterConfig config_;
  std::unique_ptr<FrameQueue> queues_[kVirtualNetworks];
  PacketFairTurns<kVirtualNetworks> turns_;
  std::map<int, unsigned> per_nic_;
  std::map<std::pair<ptl_nid_t, ptl_pid_t>, unsigned> per_process_;
  sc_core::sc_event credit_back_;
};

} // namespace bxisim::hw::cycle
