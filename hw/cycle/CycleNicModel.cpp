#include "CycleNicModel.hpp"

#include "StageTrace.hpp"

#include "config/ConfigError.hpp"
#include "config/Parameters.hpp"
#include "hw/trace/TrafficCounters.hpp"
#include "platforms/Route.hpp"
#include "portals/core/Core.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <limits>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(bxisim_nic_cycle);

namespace sg4 = simgrid::s4u;

namespace bxisim::hw::cycle
{

namespace
{

PcieFigures pcie_of(const platform::Machine& machine)
{
  if (not machine.has_node_model() || machine.nodes().empty())
    throw config::ConfigError("the cycle NIC model needs the node model (a NIC per node), which SimGrid XML platforms "
                              "do not have: use --platform fat-tree, single-switch or two-switches.");
  platform::Route route = platform::Route::between(machine.core(0, 0), machine.nodes()[0].nic);
  return {route.latency, route.bottleneck};
}
} // namespace

CycleNicModel::CycleNicModel(const platform::Machine& machine, const config::Parameters& parameters,
                             ProcessDirectory directory, const std::string& vcd_file, const std::string& vcd_pattern)
    : machine_(machine),
      config_(CycleNicConfig::from_parameters(parameters, pcie_of(machine), parameters.real("bxi.link_bandwidth"))),
      directory_(std::move(directory)), waiters_(config_.command_queue.slots, PollBackoff::from_parameters(parameters)),
      dropped_frames_(config_.link_port.dropped), faults_(platform::FaultSpec::from_parameters(parameters))
{
  if (sc_core::sc_get_status() != sc_core::SC_ELABORATION)
    throw std::logic_error("the cycle NIC model can be built once per process only (SystemC cannot restart)");
  for (const auto& node : machine_.nodes()) {
    nics_.push_back(std::make_unique<BxiNic>(node.name.c_str(), config_, node.index, outbox_, pool_));
    Host host;
    host.host        = node.nic;
    host.mmio        = sg4::Mailbox::by_name(node.name + "-nic-mmio");
    host.arrived     = std::make_unique<Arrivals<Chunk>>();
    host.sends_ready = sg4::Semaphore::create(0);
    host.reads_ready = sg4::Semaphore::create(0);
    hosts_.push_back(std::move(host));
  }
  if (not vcd_file.empty()) {
    vcd_ = sc_core::sc_create_vcd_trace_file(vcd_file.c_str());
    vcd_->set_time_unit(1, sc_core::SC_PS);
    for (const auto& nic : nics_)
      nic->trace(vcd_, vcd_pattern);
  }
  sc_core::sc_start(sc_core::SC_ZERO_TIME); // elaboration and initialisation, before SimGrid runs
  if (vcd_ != nullptr)
    open_trace_file_now(vcd_);
  bridge_ = std::make_unique<Bridge>([this] { drain(); });
}

void CycleNicModel::open_trace_file_now(sc_core::sc_trace_file* file)
{
  // SystemC opens the file at its first time step, which comes in the middle of the run: its descriptor
  // would then take a number the ranks' next ones were to take (runtime/os/SimulatorDescriptors.hpp). Its
  // first cycle, which opens the file and writes the header and the values at the current time (0 here,
  // as at that first step), is protected: reached through a member pointer named in a derived class.
  struct FirstCycle : sc_core::sc_trace_file {
    static void run(sc_core::sc_trace_file* file) { (file->*(&FirstCycle::cycle))(false); }
  };
  FirstCycle::run(file);
}

void CycleNicModel::set_trace(OperationTrace* trace)
{
  trace_      = trace;
  stage_trace = trace != nullptr && trace->wants_stages() ? trace : nullptr;
}

void CycleNicModel::flush_trace()
{
  auto finished = std::stable_partition(traced_writes_.begin(), traced_writes_.end(),
                                        [](const TracedWrite& write) { return write.comm->get_finish_time() < 0; });
  if (trace_ != nullptr)
    for (auto it = finished; it != traced_writes_.end(); ++it)
      trace_->record(it->operation, it->node, it->node, it->comm->get_start_time(), it->comm->get_finish_time());
  traced_writes_.erase(finished, traced_writes_.end());
}

CycleNicModel::~CycleNicModel()
{
  if (stage_trace == trace_)
    stage_trace = nullptr;
  if (vcd_ != nullptr)
    sc_core::sc_close_vcd_trace_file(vcd_);
}

void CycleNicModel::start()
{
  if (started_)
    return;
  started_ = true;
  sg4::Actor::create("systemc-bridge", hosts_.front().host, [this] { bridge_->run(); })->daemonize();
  for (int node = 0; node < static_cast<int>(hosts_.size()); ++node) {
    sg4::Host* host = hosts_[node].host;
    auto mmio       = sg4::Actor::create("mmio", host, [this, node] { mmio_loop(node); });
    mmio->daemonize();
    hosts_[node].mmio->set_receiver(mmio); // command writes flow in while the actor is busy
    sg4::Actor::create("wire-rx", host, [this, node] { wire_loop(node); })->daemonize();
    sg4::Actor::create("port", host, [this, node] { port_loop(node); })->daemonize();
    for (unsigned reader = 0; reader < config_.dma_readers; ++reader)
      sg4::Actor::create("dma-read", host, [this, node] { read_loop(node); })->daemonize();
  }
}

void CycleNicModel::check()
{
  if (bridge_->error())
    std::rethrow_exception(bridge_->error());
}

double CycleNicModel::now() const
{
  return sg4::Engine::get_clock();
}

sg4::Host* CycleNicModel::memory_of(const Operation& operation, bool initiator) const
{
  const portals::Message& message = *operation.message;
  return initiator ? directory_.core_of_process(message.source_process)
                   : directory_.core_of_address(message.target.phys.nid, message.target.phys.pid);
}

double CycleNicModel::serialization(sg4::Host* from, sg4::Host* to, uint64_t bytes)
{
  auto key = std::make_pair(from, to);
  auto it  = bottlenecks_.find(key);
  if (it == bottlenecks_.end())
    it = bottlenecks_.emplace(key, platform::Route::between(from, to).bottleneck).first;
  return static_cast<double>(bytes) / it->second;
}

void CycleNicModel::submit(std::unique_ptr<portals::Message> message)
{
  auto operation                 = std::make_shared<Operation>();
  operation->source_node         = static_cast<int>(message->source.phys.nid);
  operation->target_node         = static_cast<int>(message->target.phys.nid);
  operation->address             = reinterpret_cast<uint64_t>(message->payload());
  operation->message             = std::move(message);
  const portals::Message& posted = *operation->message;
  int node                       = operation->source_node;
  if (node < 0 || node >= static_cast<int>(nics_.size()))
    throw std::invalid_argument("a Portals operation comes from a node this machine does not have");
  if (operation->target_node < 0 || operation->target_node >= static_cast<int>(nics_.size())) {
    // As the message model: the network cannot deliver it, and the initiator learns it from its own
    // NIC (SEND, then ACK or REPLY with PTL_NI_UNDELIVERABLE); Portals calls do not fail on it.
    XBT_WARN("%s #%lu targets node %d, which this machine does not have: undeliverable",
             portals::op_kind_name(posted.kind), static_cast<unsigned long>(posted.id), operation->target_node);
    OutboxRequest drop{OutboxRequest::Kind::DropRequest, node, nullptr, operation};
    drop.last = true; // the SEND is due too
    carry_out(drop);
    return;
  }
  tlm::tlm_generic_payload* command = pool_.allocate(FrameKind::Request, operation, node, operation->target_node);
  frame_of(*command).payload        = posted.request_bytes();
  XBT_DEBUG("submit %s #%lu from node %d to node %d, %lu bytes", portals::op_kind_name(posted.kind),
            static_cast<unsigned long>(posted.id), node, operation->target_node,
            static_cast<unsigned long>(posted.length));
  if (posted.triggered) { // fired by the NIC itself: no CPU, no command queue slot
    bridge_->submit([this, node, command] { nic(node).triggered(command); });
    return;
  }
  if (waiters_.take_command_slot(posted.source_process)) // the rank waits while its queue is full
    ++command_queue_stalls_;
  if (not config_.model_pcie_commands) {
    bridge_->submit([this, node, command] { nic(node).command_arrived(command); });
    return;
  }
  // A posted PCIe write (with its payload when PIO): the rank goes on once its stores have drained.
  operation->command_posted_at = sg4::Engine::get_clock();
  sg4::Host* core              = directory_.core_of_process(posted.source_process);
  PayloadPath path             = CommandDecoder::path_of(posted, config_.command_decoder);
  uint64_t bytes               = config_.command_bytes + (path == PayloadPath::Pio ? posted.request_bytes() : 0);
  hosts_[node].mmio->put_init(command, bytes)->detach();
  TrafficCounters::count(LinkClass::Pcie, bytes);
  sg4::this_actor::sleep_for(serialization(core, hosts_[node].host, bytes));
}

void CycleNicModel::mmio_loop(int node)
{
  for (;;) {
    auto* command = hosts_[node].mmio->get<tlm::tlm_generic_payload>();
    if (trace_ != nullptr)
      trace_->record("PCI_COMMAND", node, node, frame_of(*command).operation->command_posted_at,
                     sg4::Engine::get_clock());
    bridge_->submit([this, node, command] { nic(node).command_arrived(command); });
  }
}

void CycleNicModel::port_loop(int node)
{
  Host& here = hosts_[node];
  for (;;) {
    here.sends_ready->acquire();
    OutboxRequest send = here.sends.front();
    here.sends.pop_front();
    const FrameExtension& frame = frame_of(*send.frame);
    int to                      = frame.to;
    sg4::CommPtr transfer       = sg4::Comm::sendto_init(here.host, hosts_[to].host);
    transfer->set_payload_size(send.bytes);
    transfer->detach();
    lanes_.sent(*transfer, node, to, frame.network(), *hosts_[to].arrived,
                Chunk{send.frame, send.flits, send.last, sg4::Engine::get_clock()});
    TrafficCounters::count_frame(node, to, send.bytes, send.last ? 1 : 0);
  }
}

void CycleNicModel::wire_loop(int node)
{
  Arrivals<Chunk>& arrived = *hosts_[node].arrived;
  for (;;) {
    Chunk chunk           = arrived.take();
    FrameExtension& frame = frame_of(*chunk.frame);
    if (chunk.last && trace_ != nullptr) // as the message model: every frame that reached the NIC, lost or not
      trace_->record(s4bxi_name(frame), frame.from, node, frame.sent_at.to_seconds(), sg4::Engine::get_clock());
    if (chunk.last && (frame.kind == FrameKind::RequestAck || frame.kind == FrameKind::ResponseAck))
      ++(frame.kind == FrameKind::RequestAck ? frame.operation->request_ack_landings
                                             : frame.operation->response_ack_landings);
    std::string lost = chunk.last ? loss_of(node, frame) : std::string();
    if (not lost.empty()) {
      ++frames_dropped_;
      XBT_VERB("network loses frame %lu (%s #%lu, node %d to node %d): %s", static_cast<unsigned long>(frame.ordinal),
               frame_kind_name(frame.kind), static_cast<unsigned long>(frame.operation->message->id), frame.from, node,
               lost.c_str());
      if (not config_.e2e.enabled && on_lost_for_good_)
        on_lost_for_good_(platform::lost_for_good_message(frame.ordinal, frame_kind_name(frame.kind),
                                                          frame.operation->message->id, frame.from, node,
                                                          sg4::Engine::get_clock(), lost));
      int sender                     = frame.from;
      uint64_t flits                 = chunk.flits;
      unsigned network               = frame.network();
      tlm::tlm_generic_payload* gone = chunk.frame;
      bridge_->submit([this, sender, flits, network, gone] {
        nic(sender).credits_returned(flits, network);
        gone->release();
      });
      continue;
    }
    bridge_->submit(
        [this, node, chunk] { nic(node).chunk_arrived(chunk.frame, chunk.flits, chunk.last, chunk.started_at); });
  }
}

std::string CycleNicModel::loss_of(int node, const FrameExtension& frame)
{
  if (dropped_frames_.count(frame.ordinal) != 0)
    return "nic.drop_frames";
  if (not faults_.any())
    return {};
  auto key = std::make_pair(frame.from, node);
  auto it  = routes_.find(key);
  if (it == routes_.end())
    it = routes_.emplace(key, platform::Route::between(hosts_[frame.from].host, hosts_[node].host).links).first;
  return faults_.loss(it->second, frame.ordinal, frame.sent_at.to_seconds(), sg4::Engine::get_clock(),
                      frame.from != node);
}

void CycleNicModel::read_loop(int node)
{
  Host& here = hosts_[node];
  for (;;) {
    here.reads_ready->acquire();
    Read read = here.reads.front();
    here.reads.pop_front();
    TrafficCounters::count(LinkClass::Pcie, read.bytes);
    sg4::CommPtr transfer = sg4::Comm::sendto_async(read.memory, here.host, read.bytes);
    transfer->wait();
    if (trace_ != nullptr)
      trace_->record("PCI_DMA_READ", node, node, transfer->get_start_time(), transfer->get_finish_time());
    tlm::tlm_generic_payload* frame = read.frame;
    bridge_->submit([this, node, frame] {
      nic(node).read_finished(*frame);
      frame->release();
    });
  }
}

void CycleNicModel::drain()
{
  while (not outbox_.empty())
    for (auto& request : outbox_.take())
      carry_out(request);
}

void CycleNicModel::carry_out(OutboxRequest& request)
{
  auto& core = portals::Core::instance();
  switch (request.kind) {
  case OutboxRequest::Kind::CommandTaken:
    waiters_.release_command_slot(request.process);
    break;
  case OutboxRequest::Kind::DmaRead:
    hosts_[request.node].reads.push_back(
        {request.frame, memory_of(*request.operation, request.initiator_memory), request.bytes});
    hosts_[request.node].reads_ready->release();
    return; // the reader releases the frame
  case OutboxRequest::Kind::DmaWrite: {
    if (writes_.size() >= 256)
      writes_.erase(std::remove_if(writes_.begin(), writes_.end(),
                                   [](const sg4::CommPtr& comm) { return comm->get_finish_time() >= 0; }),
                    writes_.end());
    sg4::Host* memory = memory_of(*request.operation, request.initiator_memory);
    writes_.push_back(sg4::Comm::sendto_async(hosts_[request.node].host, memory, request.bytes));
    TrafficCounters::count(LinkClass::Pcie, request.bytes);
    if (trace_ != nullptr) {
      if (traced_writes_.size() >= 64)
        flush_trace();
      traced_writes_.push_back({request.trace_name, request.node, writes_.back()});
    }
    break;
  }
  case OutboxRequest::Kind::WireSend:
    if (request.last)
      frame_of(*request.frame).ordinal = ++frames_sent_;
    hosts_[request.node].sends.push_back(request);
    hosts_[request.node].sends_ready->release();
    return; // the chunk carries the frame's reference to its receiver
  case OutboxRequest::Kind::Deliver: {
    Operation& operation        = *request.operation;
    operation.request_delivered = true;
    core.deliver_request(*operation.message);
    frame_of(*request.frame).delivered_by_core = true;
    nic(request.node).delivered();
    if (not config_.e2e.enabled && operation.message->response == portals::ResponseKind::none)
      nic(operation.source_node).return_flow_credit(operation); // nothing will come back to return it
    break;
  }
  case OutboxRequest::Kind::CompleteSend:
    core.complete_send(*request.operation->message);
    break;
  case OutboxRequest::Kind::CompleteResponse:
    core.complete_response(*request.operation->message);
    break;
  case OutboxRequest::Kind::DropRequest:
    core.drop_request(*request.operation->message);
    if (request.last)
      core.complete_send(*request.operation->message);
    core.complete_response(*request.operation->message);
    break;
  case OutboxRequest::Kind::CreditReturn:
    nic(request.node).credits_returned(request.flits, request.network);
    break;
  case OutboxRequest::Kind::FlowCreditReturn:
    nic(request.node).return_flow_credit(*request.operation);
    break;
  }
  if (request.frame != nullptr)
    request.frame->release();
}

portals::WaitStatus CycleNicModel::wait(const portals::ProcessContext& context, double timeout)
{
  return waiters_.wait(context.id, timeout);
}

void CycleNicModel::notify(uint32_t process_id)
{
  waiters_.notify(process_id);
}

void CycleNicModel::polled(const portals::ProcessContext& context, portals::PollAction action)
{
  waiters_.polled(context.id, action);
}

CycleNicStatistics CycleNicModel::statistics() const
{
  CycleNicStatistics s;
  for (const auto& nic : nics_) {
    s.commands += nic->command_queue.taken;
    s.frames_sent += nic->link_port.frames_sent;
    s.chunks_sent += nic->link_port.chunks_sent;
    s.credit_stalls += nic->link_port.credit_stalls;
    s.credit_stalled_seconds += to_seconds(nic->link_port.credit_stalled_time);
    s.flow_stalls += nic->wire_arbiter.flow_stalls;
    s.flow_stalled_seconds += to_seconds(nic->wire_arbiter.flow_stalled_time);
    s.tlb_hits += nic->address_translation.hits;
    s.tlb_misses += nic->address_translation.misses;
    for (const auto& lme : nic->list_matching_engines)
      s.headers_matched += lme->matched;
    s.retransmissions += nic->e2e_engine.retransmissions;
  }
  s.bridge_rounds        = bridge_->rounds();
  s.command_queue_stalls = command_queue_stalls_;
  s.frames_dropped       = frames_dropped_;
  return s;
}

} // namespace bxisim::hw::cycle
