#pragma once
// The `message` NIC model (thesis 4.2-4.3): per NIC host, a TX and an RX actor per virtual network
// (requests, responses), a list matching engine, a response engine, a DMA write engine and an E2E
// actor, moving whole messages over SimGrid's flow model.
//
// Initiator: the rank takes a slot of its command queue and posts the command (with a PIO payload)
// as a PCIe write, waiting for its serialization only; TX takes it once it has reached the NIC. A
// DMA payload is read over PCIe, the wire transfer starting once the first PCIe packet is in (all of
// it for one-packet payloads, which do not pipeline). A frame occupies the wire for its
// serialization, then the next may follow while it travels.
// Target: RX acknowledges each request on arrival (a BXI ACK, ahead of the frames waiting on the
// response network) and hands it to the matching engine, which waits rx_delay, the last PCIe packet
// of the payload to be in memory (figure 4.10: one packet after arrival) and a free slot of the
// response queue, then lets Portals semantics match and deliver. Payloads and events are written to
// memory by the in-order DMA write engine; the response (an ACK, or a reply always read by DMA) goes
// back on the response network and is acknowledged by a BXI ACK in turn. E2E sends again what is
// not acknowledged within nic.e2e_timeout of leaving the NIC, or of landing for a frame still on the
// wire (slowed by contention) when its timer fires: congestion is not loss.
// NIC flow control (thesis 7.1, nic.flow_control_*; off by default): the request TX of a NIC holds a
// new request while the NIC has `limit` requests in flight towards its destination NIC or process;
// a request is in flight from its departure until its BXI ACK or response comes back (its credit
// returns with it), as in the cycle model's wire arbiter.
// Inside a node (a rank to a neighbour or to itself) every frame is the same SimGrid communication,
// from the NIC host to itself: the platform routes it over the NIC's loopback link, not the wire.

#include "InFlight.hpp"
#include "MessageNicConfig.hpp"

#include "hw/actors/PacketFairTurns.hpp"
#include "hw/actors/ProcessWaiters.hpp"
#include "hw/actors/WireLanes.hpp"
#include "hw/actors/WriteEngineWork.hpp"
#include "hw/trace/OperationTrace.hpp"
#include "platforms/Machine.hpp"
#include "portals/core/NicModel.hpp"

