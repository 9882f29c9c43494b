#pragma once
// Link port: puts frames on the NIC's BXI link and takes the frames that arrive. Each virtual network
// has its own receive buffer at the peer and its own credits (as BXI's virtual networks): responses
// and BXI ACKs never wait for room that requests hold, so a target whose requests back up (behind a
// slow matching engine or a full response generator) still takes the responses that free it.
//
// Sending: a frame occupies the port for its serialization at the link's bandwidth (the loopback's
// for a frame to this node); the bytes travel as SimGrid communications from this NIC's host (so
// contention on every link is shared with the rest of the machine; inside a node they cross the
// NIC's loopback link, nodeK-nic-loopback, the message model's route). Link-level credits: each packet takes
// `flits_per_packet` credits of the peer's receive buffer (`credits` flits); the port stops when they are used up and
// goes on as the receiver drains its buffer. The wire arbiter hands the port a frame only when the port is free and the
// frame's network has credits for a packet (LinkReadyIf): a frame never holds the wire waiting for credits that
// frames stuck at the peer hold. A frame larger than the credits go out in chunks, each a communication of
// its own, of at most half the credits so that the pipe stays full. Once the last packet has left (and the DMA read of
// the payload is over), the frame is handed to the E2E engine (its timer starts), and a request whose payload fits the
// E2E context gets its SEND event.
//
// Receiving: the bridge calls chunk_arrived(); the last chunk of a frame goes into the receive
// buffer, where the depacketizer takes it (and returns its credits to the sender). Earlier chunks
// give their credits back at once: they stream on to memory. Every chunk's payload is counted as work
// of the NIC's DMA write engine (hw/actors/WriteEngineWork) when it arrives, so that the engine is
// shared by the payloads that stream in together: the frame's written_by is when the engine is
// through everything that arrived before its last chunk.

#include "Channels.hpp"
#include "CycleNicConfig.hpp"
#include "Outbox.hpp"
#include "Stage.hpp"
#include "hw/actors/WriteEngineWork.hpp"

#include <tlm_utils/simple_initiator_socket.h>

namespace bxisim::hw::cycle
{

class LinkPort : public Stage, public LinkReadyIf
{
 public:
  tlm_utils::simple_initiator_socket<LinkPort> dma;    // waits for a payload's DMA read to finish
  tlm_utils::simple_initiator_socket<LinkPort> to_e2e; // frames that have left (E2E timers)
  sc_core::sc_export<FrameQueueIf> received;           // the request network's receive buffer, for the depacketizer
  sc_core::sc_export<FrameQueueIf> received_responses; // the response network's (responses, BXI ACKs)
  sc_core::sc_export<LinkReadyIf> ready;               // for the wire arbiter

  LinkPort(sc_core::sc_module_name name, const LinkPortConfig& config, int node, Outbox& outbox);

  /** `flits` of a frame sent by another NIC arrived (called by the bridge), their transfer having started
   * at `started`; `last`: the frame is complete. */
  void chunk_arrived(tlm::tlm_generic_payload* frame, uint64_t flits, bool last,
                     sc_core::sc_time started = sc_core::SC_ZERO_TIME);
  /** The peer drained `flits` from its receive buffer of `network` (called by the bridge). */
  void credits_returned(uint64_t flits, unsigned network = kComputeRequest);

  bool busy() const override { return held() > 0; }
  bool has_credits(unsigned network) const override
  {
    return static_cast<uint64_t>(credits_of[network]) >= config_.flits_per_packet;
  }
  const sc_core::sc_event& changed() const override { return changed_; }

  uint64_t frames_sent = 0, chunks_sent = 0, bytes_sent = 0;
  uint64_t credit_stalls = 0;            // times the port waited for credits
  sc_core::sc_time credit_stalled_time;  // total time it waited
  int credits_of[kVirtualNetworks] = {}; // credits left per virtual network (VCD)
  int sending                      = 0;  // 1 while a frame is on the port (VCD)

 protected:
  void process(tlm::tlm_generic_payload& frame) override;

 private:
  void count_write(FrameExtension& frame, uint64_t flits, bool last, sc_core::sc_time started);
  LinkPortConfig config_;
  int node_;
  WriteEngineWork<sc_core::sc_time> write_work_; // the NIC's DMA write engine, fed by arriving payloads
  Outbox& outbox_;
  FrameQueue rx_buffer_, rx_responses_;
  sc_core::sc_event changed_;
};

} // namespace bxisim::hw::cycle
