#include "MessageNicModel.hpp"

#include "hw/trace/S4bxiNames.hpp"
#include "hw/trace/TrafficCounters.hpp"
#include "platforms/Route.hpp"
#include "portals/core/Core.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <xbt/config.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <limits>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(bxisim_nic_message);

namespace sg4 = simgrid::s4u;

namespace bxisim::hw::message
{

MessageNicModel::MessageNicModel(const platform::Machine& machine, const MessageNicConfig& config,
                                 ProcessDirectory directory)
    : machine_(machine), config_(config), directory_(std::move(directory)),
      waiters_(static_cast<unsigned>(config.command_queue_depth), config.poll_backoff), faults_(config.faults)
{
  for (const auto& node : machine_.nodes()) {
    Nic nic;
    nic.host = node.nic;
    for (int network = 0; network < kNetworks; ++network) {
      nic.tx[network].ready = sg4::Semaphore::create(0);
      nic.rx[network]       = std::make_unique<Arrivals<WireFrame>>();
    }
    nic.e2e_ready = sg4::Semaphore::create(0);
    for (auto& turn : nic.wire_turn)
      turn = sg4::Semaphore::create(0);
    for (auto& wake : nic.read_ahead_wake)
      wake = sg4::Semaphore::create(0);
    for (auto& back : nic.credit_back)
      back = sg4::Semaphore::create(0);
    for (auto& ready : nic.matching_ready)
      ready = sg4::Semaphore::create(0);
    nic.writes_ready     = sg4::Semaphore::create(0);
    nic.flow_credit_back = sg4::Semaphore::create(0);
    nic.response_slots   = sg4::Semaphore::create(static_cast<unsigned>(config_.response_queue_depth));
    nics_.push_back(std::move(nic));
  }
}

void MessageNicModel::start()
{
  precision_ = simgrid::config::get_value<double>("surf/precision");
  for (int node = 0; node < static_cast<int>(nics_.size()); ++node) {
    sg4::Host* host = nic(node).host;
    for (int network = 0; network < kNetworks; ++network) {
      const char* suffix = network == kRequests ? "request" : "response";
      auto net           = static_cast<Network>(network);
      sg4::Actor::create(std::string("tx-") + suffix, host, [this, node, net] { tx_loop(node, net); })->daemonize();
      sg4::Actor::create(std::string("rx-") + suffix, host, [this, node, net] { rx_loop(node, net); })->daemonize();
    }
    sg4::Actor::create("matching", host, [this, node] { matching_loop(node, kRequests); })->daemonize();
    sg4::Actor::create("responses", host, [this, node] { matching_loop(node, kResponses); })->daemonize();
    sg4::Actor::create("dma-write", host, [this, node] { write_loop(node); })->daemonize();
    if (config_.e2e)
      sg4::Actor::create("e2e", host, [this, node] { e2e_loop(node); })->daemonize();
  }
}

double MessageNicModel::now() const
{
  return sg4::Engine::get_clock();
}

bool MessageNicModel::is_dma(const portals::Message& message) const
{
  bool matching = (message.ni_options & PTL_NI_MATCHING) != 0;
  return message.request_bytes() > (matching ? config_.pio_max_matching : config_.pio_max_unmatched);
}

uint64_t MessageNicModel::command_pcie_bytes(const portals::Message& message) const
{
  bool matching    = (message.ni_options & PTL_NI_MATCHING) != 0;
  uint64_t payload = message.request_bytes();
  if (payload <= (matching ? config_.inline_max_matching : config_.inline_max_unmatched) || is_dma(message))
    return config_.command_bytes;         // inline payloads ride in the command; DMA payloads are read by the NIC later
  return config_.command_bytes + payload; // PIO: the CPU writes the payload to the NIC's scratch memory
}

void MessageNicModel::trace(const char* operation, int initiator, int target, double start) const
{
  if (trace_ != nullptr)
    trace_->record(operation, initiator, target, start, now());
}

void MessageNicModel::write_to_memory(const char* operation, int node, sg4::Host* memory, uint64_t bytes)
{
  if (not config_.model_pcie || bytes == 0)
    return;
  nic(node).writes.push_back({operation, memory, bytes});
  nic(node).writes_ready->release();
}

void MessageNicModel::start_write(int node, const PendingWrite& write)
{
  // Started as Comm::sendto_async does; kept only to be traced once over (flush_trace), else detached
  // so that s4u forgets it (SimGrid's kernel keeps it until it ends either way).
  sg4::CommPtr comm = sg4::Comm::sendto_init();
  comm->set_payload_size(write.bytes);
  if (trace_ == nullptr)
    comm->detach(); // nothing starts yet: no destination
  comm->set_source(nic(node).host)->set_destination(write.memory);
  TrafficCounters::count(LinkClass::Pcie, write.bytes);
  if (trace_ != nullptr) {
    if (background_.size() >= 64)
      flush_trace();
    background_.push_back({write.operation, node, std::move(comm)});
  }
}

void MessageNicModel::write_loop(int node)
{
  Nic& here = nic(node);
  for (;;) {
    here.writes_ready->acquire();
    PendingWrite write = here.writes.front();
    here.writes.pop_front();
    start_write(node, write);
    sg4::this_actor::sleep_for(serialization(here.host, write.memory, write.bytes));
  }
}

void MessageNicModel::flush_trace()
{
  // Nobody waits on these transfers, so their s4u state stays "started": the kernel's finish time,
  // set when they end, tells which are over (and reading it is not a simcall, so nothing yields).
  auto finished = std::stable_partition(background_.begin(), background_.end(), [](const BackgroundTransfer& transfer) {
    return transfer.comm->get_finish_time() < 0;
  });
  if (trace_ != nullptr)
    for (auto it = finished; it != background_.end(); ++it)
      trace_->record(it->operation, it->node, it->node, it->comm->get_start_time(), it->comm->get_finish_time());
  background_.erase(finished, background_.end());
}

double MessageNicModel::packet_time(sg4::Host* from, sg4::Host* to, uint64_t bytes)
{
  if (not config_.model_pcie || bytes == 0)
    return 0.0;
  const RouteFigures& route = route_figures(from, to);
  return route.latency + static_cast<double>(std::min(bytes, config_.pcie_packet)) / route.bottleneck;
}

double MessageNicModel::in_memory_at(int node, const WireFrame& frame, sg4::Host* memory, uint64_t bytes)
{
  // The payload streamed to memory behind the wire: one PCIe packet after its arrival, unless the
  // NIC's write engine is behind (payloads from the loopback and the wire at once).
  double streamed = now() + packet_time(nic(node).host, memory, bytes);
  if (not config_.model_pcie || bytes == 0)
    return streamed;
  const RouteFigures& route = route_figures(nic(node).host, memory);
  double written = nic(node).write_work.done_with(frame.sent_at, static_cast<double>(bytes) / route.bottleneck);
  return std::max(streamed, written + route.latency);
}

void MessageNicModel::submit(std::unique_ptr<portals::Message> message)
{
  auto operation                 = std::make_shared<InFlight>();
  operation->source_node         = static_cast<int>(message->source.phys.nid);
  operation->target_node         = static_cast<int>(message->target.phys.nid);
  operation->source_core         = directory_.core_of_process(message->source_process);
  operation->target_core         = directory_.core_of_address(message->target.phys.nid, message->target.phys.pid);
  operation->message             = std::move(message);
  const portals::Message& posted = *operation->message;

  // Triggered operations are fired by the NIC itself: no CPU, no command queue.
  WireFrame frame{FrameKind::Request, operation};
  if (not posted.triggered) {
    if (waiters_.take_command_slot(posted.source_process)) // the rank waits while its queue is full
      ++command_queue_stalls_;
    operation->holds_command_slot = true;
    // A posted PCIe write: the rank goes on, TX takes the command once it has reached the NIC.
    if (config_.model_pcie_commands) {
      frame.command_posted_at = now();
      sg4::Host* nic_host     = nic(operation->source_node).host;
      uint64_t bytes          = command_pcie_bytes(posted);
      frame.command           = sg4::Comm::sendto_async(operation->source_core, nic_host, bytes);
      TrafficCounters::count(LinkClass::Pcie, bytes);
      // The CPU's stores drain at the link's speed: the next command follows this one on the bus.
      sg4::this_actor::sleep_for(serialization(operation->source_core, nic_host, bytes));
    }
  }
  XBT_DEBUG("submit %s #%lu from node %d to node %d, %lu bytes", portals::op_kind_name(posted.kind),
            static_cast<unsigned long>(posted.id), operation->source_node, operation->target_node,
            static_cast<unsigned long>(posted.length));
  enqueue(operation->source_node, kRequests, std::move(frame));
}

void MessageNicModel::enqueue(int node, Network network, WireFrame frame)
{
  Nic& here      = nic(node);
  TxQueue& queue = here.tx[network];
  bool reads     = reads_from_host(frame);
  bool to_read   = here.read_ahead_waiting[network] && reads;
  queue.frames.push_back(std::move(frame));
  if (reads)
    queue.host_reads.push_back(&queue.frames.back());
  queue.ready->release();
  if (to_read) { // its TX sends a frame and has nothing else to read meanwhile
    here.read_ahead_waiting[network] = false;
    here.read_ahead_wake[network]->release();
  }
}

void MessageNicModel::enqueue_bxi_ack(int node, FrameKind kind, const std::shared_ptr<InFlight>& operation)
{
  ++(kind == FrameKind::RequestAck ? operation->request_ack_sends : operation->response_ack_sends);
  TxQueue& queue = nic(node).tx[kResponses];
  queue.frames.push_front({kind, operation});
  queue.ready->release();
}

const MessageNicModel::RouteFigures& MessageNicModel::route_figures(sg4::Host* from, sg4::Host* to)
{
  // Computed once per pair of hosts: these are asked for on every frame and PCIe transfer.
  auto key = std::make_pair(from, to);
  auto it  = routes_.find(key);
  if (it == routes_.end()) {
    platform::Route route = platform::Route::between(from, to);
    it = routes_.emplace(key, RouteFigures{route.latency, route.bottleneck, std::move(route.links)}).first;
  }
  return it->second;
}

double MessageNicModel::serialization(sg4::Host* from, sg4::Host* to, uint64_t bytes)
{
  return static_cast<double>(bytes) / route_figures(from, to).bottleneck;
}

void MessageNicModel::send_on_wire(int node, Network network, sg4::Host* receiver, sg4::Comm& frame, uint64_t bytes,
                                   const std::function<void()>& start, ReadAhead read_ahead)
{
  // BXI's link sends one message at a time, whatever its virtual network (thesis 2.2.3): a request
  // waits for the response on the wire to be through, and the other way round.
  Nic& sender = nic(node);
  if (receiver != sender.host)
    wait_for_credits(sender, network, route_figures(sender.host, receiver).bottleneck);
  take_wire(sender, network, bytes / config_.wire_packet);
  start();
  // Starts the reads ahead due before `until`, sleeping until each; false if none was due. With
  // nothing to read, it waits for a frame to be queued (enqueue wakes it), unless this frame is a
  // single packet or the rest of its send is too short for a queued frame's read to start in it (a
  // command takes the PCIe's latency to come).
  bool may_wait          = bytes > config_.wire_packet;
  auto read_ahead_before = [&](double until) {
    bool any = false;
    while (read_ahead.start) {
      if (read_ahead.at < until) {
        if (read_ahead.at - now() >= precision_)
          sg4::this_actor::sleep_until(read_ahead.at);
      } else if (std::isinf(read_ahead.at) && may_wait && until - now() > read_ahead.worth_waiting) {
        sender.read_ahead_waiting[network] = true;
        bool woken                         = sender.read_ahead_wake[network]->acquire_timeout(until - now()) == false;
        sender.read_ahead_waiting[network] = false;
        any                                = true;
        if (not woken)
          break;
      } else {
        break;
      }
      read_ahead.at = read_ahead.start();
      any           = true;
    }
    return any;
  };
  const RouteFigures& route = route_figures(sender.host, receiver);
  double serialization      = static_cast<double>(bytes) / route.bottleneck;
  if (receiver == sender.host) {
    // The NIC's loopback: the frame is through when its transfer ends (with a loopback latency of 0,
    // its serialization); no other flow of this NIC shares the loopback meanwhile.
    read_ahead_before(now() + serialization);
    frame.wait();
    hand_on_wire(node, network);
    return;
  }
  sender.on_wire_bytes[network] += bytes;
  if (bytes > credit_chunk())
    sender.chunked_on_wire[network].emplace_back(sg4::CommPtr(&frame), bytes);
  double end = now() + serialization;
  if (not read_ahead_before(end))
    sg4::this_actor::sleep_for(serialization);
  else if (end - now() >= precision_)
    sg4::this_actor::sleep_until(end);
  // Slowed down further on (other NICs sending to the same node), the frames of a network hold the
  // peer's buffer until they arrive: beyond the link credits, the frame on the link waits for them
  // (and so does the link, whose packets are never interleaved), as the cycle model's link port
  // does. The hold lasts until what exceeds the credits could have left at full rate, checked again
  // then; less than a wire packet is not worth waiting for.
  double wire_packet = static_cast<double>(config_.wire_packet) / route.bottleneck;
  for (;;) {
    double excess = credits_in_use(sender, network, 0) - static_cast<double>(config_.link_credit_bytes);
    double hold   = excess / route.bottleneck;
    if (hold < wire_packet)
      break;
    double until = now() + hold;
    if (not read_ahead_before(until))
      wait_for_credit_back(sender, network, hold);
    else if (until - now() >= precision_)
      sg4::this_actor::sleep_until(until);
  }
  hand_on_wire(node, network);
}

void MessageNicModel::wait_for_credits(Nic& sender, Network network, double bottleneck)
{
  // As the cycle model's link port: a frame starts once the peer has room for a packet of it, and
  // meanwhile the link is the other network's. Credits come back when a frame lands (rx_loop wakes
  // the frame) or, from a large frame, chunk by chunk: checked again once what is missing could have
  // arrived at full rate.
  const double packet  = static_cast<double>(config_.wire_packet);
  const double credits = static_cast<double>(config_.link_credit_bytes);
  for (;;) {
    double short_of = credits_in_use(sender, network, config_.wire_packet) + packet - credits;
    if (short_of <= 0)
      return;
    wait_for_credit_back(sender, network, std::max(short_of, packet) / bottleneck);
  }
}

void MessageNicModel::wait_for_credit_back(Nic& sender, Network network, double seconds)
{
  sender.credit_waiting[network] = true;
  sender.credit_back[network]->acquire_timeout(seconds);
  sender.credit_waiting[network] = false;
}

uint64_t MessageNicModel::credit_chunk() const
{
  return config_.link_credit_bytes / config_.wire_packet / 2 * config_.wire_packet;
}

double MessageNicModel::credits_in_use(Nic& sender, Network network, uint64_t room)
{
  // As the cycle model's link port counts them: a frame's packets hold their credits until they have
  // all arrived, a frame larger than half the credits in chunks of that size. Asking SimGrid what a
  // large frame has left costs a simcall: only when the frames in flight might leave less than `room`.
  double held = static_cast<double>(sender.on_wire_bytes[network]);
  if (sender.on_wire_bytes[network] + room <= config_.link_credit_bytes)
    return held;
  double chunk = static_cast<double>(credit_chunk());
  auto& frames = sender.chunked_on_wire[network];
  for (auto it = frames.begin(); it != frames.end();) {
    double remaining = it->first->get_remaining();
    if (remaining > 0) {
      double size = static_cast<double>(it->second);
      held -= size - std::min(size, std::ceil(remaining / chunk) * chunk);
      ++it;
    } else {
      it = frames.erase(it); // landed (rx_loop gave its credits back) or about to
    }
  }
  return held;
}

void MessageNicModel::take_wire(Nic& sender, Network network, uint64_t packets)
{
  // The link is handed from frame to frame; only a frame that finds it busy costs a semaphore.
  if (sender.wire_reserved == network) {
    sender.wire_reserved = -1; // granted when the previous frame left
    return;
  }
  if (not sender.wire_busy) {
    PacketFairTurns<kNetworks>::Heads alone{};
    alone[network] = packets;
    sender.wire_turns.grant(alone);
    sender.wire_busy = true;
    return;
  }
  sender.wire_waiting[network] = packets;
  sender.wire_turn[network]->acquire();
}

uint64_t MessageNicModel::packets_ready(int node, Network network)
{
  const TxQueue& queue = nic(node).tx[network];
  if (queue.frames.empty())
    return 0;
  const WireFrame& next = queue.frames.front();
  if (next.command && not next.command->test())
    return 0; // its command is still on the PCIe
  if (next.kind == FrameKind::Request && not may_take_flow_credit(node, *next.operation))
    return 0; // it would wait for a flow-control credit: it must not hold the link meanwhile
  if (destination_of(next) != node &&
      credits_in_use(nic(node), network, config_.wire_packet) + static_cast<double>(config_.wire_packet) >
          static_cast<double>(config_.link_credit_bytes))
    return 0; // it would wait for link credits, as above
  return config_.wire_bytes(payload_of(next)) / config_.wire_packet;
}

void MessageNicModel::hand_on_wire(int node, Network sent)
{
  // With no frame waiting, the link is free for whichever comes first. Otherwise the candidates are
  // the frames waiting and the next frame of the network that just sent (its TX takes it at once): the
  // link goes to the one whose turn it is in packets, and a grant to a frame not at the link yet
  // reserves the link for its network.
  Nic& sender = nic(node);
  PacketFairTurns<kNetworks>::Heads heads{};
  bool waiting = false;
  for (int network = 0; network < kNetworks; ++network) {
    heads[network] = sender.wire_waiting[network];
    waiting        = waiting || heads[network] > 0;
  }
  if (not waiting) {
    sender.wire_busy = false;
    return;
  }
  if (heads[sent] == 0)
    heads[sent] = packets_ready(node, sent);
  int next = sender.wire_turns.grant(heads);
  if (sender.wire_waiting[next] > 0) {
    sender.wire_waiting[next] = 0;
    sender.wire_turn[next]->release();
  } else {
    sender.wire_reserved = next;
  }
}

void MessageNicModel::tx_loop(int node, Network network)
{
  TxQueue& queue = nic(node).tx[network];
  for (;;) {
    queue.ready->acquire();
    WireFrame frame     = queue.pop_front();
    InFlight& operation = *frame.operation;
    if (frame.command) {
      frame.command->wait();
      if (trace_ != nullptr) // the write's own end: TX may take the command later (the read-ahead saw it in)
        trace_->record("PCI_COMMAND", operation.source_node, operation.source_node, frame.command_posted_at,
                       frame.command->get_finish_time());
      frame.command = nullptr;
    }
    if (frame.kind == FrameKind::Response && operation.holds_response_slot) {
      operation.holds_response_slot = false;
      nic(node).response_slots->release();
    }
    if (operation.holds_command_slot) {
      operation.holds_command_slot = false;
      waiters_.release_command_slot(operation.message->source_process);
    }
    if (operation.message->command_only) // a triggered operation's registration: the NIC stores it
      continue;
    if (frame.kind == FrameKind::Request)
      take_flow_credit(node, operation);
    if (config_.tx_delay > 0)
      sg4::this_actor::sleep_for(config_.tx_delay);
    transmit(node, frame);
  }
}

sg4::Host* MessageNicModel::read_memory(const WireFrame& frame) const
{
  return frame.kind == FrameKind::Request ? frame.operation->source_core : frame.operation->target_core;
}

uint64_t MessageNicModel::payload_of(const WireFrame& frame)
{
  const portals::Message& sent = *frame.operation->message;
  return frame.kind == FrameKind::Request    ? sent.request_bytes()
         : frame.kind == FrameKind::Response ? sent.response_bytes()
                                             : 0; // BXI ACKs
}

MessageNicModel::Network MessageNicModel::network_of(const WireFrame& frame)
{
  return frame.kind == FrameKind::Request ? kRequests : kResponses; // BXI ACKs are responses
}

int MessageNicModel::sender_of(const WireFrame& frame)
{
  bool from_initiator = frame.kind == FrameKind::Request || frame.kind == FrameKind::ResponseAck;
  return from_initiator ? frame.operation->source_node : frame.operation->target_node;
}

int MessageNicModel::destination_of(const WireFrame& frame)
{
  bool from_initiator = frame.kind == FrameKind::Request || frame.kind == FrameKind::ResponseAck;
  return from_initiator ? frame.operation->target_node : frame.operation->source_node;
}

bool MessageNicModel::reads_from_host(const WireFrame& frame) const
{
  if (not config_.model_pcie)
    return false;
  if (frame.kind == FrameKind::Request)
    return is_dma(*frame.operation->message);
  return payload_of(frame) > 0; // target-side responses are always DMA
}

void MessageNicModel::start_read(int node, WireFrame& frame)
{
  if (frame.read || not reads_from_host(frame))
    return;
  uint64_t payload      = payload_of(frame);
  frame.read            = sg4::Comm::sendto_async(read_memory(frame), nic(node).host, payload);
  frame.read_started_at = now();
  TrafficCounters::count(LinkClass::Pcie, payload);
  // The network's next read may start once this one's first packet is in (as the cycle model's
  // packetizer, which takes the next message then) and it would be through at the PCIe's rate.
  Network network                  = network_of(frame);
  sg4::Host* memory                = read_memory(frame);
  double first_packet              = packet_time(memory, nic(node).host, payload);
  nic(node).reads_free_at[network] = now() + std::max(first_packet, serialization(memory, nic(node).host, payload));
}

double MessageNicModel::read_next_payload(int node, Network network)
{
  // The payloads are read in the frames' order; BXI ACKs and ACKs have none. A frame's command must
  // have reached the NIC.
  unsigned ahead = 0;
  for (WireFrame* frame : nic(node).tx[network].host_reads) {
    WireFrame& next = *frame;
    if (next.read) {
      if (++ahead == config_.read_ahead_frames)
        break;
      continue;
    }
    if (next.command && not next.command->test()) {
      // Its command is still on the PCIe: try again when it should be in, or, slowed down by other
      // transfers, a PCIe latency later (at least a packet's time: the loop must move on).
      const InFlight& operation = *next.operation;
      const RouteFigures& route = route_figures(operation.source_core, nic(node).host);
      double in                 = next.command_posted_at + route.latency +
                  static_cast<double>(command_pcie_bytes(*operation.message)) / route.bottleneck;
      double step = std::max(route.latency, static_cast<double>(config_.wire_packet) / route.bottleneck);
      return std::max(in, now() + step);
    }
    start_read(node, next);
    return nic(node).reads_free_at[network];
  }
  return std::numeric_limits<double>::infinity();
}

void MessageNicModel::send_overtaking_bxi_acks(int node)
{
  // BXI ACKs made while a reply's payload was being read overtake it, as they overtake the frames
  // queued for the cycle model's wire arbiter: the reply was not on the wire yet.
  TxQueue& queue = nic(node).tx[kResponses];
  while (not queue.frames.empty() &&
         (queue.frames.front().kind == FrameKind::RequestAck || queue.frames.front().kind == FrameKind::ResponseAck)) {
    queue.ready->acquire(); // the frame's token: it is taken here, not by tx_loop
    WireFrame ack = queue.pop_front();
    transmit(node, ack);
  }
}

void MessageNicModel::transmit(int node, WireFrame& frame)
{
  InFlight& operation          = *frame.operation;
  const portals::Message& sent = *operation.message;
  int destination              = destination_of(frame);
  Network network              = network_of(frame);
  if (destination < 0 || destination >= static_cast<int>(nics_.size())) {
    XBT_WARN("%s #%lu targets node %d, which this machine does not have: undeliverable",
             portals::op_kind_name(sent.kind), static_cast<unsigned long>(sent.id), destination);
    give_up(operation, frame.kind);
    if (nic(node).wire_reserved == network) { // the link was granted to this frame: it goes to the next
      nic(node).wire_reserved = -1;
      hand_on_wire(node, network);
    }
    return;
  }

  uint64_t payload = payload_of(frame);
  if (frame.kind == FrameKind::Request)
    operation.request_sends++;
  else if (frame.kind == FrameKind::Response)
    operation.response_sends++;

  // DMA: the wire transfer starts once the first PCIe packet is in; one-packet payloads do not pipeline.
  start_read(node, frame);
  sg4::CommPtr read = std::move(frame.read);
  if (read) {
    if (payload <= config_.pcie_packet) {
      read->wait();
    } else {
      double first_packet = packet_time(read_memory(frame), nic(node).host, config_.pcie_packet);
      if (frame.read_started_at == now())
        sg4::this_actor::sleep_for(first_packet);
      else if (frame.read_started_at + first_packet - now() >= precision_)
        sg4::this_actor::sleep_until(frame.read_started_at + first_packet);
    }
  }
  if (read && frame.kind == FrameKind::Response)
    send_overtaking_bxi_acks(node);

  frame.ordinal  = ++frames_sent_;
  uint64_t bytes = config_.wire_bytes(payload);

  sg4::CommPtr wire = sg4::Comm::sendto_init(nic(node).host, nic(destination).host);
  wire->set_payload_size(bytes);
  TrafficCounters::count_frame(node, destination, bytes);
  // The NIC reads the payloads of the frames queued behind this one while it is sent, one read after
  // the other at the PCIe's rate, as the cycle model's packetizer does (faster than the PCIe). Read
  // only once a frame had the link, back-to-back DMA Puts of 4 KiB went out every 0.67 us instead of
  // every 0.38 us, their time on the wire; read one frame ahead only, Get replies queued behind one
  // slowed down on the wire were read late (an alltoall of 32 KiB, 16 ranks: 94 against 78 us).
  ReadAhead read_ahead;
  if (config_.model_pcie) {
    read_ahead.at    = nic(node).reads_free_at[network];
    read_ahead.start = [this, node, network] { return read_next_payload(node, network); };
    // A request's payload is read once its command is in, a response's at once.
    if (network == kRequests)
      read_ahead.worth_waiting = route_figures(operation.source_core, nic(node).host).latency;
  }
  // Inside a node the frame turns round in the NIC over its loopback link, through the same link port
  // (one message at a time, as the cycle model's port sends them). TX waits for a loopback frame to be
  // through: frames of one NIC never pile up there as flows beyond its capacity (unbounded concurrent
  // flows make SimGrid's solver time grow with their square).
  send_on_wire(
      node, network, nic(destination).host, *wire, bytes,
      [&] {
        frame.sent_at = now();
        if (destination == node)
          wire->start();
        else
          wire->detach();
        lanes_.sent(*wire, node, destination, network, *nic(destination).rx[network], frame);
      },
      read_ahead);
  // The E2E timer starts once the frame's last packet has left: a 16 MiB frame is not late for
  // taking the 1.3 ms it needs on the wire. Slowed by contention, it may still be on the wire when the
  // timer fires: the timer then starts again when it lands (e2e_loop, rx_loop).
  bool reliable = frame.kind == FrameKind::Request || frame.kind == FrameKind::Response;
  if (config_.e2e && reliable)
    e2e_watch(node, frame);
  if (read) {
    read->wait();
    if (trace_ != nullptr)
      trace_->record("PCI_DMA_READ", node, node, read->get_start_time(), read->get_finish_time());
  }

  // Small payloads stay in the E2E context: their buffer is free once sent. Larger ones are free
  // at acknowledgement, unless nothing can ever read them again (E2E off).
  if (frame.kind == FrameKind::Request && (payload <= config_.early_send_max || not config_.e2e))
    complete_send_once(operation);
}

void MessageNicModel::rx_loop(int node, Network network)
{
  for (;;) {
    WireFrame frame    = nic(node).rx[network]->take();
    InFlight& arriving = *frame.operation;
    int sender         = sender_of(frame);
    if (sender != node) { // its link credits are back
      Nic& from = nic(sender);
      from.on_wire_bytes[network] -= config_.wire_bytes(payload_of(frame));
      if (from.credit_waiting[network]) {
        from.credit_waiting[network] = false;
        from.credit_back[network]->release();
      }
    }
    trace(s4bxi_frame_name(frame.kind, arriving.message->kind), sender, node, frame.sent_at);
    InFlight& operation = *frame.operation;
    if (frame.kind == FrameKind::Request || frame.kind == FrameKind::Response) {
      bool request = frame.kind == FrameKind::Request;
      ++(request ? operation.request_landings : operation.response_landings);
      bool& watch = request ? operation.request_watch_at_landing : operation.response_watch_at_landing;
      if (watch) {
        watch = false;
        e2e_watch(request ? operation.source_node : operation.target_node, frame);
      }
    } else {
      ++(frame.kind == FrameKind::RequestAck ? operation.request_ack_landings : operation.response_ack_landings);
    }
    if (config_.dropped_frames.count(frame.ordinal) != 0) {
      lose(node, frame, "nic.drop_frames");
      continue;
    }
    if (faults_.any()) {
      std::string why = faults_.loss(route_figures(nic(sender).host, nic(node).host).links, frame.ordinal,
                                     frame.sent_at, now(), sender != node);
      if (not why.empty()) {
        lose(node, frame, why);
        continue;
      }
    }
    switch (frame.kind) {
    case FrameKind::Request:
      // E2E acknowledges what the network delivered, before any processing: a request waiting for
      // the matching engine (behind a full response queue, say) is not lost.
      if (config_.e2e)
        enqueue_bxi_ack(node, FrameKind::RequestAck, frame.operation);
      if (operation.request_arrived)
        break; // a retransmission of a request whose BXI ACK was lost
      operation.request_arrived = true;
      frame.ready_at            = in_memory_at(node, frame, operation.target_core, operation.message->request_bytes());
      nic(node).matching[kRequests].push_back(frame);
      nic(node).matching_ready[kRequests]->release();
      break;
    case FrameKind::Response:
      if (config_.e2e)
        enqueue_bxi_ack(node, FrameKind::ResponseAck, frame.operation);
      if (operation.response_arrived)
        break; // a retransmission whose BXI ACK was lost
      operation.response_arrived = true;
      return_flow_credit(operation);
      frame.ready_at = in_memory_at(node, frame, operation.source_core, operation.message->response_bytes());
      nic(node).matching[kResponses].push_back(frame);
      nic(node).matching_ready[kResponses]->release();
      break;
    case FrameKind::RequestAck:
      operation.request_acknowledged = true;
      complete_send_once(operation);
      return_flow_credit(operation);
      e2e_forget(operation, FrameKind::Request);
      break;
    case FrameKind::ResponseAck:
      operation.response_acknowledged = true;
      e2e_forget(operation, FrameKind::Response);
      break;
    }
  }
}

void MessageNicModel::matching_loop(int node, Network network)
{
  Nic& here = nic(node);
  for (;;) {
    here.matching_ready[network]->acquire();
    WireFrame frame = std::move(here.matching[network].front());
    here.matching[network].pop_front();
    double taken = now(); // the timeline's matching lane: from here to the delivery
    if (config_.rx_delay > 0)
      sg4::this_actor::sleep_for(config_.rx_delay);
    // Events and acknowledgements wait for the last PCIe packet of the payload to be in memory
    // (thesis figure 4.10): one packet after arrival, as the write is pipelined with the wire.
    // ready_at is a sum of delays: it may exceed now() by a rounding error, which SimGrid would
    // report ("smaller than the SimGrid numerical accuracy") at every such frame.
    if (frame.ready_at - now() >= precision_)
      sg4::this_actor::sleep_until(frame.ready_at);
    if (frame.kind == FrameKind::Request)
      on_request(node, frame, taken);
    else
      on_response(node, frame);
  }
}

void MessageNicModel::on_request(int node, const WireFrame& frame, double taken)
{
  InFlight& operation        = *frame.operation;
  portals::Message& received = *operation.message;
  // A request may need a response, which holds its target memory's data until sent: RX takes no
  // new request while the response queue is full (and the Get replies in it hold their data).
  nic(node).response_slots->acquire();
  operation.holds_response_slot = true;
  operation.request_delivered   = true;
  // The timeline's matching lane, recorded before the delivery: the process it wakes may end the run
  // before this actor runs again.
  if (trace_ != nullptr && trace_->wants_stages())
    trace_->stage(node, "matching",
                  std::string(s4bxi_frame_name(frame.kind, received.kind)) + " from nid " +
                      std::to_string(operation.source_node),
                  taken, now());
  portals::Core::instance().deliver_request(received);
  if (received.kind != portals::OpKind::get)
    write_to_memory("PCI_DMA_WRITE", node, operation.target_core, received.mlength);
  if (config_.model_pcie_commands)
    write_to_memory("PCI_EVENT", node, operation.target_core, config_.event_bytes);

  if (received.response == portals::ResponseKind::none ||
      (received.response == portals::ResponseKind::ack && config_.quick_acks)) {
    operation.holds_response_slot = false;
    nic(node).response_slots->release();
  }
  if (received.response == portals::ResponseKind::none) {
    if (not config_.e2e)
      return_flow_credit(operation); // no BXI ACK will come back to return it
    return;
  }
  if (received.response == portals::ResponseKind::ack && config_.quick_acks) {
    // Simulation only: the initiator's ACK event is raised from here, no ACK travels.
    operation.request_acknowledged = operation.response_delivered = operation.response_acknowledged = true;
    return_flow_credit(operation);
    complete_send_once(operation);
    portals::Core::instance().complete_response(received);
    e2e_forget(operation, FrameKind::Request);
    return;
  }
  enqueue(node, kResponses, {FrameKind::Response, frame.operation});
}

void MessageNicModel::on_response(int node, const WireFrame& frame)
{
  InFlight& operation            = *frame.operation;
  operation.response_delivered   = true;
  operation.request_acknowledged = true;
  portals::Message& received     = *operation.message;
  write_to_memory("PCI_DMA_WRITE", node, operation.source_core, received.response_bytes());
  if (config_.model_pcie_commands)
    write_to_memory("PCI_EVENT", node, operation.source_core, config_.event_bytes);
  complete_send_once(operation);
  portals::Core::instance().complete_response(received);
  e2e_forget(operation, FrameKind::Request);
}

void MessageNicModel::take_flow_credit(int node, InFlight& operation)
{
  if ((config_.flow_nic_limit == 0 && config_.flow_process_limit == 0) || operation.holds_flow_credit)
    return; // off, or a retransmission: it is already counted
  Nic& here = nic(node);
  std::pair<ptl_nid_t, ptl_pid_t> process{operation.message->target.phys.nid, operation.message->target.phys.pid};
  if (not may_take_flow_credit(node, operation)) {
    ++here.flow_stalls;
    double since = now();
    while (not may_take_flow_credit(node, operation)) // each returned credit wakes it once (it checks again)
      here.flow_credit_back->acquire();
    here.flow_stalled_seconds += now() - since;
  }
  operation.holds_flow_credit = true;
  ++here.flow_per_nic[operation.target_node];
  ++here.flow_per_process[process];
}

bool MessageNicModel::may_take_flow_credit(int node, const InFlight& operation)
{
  if ((config_.flow_nic_limit == 0 && config_.flow_process_limit == 0) || operation.holds_flow_credit)
    return true;
  Nic& here = nic(node);
  std::pair<ptl_nid_t, ptl_pid_t> process{operation.message->target.phys.nid, operation.message->target.phys.pid};
  return (config_.flow_nic_limit == 0 || here.flow_per_nic[operation.target_node] < config_.flow_nic_limit) &&
         (config_.flow_process_limit == 0 || here.flow_per_process[process] < config_.flow_process_limit);
}

void MessageNicModel::return_flow_credit(InFlight& operation)
{
  if (not operation.holds_flow_credit)
    return;
  operation.holds_flow_credit = false;
  Nic& initiator              = nic(operation.source_node);
  --initiator.flow_per_nic[operation.target_node];
  --initiator.flow_per_process[{operation.message->target.phys.nid, operation.message->target.phys.pid}];
  initiator.flow_credit_back->release();
}

MessageNicStatistics MessageNicModel::statistics() const
{
  MessageNicStatistics s;
  s.frames_sent          = frames_sent_;
  s.command_queue_stalls = command_queue_stalls_;
  s.retransmissions      = retransmissions_;
  s.frames_dropped       = frames_dropped_;
  for (const auto& nic : nics_) {
    s.flow_stalls += nic.flow_stalls;
    s.flow_stalled_seconds += nic.flow_stalled_seconds;
  }
  return s;
}

void MessageNicModel::complete_send_once(InFlight& operation)
{
  if (operation.send_completed || operation.given_up)
    return;
  operation.send_completed = true;
  portals::Core::instance().complete_send(*operation.message);
}

void MessageNicModel::give_up(InFlight& operation, FrameKind kind)
{
  if (operation.given_up)
    return;
  if (kind == FrameKind::Request)
    return_flow_credit(operation);
  if (kind == FrameKind::Request && not operation.request_delivered) {
    // The initiator learns it from its own NIC: SEND, then ACK or REPLY with PTL_NI_UNDELIVERABLE.
    portals::Core::instance().drop_request(*operation.message);
    complete_send_once(operation);
    operation.given_up = true;
    portals::Core::instance().complete_response(*operation.message);
    e2e_forget(operation, FrameKind::Request);
    e2e_forget(operation, FrameKind::Response);
  } else {
    operation.given_up = true;
    e2e_forget(operation, FrameKind::Request);
    e2e_forget(operation, FrameKind::Response);
    XBT_WARN("%s #%lu was not acknowledged after %d sends: E2E gives up on it (its initiator may not see the "
             "operation end; a longer nic.e2e_timeout avoids this under heavy load)",
             frame_kind_name(kind), static_cast<unsigned long>(operation.message->id), config_.e2e_retries + 1);
  }
}

void MessageNicModel::lose(int node, const WireFrame& frame, const std::string& why)
{
  ++frames_dropped_;
  const InFlight& operation = *frame.operation;
  int sender                = sender_of(frame);
  XBT_VERB("network loses frame %lu (%s #%lu, node %d to node %d): %s", static_cast<unsigned long>(frame.ordinal),
           frame_kind_name(frame.kind), static_cast<unsigned long>(operation.message->id), sender, node, why.c_str());
  if (not config_.e2e && on_lost_for_good_)
    on_lost_for_good_(platform::lost_for_good_message(frame.ordinal, frame_kind_name(frame.kind), operation.message->id,
                                                      sender, node, now(), why));
}

void MessageNicModel::e2e_watch(int node, const WireFrame& frame)
{
  Nic& here = nic(node);
  here.e2e.push_back({now() + config_.e2e_timeout, frame});
  uint64_t number = here.e2e_first + here.e2e.size() - 1;
  (frame.kind == FrameKind::Request ? frame.operation->request_e2e : frame.operation->response_e2e) = number;
  if (here.e2e_idle) {
    here.e2e_idle = false;
    here.e2e_ready->release();
  }
}

void MessageNicModel::e2e_forget(InFlight& operation, FrameKind kind)
{
  uint64_t& number = kind == FrameKind::Request ? operation.request_e2e : operation.response_e2e;
  if (number == 0)
    return;
  Nic& here = nic(kind == FrameKind::Request ? operation.source_node : operation.target_node);
  here.e2e.at(number - here.e2e_first).frame.reset(); // the caller holds the operation still
  number = 0;
  while (not here.e2e.empty() && not here.e2e.front().frame) {
    here.e2e.pop_front();
    ++here.e2e_first;
  }
}

void MessageNicModel::e2e_loop(int node)
{
  // One timer: the actor sleeps until the deadline of the oldest unacknowledged frame (the timeout is
  // constant: deadlines come in sending order). A frame acknowledged meanwhile is already gone; the
  // actor then sleeps on until the next one's deadline. Wake-up dates are the deadlines to the bit:
  // a sleep starts either when a frame is sent to an empty list (as the per-frame actor's did), or
  // at an earlier deadline D, which is at least the timeout while the next deadline is at most
  // D + timeout, so next - D is exact (Sterbenz) and D + (next - D) == next.
  Nic& here = nic(node);
  for (;;) {
    if (here.e2e.empty()) {
      here.e2e_idle = true; // nothing yields before the acquire: e2e_watch sees it right
      here.e2e_ready->acquire();
      continue;
    }
    // A deadline within SimGrid's precision of now has passed: sleeping that long drew SimGrid's warning that
    // the sleep is below its numerical accuracy (2e-19 s) at every such timeout.
    if (here.e2e.front().deadline - now() >= precision_) {
      sg4::this_actor::sleep_until(here.e2e.front().deadline);
      continue;
    }
    WireFrame frame = std::move(*here.e2e.front().frame);
    here.e2e.pop_front();
    ++here.e2e_first;
    (frame.kind == FrameKind::Request ? frame.operation->request_e2e : frame.operation->response_e2e) = 0;
    while (not here.e2e.empty() && not here.e2e.front().frame) {
      here.e2e.pop_front();
      ++here.e2e_first;
    }
    InFlight& operation = *frame.operation;
    bool request        = frame.kind == FrameKind::Request;
    bool acknowledged   = request ? operation.request_acknowledged : operation.response_acknowledged;
    if (acknowledged || operation.given_up)
      continue;
    int sends = request ? operation.request_sends : operation.response_sends;
    if ((request ? operation.request_landings : operation.response_landings) < sends) {
      // Still on the wire, slowed by other flows: its last packet has not left yet. Congestion, not
      // loss: the timer starts again when it lands.
      (request ? operation.request_watch_at_landing : operation.response_watch_at_landing) = true;
      continue;
    }
    if ((request ? operation.request_ack_landings : operation.response_ack_landings) <
        (request ? operation.request_ack_sends : operation.response_ack_sends)) {
      // Landed, and its BXI ACK is on its way back, behind the other NIC's frames: the model sends each frame in
      // one transfer where the link interleaves packets, so an ACK can wait a whole large message (16 MiB: 1.3 ms,
      // beyond the timeout). Congestion, not loss: the timer starts again.
      e2e_watch(node, frame);
      continue;
    }
    if (sends > config_.e2e_retries) {
      give_up(operation, frame.kind);
      continue;
    }
    XBT_VERB("E2E timeout: %s #%lu sent again (attempt %d)", frame_kind_name(frame.kind),
             static_cast<unsigned long>(operation.message->id), sends + 1);
    ++retransmissions_;
    enqueue(node, request ? kRequests : kResponses, frame);
  }
}

portals::WaitStatus MessageNicModel::wait(const portals::ProcessContext& context, double timeout)
{
  return waiters_.wait(context.id, timeout);
}

void MessageNicModel::notify(uint32_t process_id)
{
  waiters_.notify(process_id);
}

void MessageNicModel::polled(const portals::ProcessContext& context, portals::PollAction action)
{
  waiters_.polled(context.id, action);
}

} // namespace bxisim::hw::message
