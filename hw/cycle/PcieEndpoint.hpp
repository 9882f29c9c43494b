#pragma once
// PCIe endpoint of the NIC: takes the CPU's MMIO command writes (once SimGrid has carried them over
// the PCIe) and moves data between host memory and the NIC by DMA. The transfers themselves are
// SimGrid communications on the node's PCIe links (contention shared with everything else): the
// endpoint posts them to the outbox and learns from the bridge when a read has finished.
//
// `dma` carries, from any number of initiators:
//   TLM_READ_COMMAND:   read the frame's payload; returns once the first PCIe packet is in (all of
//                       it for a one-packet read, which does not pipeline); the frame's read_pending
//                       stays true until the whole read is done;
//   TLM_IGNORE_COMMAND: returns once the frame's read is done (the link port waits for it);
//   TLM_WRITE_COMMAND:  a posted write of data_length bytes (address: kWriteToInitiator for the
//                       initiator's memory, else the target's; kWriteEvent for an event); returns at once.

#include "CycleNicConfig.hpp"
#include "Outbox.hpp"
#include "Stage.hpp"

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <deque>

namespace bxisim::hw::cycle
{

constexpr uint64_t kWriteToInitiator = 1;
constexpr uint64_t kWriteEvent       = 2;

/** Posts a DMA write of `bytes` for `frame` through `socket` (a transaction of its own, carrying the
 * frame's extension). */
template <typename Socket>
void post_write(Socket& socket, tlm::tlm_generic_payload& frame, uint64_t bytes, uint64_t address)
{
  tlm::tlm_generic_payload write;
  write.set_command(tlm::TLM_WRITE_COMMAND);
  write.set_address(address);
  write.set_data_length(static_cast<unsigned>(bytes));
  write.set_extension(frame.get_extension<FrameExtension>());
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  socket->b_transport(write, delay);
  write.clear_extension<FrameExtension>();
}

class PcieEndpoint : public sc_core::sc_module
{
 public:
  tlm_utils::simple_initiator_socket<PcieEndpoint> commands; // towards the command queues
  tlm_utils::multi_passthrough_target_socket<PcieEndpoint> dma;

  PcieEndpoint(sc_core::sc_module_name name, const PcieEndpointConfig& config, int node, Outbox& outbox);

  /** A command write has crossed the PCIe (called by the bridge, outside SystemC processes). */
  void command_arrived(tlm::tlm_generic_payload* command);
  /** A DMA read posted by this endpoint has finished (called by the bridge). */
  void read_finished(tlm::tlm_generic_payload& frame);

  uint64_t reads = 0, writes = 0, read_bytes = 0, written_bytes = 0;

 private:
  void mmio_thread();
  void transport(int id, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

  PcieEndpointConfig config_;
  int node_;
  Outbox& outbox_;
  std::deque<tlm::tlm_generic_payload*> arrived_;
  sc_core::sc_event command_event_, read_event_;
};

} // namespace bxisim::hw::cycle