#include <simgrid/s4u/Semaphore.hpp>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace bxisim::hw::message
{

/** Finds the core host of a simulated process, by its id or its physical address. */
struct ProcessDirectory {
  std::function<simgrid::s4u::Host*(uint32_t process_id)> core_of_process;
  std::function<simgrid::s4u::Host*(ptl_nid_t nid, ptl_pid_t pid)> core_of_address;
};

/** Counters of one run, summed over the NICs. */
struct MessageNicStatistics {
  uint64_t frames_sent = 0, flow_stalls = 0;
  double flow_stalled_seconds   = 0;
  uint64_t command_queue_stalls = 0; // commands posted while the process's queue was full
  uint64_t retransmissions      = 0; // frames sent again after an E2E timeout
  uint64_t frames_dropped       = 0; // frames the network lost (nic.drop_frames, faults)
};

class MessageNicModel : public portals::NicModel
{
 public:
  MessageNicModel(const platform::Machine& machine, const MessageNicConfig& config, ProcessDirectory directory);

  /** Starts the NIC actors (daemons) of every node. Call before Engine::run. */
  void start();

  const char* name() const override { return "message"; }
  void submit(std::unique_ptr<portals::Message> message) override;
  portals::WaitStatus wait(const portals::ProcessContext& context, double timeout) override;
  void notify(uint32_t process_id) override;
  void polled(const portals::ProcessContext& context, portals::PollAction action) override;
  double now() const override;

  /** Records every wire frame and PCIe transfer into `trace` (owned by the caller) from now on. */
  void set_trace(OperationTrace* trace) { trace_ = trace; }
  /** Writes the PCIe transfers that ran in the background and have finished; call after the run. */
  void flush_trace();
  /** Wire frames sent so far (the numbering of nic.drop_frames), and the configuration. */
  uint64_t frames_sent() const { return frames_sent_; }
  const MessageNicConfig& config() const { return config_; }

  MessageNicStatistics statistics() const;
  /** Called (in the NIC actor that saw it) when a frame is lost and nothing will ever send it again
   * (E2E off): the operation can never complete. Unset: the loss is only logged. */
  void set_on_lost_for_good(std::function<void(const std::string&)> handler) { on_lost_for_good_ = std::move(handler); }

 private:
  enum Network { kRequests = 0, kResponses = 1, kNetworks = 2 };

  struct TxQueue {
    std::deque<WireFrame> frames;
    // The frames of `frames` whose payload the NIC reads from host memory, in the same order (a deque keeps its
    // elements in place as frames are added at either end and taken from the front): the read-ahead walks these,
    // not the queue, which may hold tens of thousands of inline frames before them (triggered operations fired at
    // once), so finding the next payload to read does not cost the queue's length.
    std::deque<WireFrame*> host_reads;

    /** Takes the first frame out of the queue (and out of host_reads). */
    WireFrame pop_front()
    {
      if (not host_reads.empty() && host_reads.front() == &frames.front())
        host_reads.pop_front();
      WireFrame frame = std::move(frames.front());
      frames.pop_front();
      return frame;
    }
    simgrid::s4u::SemaphorePtr ready;
  };
  struct E2eEntry {
    double deadline;
    std::optional<WireFrame> frame; // empty once acknowledged
  };
  struct PendingWrite {
    const char* operation;
    simgrid::s4u::Host* memory;
    uint64_t bytes;
  };
  struct Nic {
    simgrid::s4u::Host* host;
    TxQueue tx[kNetworks];
    std::unique_ptr<Arrivals<WireFrame>> rx[kNetworks]; // frames whose transfer ended, per network's RX
    // The link sends one message at a time, whichever network it is from; the next goes to the network
    // whose turn it is, counted in packets (send_on_wire, hand_on_wire)
    bool wire_busy                   = false;
    int wire_reserved                = -1; // granted the link, its frame on the way to it
    uint64_t wire_waiting[kNetworks] = {}; // packets of the frame each network has waiting for the link
    simgrid::s4u::SemaphorePtr wire_turn[kNetworks];
    PacketFairTurns<kNetworks> wire_turns;
    double reads_free_at[kNetworks]    = {}; // when each network's DMA reads ahead may start the next (ReadAhead)
    bool read_ahead_waiting[kNetworks] = {}; // its TX waits for a frame to read ahead while sending
    simgrid::s4u::SemaphorePtr read_ahead_wake[kNetworks];
    // Link credits: bytes of the frames sent to other nodes, per network, until they land (rx_loop),
    // and the frames larger than a credit chunk, which give theirs back chunk by chunk
    uint64_t on_wire_bytes[kNetworks] = {};
    std::deque<std::pair<simgrid::s4u::CommPtr, uint64_t>> chunked_on_wire[kNetworks];
    bool credit_waiting[kNetworks] = {}; // a frame waits for credits to come back (rx_loop wakes it)
    simgrid::s4u::SemaphorePtr credit_back[kNetworks];
    // E2E: one timer per NIC, armed on the oldest unacknowledged frame. Entries are in sending order
    // (the timeout is constant, so deadlines are too); an acknowledged frame is released at once and
    // its entry dropped when it reaches the front. e2e_first numbers e2e.front() (InFlight::*_e2e).
    std::deque<E2eEntry> e2e;
    uint64_t e2e_first = 1;
    bool e2e_idle      = false; // the E2E actor waits on e2e_ready for a first entry
    simgrid::s4u::SemaphorePtr e2e_ready;
    simgrid::s4u::SemaphorePtr response_slots; // back-pressure: matching waits while the responses pile up
    // Arrived frames per network: requests for the list matching engine, responses for the initiator
    // side, apart so that responses never wait behind requests held by a full response queue.
    std::deque<WireFrame> matching[kNetworks];
    simgrid::s4u::SemaphorePtr matching_ready[kNetworks];
    std::deque<PendingWrite> writes;    // DMA writes to memory (payloads, events), in order
    WriteEngineWork<double> write_work; // when arrived payloads are in memory
    simgrid::s4u::SemaphorePtr writes_ready;
    // NIC flow control: requests in flight per destination NIC and process, credits coming back
    std::map<int, unsigned> flow_per_nic;
    std::map<std::pair<ptl_nid_t, ptl_pid_t>, unsigned> flow_per_process;
    simgrid::s4u::SemaphorePtr flow_credit_back;
    uint64_t flow_stalls        = 0;
    double flow_stalled_seconds = 0;
  };
  Nic& nic(int node) { return nics_.at(static_cast<size_t>(node)); }
  void enqueue(int node, Network network, WireFrame frame);
  /** BXI ACKs overtake the frames waiting on the response network, so that a queue of bulk replies
   * does not make E2E time out on requests that did arrive. */
  void enqueue_bxi_ack(int node, FrameKind kind, const std::shared_ptr<InFlight>& operation);
  /** Seconds `bytes` occupy the route from `from` to `to` (its bottleneck): the next transfer of the
   * same sender may start then, while this one is still travelling. */
  struct ReadAhead {
    double at = 0;                 // the next read may start at this date, while the frame is sent
    std::function<double()> start; // starts it; returns when the one after it may start (none: infinity)
    double worth_waiting = 0;      // with nothing to read, wait for a frame only if the send lasts longer
  };
  void send_on_wire(int node, Network network, simgrid::s4u::Host* receiver, simgrid::s4u::Comm& frame, uint64_t bytes,
                    const std::function<void()>& start, ReadAhead read_ahead);
  void take_wire(Nic& sender, Network network, uint64_t packets);
  void hand_on_wire(int node, Network sent);
  /** Link credits (wire bytes) `network`'s frames from `sender` hold; an upper bound when it leaves
   * `room` bytes of credits. */
  double credits_in_use(Nic& sender, Network network, uint64_t room);
  /** Waits until the peer has room for a packet of `network` (frames to other nodes only). */
  void wait_for_credits(Nic& sender, Network network, double bottleneck);
  /** Waits up to `seconds` for `network`'s credits to come back. */
  void wait_for_credit_back(Nic& sender, Network network, double seconds);
  /** Wire bytes of the chunks in which a large frame gives its link credits back. */
  uint64_t credit_chunk() const;
  /** Packets of the frame `network` of NIC `node` would send next, if it can go now (0: none). */
  uint64_t packets_ready(int node, Network network);
  simgrid::s4u::Host* read_memory(const WireFrame& frame) const;
  double in_memory_at(int node, const WireFrame& frame, simgrid::s4u::Host* memory, uint64_t bytes);
  static uint64_t payload_of(const WireFrame& frame);
  /** The network a frame travels on, and the nodes it goes from and to. */
  static Network network_of(const WireFrame& frame);
  static int sender_of(const WireFrame& frame);
  static int destination_of(const WireFrame& frame);
  bool reads_from_host(const WireFrame& frame) const;
  void start_read(int node, WireFrame& frame);
  /** Starts reading the next payload of `network` not being read yet (at most read_ahead_frames ahead);
   * returns when the read after it may start, infinity if none was started. */
  double read_next_payload(int node, Network network);
  void send_overtaking_bxi_acks(int node);
  double serialization(simgrid::s4u::Host* from, simgrid::s4u::Host* to, uint64_t bytes);

  void tx_loop(int node, Network network);
  void rx_loop(int node, Network network);
  void e2e_loop(int node);
  void matching_loop(int node, Network network);
  void write_loop(int node);

  void transmit(int node, WireFrame& frame);
  void on_request(int node, const WireFrame& frame, double taken);
  void on_response(int node, const WireFrame& frame);
  void complete_send_once(InFlight& operation);
  /** Flow control: waits until `operation` may leave NIC `node`, then counts it in flight. */
  void take_flow_credit(int node, InFlight& operation);
  bool may_take_flow_credit(int node, const InFlight& operation);
  void return_flow_credit(InFlight& operation);
  void give_up(InFlight& operation, FrameKind kind);
  /** E2E: `frame` has left NIC `node`; its timer runs from now. */
  void e2e_watch(int node, const WireFrame& frame);
  /** E2E: the request (or response) of `operation` needs no retransmission any more: release it. */
  void e2e_forget(InFlight& operation, FrameKind kind);
  void start_write(int node, const PendingWrite& write);
  /** The network lost `frame` on its way to NIC `node` (`why`): E2E will send it again, if on. */
  void lose(int node, const WireFrame& frame, const std::string& why);

  struct BackgroundTransfer {
    const char* operation;
    int node;
    simgrid::s4u::CommPtr comm;
  };
  /** A DMA write to `memory` that the caller does not wait for: the NIC's write engine sends them in
   * order, each after the previous one's serialization, so they cannot pile up on the bus. */
  void write_to_memory(const char* operation, int node, simgrid::s4u::Host* memory, uint64_t bytes);
  void trace(const char* operation, int initiator, int target, double start) const;
  /** Seconds for the first PCIe packet of `bytes` (all of them if they fit one packet) to go from
   * `from` to `to`; 0 without payload or PCIe model. */
  double packet_time(simgrid::s4u::Host* from, simgrid::s4u::Host* to, uint64_t bytes);
  struct RouteFigures {
    double latency;
    double bottleneck;
    std::vector<simgrid::s4u::Link*> links;
  };
  const RouteFigures& route_figures(simgrid::s4u::Host* from, simgrid::s4u::Host* to);
  bool is_dma(const portals::Message& message) const;
  uint64_t command_pcie_bytes(const portals::Message& message) const;

  const platform::Machine& machine_;
  MessageNicConfig config_;
  ProcessDirectory directory_;
  std::vector<Nic> nics_;
  WireLanes<WireFrame> lanes_;
  ProcessWaiters waiters_;
  std::vector<BackgroundTransfer> background_;
  std::map<std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*>, RouteFigures> routes_;
  OperationTrace* trace_         = nullptr;
  double precision_              = 0; // SimGrid's surf/precision, read at start()
  uint64_t frames_sent_          = 0;
  uint64_t command_queue_stalls_ = 0, retransmissions_ = 0, frames_dropped_ = 0;
  platform::WireFaults faults_;
  std::function<void(const std::string&)> on_lost_for_good_;
};

} // namespace bxisim::hw::message
