// Unit tests of the cycle NIC's modules, each driven through its own sockets without the rest of the
// NIC and without SimGrid; expected times are derived here from the module's configuration (cycle
// counts times the clock period). One process per test: SystemC cannot be restarted.

#include "ModuleBench.hpp"

#include "hw/cycle/AddressTranslation.hpp"
#include "hw/cycle/CommandDecoder.hpp"
#include "hw/cycle/CommandQueue.hpp"
#include "hw/cycle/Depacketizer.hpp"
#include "hw/cycle/DmaWriter.hpp"
#include "hw/cycle/E2eEngine.hpp"
#include "hw/cycle/EventEngine.hpp"
#include "hw/cycle/LinkPort.hpp"
#include "hw/cycle/ListMatchingEngine.hpp"
#include "hw/cycle/Packetizer.hpp"
#include "hw/cycle/PcieEndpoint.hpp"
#include "hw/cycle/ResponseGenerator.hpp"
#include "hw/cycle/WireArbiter.hpp"

#include "hw/actors/WriteEngineWork.hpp"

#include <algorithm>
#include <gtest/gtest.h>

using namespace bxisim::test;
using bxisim::hw::cycle::frame_of;
using bxisim::hw::cycle::OutboxRequest;
using bxisim::hw::cycle::PayloadPath;

TEST(CommandDecoder, DecodesEachCommandInItsCyclesAndChoosesThePayloadPath)
{
  auto config = default_cycle_config();
  cyc::FramePool pool;
  FrameSource source("source");
  cyc::CommandDecoder decoder("decoder", config.command_decoder);
  FrameSink sink("sink");
  source.out.bind(decoder.in);
  decoder.out.bind(sink.in);
  uint64_t sizes[] = {config.command_decoder.inline_max_matching, config.command_decoder.pio_max_matching,
                      config.command_decoder.pio_max_matching + 1};
  for (uint64_t size : sizes)
    source.plan.push_back({sc_core::SC_ZERO_TIME, make_request(pool, size)});
  sc_core::sc_start();
  ASSERT_EQ(sink.arrivals.size(), 3U);
  for (size_t i = 0; i < 3; ++i) // one decoder: back to back
    EXPECT_EQ(sink.arrivals[i], config.command_decoder.decode * static_cast<double>(i + 1));
  EXPECT_EQ(frame_of(*sink.frames[0]).operation->path, PayloadPath::Inline);
  EXPECT_EQ(frame_of(*sink.frames[1]).operation->path, PayloadPath::Pio);
  EXPECT_EQ(frame_of(*sink.frames[2]).operation->path, PayloadPath::Dma);
}

TEST(CommandDecoder, ExtraTxCyclesDelayEachCommandAndBackToBackCommands)
{
  EXPECT_EQ(default_cycle_config().command_decoder.tx_extra, sc_core::SC_ZERO_TIME); // off by default
  auto parameters = bxisim::config::Parameters::defaults();
  parameters.set("cycle.tx_extra_cycles", "100");
  auto config = cyc::CycleNicConfig::from_parameters(parameters, {250e-9, 12.5e9}, 12.5e9);
  ASSERT_EQ(config.command_decoder.tx_extra, config.cycles(100));
  cyc::FramePool pool;
  FrameSource source("source");
  cyc::CommandDecoder decoder("decoder", config.command_decoder);
  FrameSink sink("sink");
  source.out.bind(decoder.in);
  decoder.out.bind(sink.in);
  for (int i = 0; i < 3; ++i)
    source.plan.push_back({sc_core::SC_ZERO_TIME, make_request(pool, 8)});
  sc_core::sc_start();
  ASSERT_EQ(sink.arrivals.size(), 3U);
  auto per_command = config.command_decoder.decode + config.command_decoder.tx_extra;
  for (size_t i = 0; i < 3; ++i) // the extra time holds the decoder: it also spaces the commands
    EXPECT_EQ(sink.arrivals[i], per_command * static_cast<double>(i + 1));
}

TEST(AddressTranslation, FirstPageMissWalksThenHits)
{
  auto config = default_cycle_config();
  cyc::FramePool pool;
  FrameSource source("source");
  cyc::AddressTranslation translation("translation", config.address_translation);
  FrameSink sink("sink");
  source.out.bind(translation.in);
  translation.out.bind(sink.in);
  const uint64_t page = config.address_translation.page_size;
  const uint64_t big  = 64 * page; // pages walked while earlier ones move: not on the critical path
  auto* first         = make_request(pool, 1024, 1, bxisim::portals::OpKind::put, 0, 10 * page);
  auto* second        = make_request(pool, 1024, 1, bxisim::portals::OpKind::put, 0, 10 * page + 2048);
  auto* large         = make_request(pool, big, 1, bxisim::portals::OpKind::put, 0, 100 * page);
  auto* inlined       = make_request(pool, 8);
  for (auto* frame : {first, second, large})
    frame_of(*frame).operation->path = PayloadPath::Dma;
  frame_of(*inlined).operation->path = PayloadPath::Inline;
  sc_core::sc_time late              = ns(10000);
  source.plan                        = {
                             {sc_core::SC_ZERO_TIME, first}, {sc_core::SC_ZERO_TIME, second}, {sc_core::SC_ZERO_TIME, large}, {late, inlined}};
  sc_core::sc_start();
  const auto& c = config.address_translation;
  ASSERT_EQ(sink.arrivals.size(), 4U);
  EXPECT_EQ(sink.arrivals[0], c.hit + c.walk);
  EXPECT_EQ(sink.arrivals[1], c.hit + c.walk + c.hit);
  EXPECT_EQ(sink.arrivals[2], c.hit + c.walk + c.hit + c.hit + c.walk);
  EXPECT_EQ(sink.arrivals[3], late); // no address: no translation
  EXPECT_EQ(translation.misses, 1U + 64U);
  EXPECT_EQ(translation.hits, 1U);
}

TEST(Packetizer, CutsMessagesIntoLinkPacketsAtItsInitiationInterval)
{
  auto config = default_cycle_config();
  cyc::FramePool pool;
  FrameSource source("source");
  cyc::Packetizer packetizer("packetizer", config.packetizer);
  cyc::PcieEndpoint endpoint("endpoint", config.pcie_endpoint, 0, *new cyc::Outbox);
  cyc::FrameQueue vn("vn");
  QueueDrain drain("drain");
  source.out.bind(packetizer.in);
  packetizer.dma.bind(endpoint.dma);
  packetizer.out.bind(vn);
  drain.in.bind(vn);
  FrameSink commands("commands");
  endpoint.commands.bind(commands.in);
  const auto& c                  = config.packetizer;
  auto* two                      = make_request(pool, 2 * c.wire_packet_payload); // PIO: no read
  auto* one                      = make_request(pool, 8);
  frame_of(*two).operation->path = PayloadPath::Pio;
  source.plan                    = {{sc_core::SC_ZERO_TIME, two}, {sc_core::SC_ZERO_TIME, one}};
  sc_core::sc_start();
  ASSERT_EQ(drain.arrivals.size(), 2U);
  EXPECT_EQ(frame_of(*drain.frames[0]).packets, 2U);
  EXPECT_EQ(frame_of(*drain.frames[1]).packets, 1U);
  EXPECT_EQ(drain.arrivals[0], c.head);
  // The second message starts once the first's two packets are out.
  sc_core::sc_time second_start = std::max(c.head, c.per_packet * 2.0);
  EXPECT_EQ(drain.arrivals[1], second_start + c.head);
}

TEST(Packetizer, DmaPayloadGoesOnceItsFirstPciePacketIsIn)
{
  auto config = default_cycle_config();
  cyc::FramePool pool;
  cyc::Outbox outbox;
  FrameSource source("source");
  cyc::Packetizer packetizer("packetizer", config.packetizer);
  cyc::PcieEndpoint endpoint("endpoint", config.pcie_endpoint, 0, outbox);
  FrameSink commands("commands");
  cyc::FrameQueue vn("vn");
  QueueDrain drain("drain");
  source.out.bind(packetizer.in);
  packetizer.dma.bind(endpoint.dma);
  endpoint.commands.bind(commands.in);
  packetizer.out.bind(vn);
  drain.in.bind(vn);
  const uint64_t size              = 64 * 1024;
  auto* frame                      = make_request(pool, size);
  frame_of(*frame).operation->path = PayloadPath::Dma;
  source.plan                      = {{sc_core::SC_ZERO_TIME, frame}};
  sc_core::sc_start();
  ASSERT_EQ(drain.arrivals.size(), 1U);
  const auto& p = config.pcie_endpoint;
  EXPECT_EQ(drain.arrivals[0], config.packetizer.head + cyc::to_sc_time(p.pcie.latency + p.packet / p.pcie.bandwidth));
  auto requests = outbox.take();
  ASSERT_EQ(requests.size(), 1U);
  EXPECT_EQ(requests[0].kind, OutboxRequest::Kind::DmaRead);
  EXPECT_EQ(requests[0].bytes, size);
  EXPECT_TRUE(frame_of(*drain.frames[0]).read_pending); // the rest of the read goes on
}

namespace
{
/** Pushes frames into virtual network queues at chosen times, and returns a flow credit at a time. */
struct VnFeeder : sc_core::sc_module {
  sc_core::sc_port<cyc::FrameQueueIf> requests, responses;
  sc_core::sc_port<cyc::FlowCreditIf> credits;
  std::vector<tlm::tlm_generic_payload*> to_requests, to_responses;
  sc_core::sc_time credit_at;
  cyc::Operation* credited = nullptr;
  explicit VnFeeder(sc_core::sc_module_name name) : sc_core::sc_module(name)
  {
    SC_HAS_PROCESS(VnFeeder);
    SC_THREAD(run);
  }
  void run()
  {
    for (auto* frame : to_requests)
      requests->push_back(frame);
    wait(ns(1));
    for (auto* frame : to_responses)
      responses->push_back(frame);
    wait(credit_at - sc_core::sc_time_stamp());
    credits->return_credit(*credited);
  }
};
} // namespace

namespace
{
/** Stands for the link port in front of the wire arbiter: never busy, credits per network as set. */
struct LinkStub : sc_core::sc_prim_channel, cyc::LinkReadyIf {
  bool credits[cyc::kVirtualNetworks] = {true, true, true, true};
  sc_core::sc_event changed_event;
  LinkStub() : sc_core::sc_prim_channel("link_stub") {}
  bool busy() const override { return false; }
  bool has_credits(unsigned network) const override { return credits[network]; }
  const sc_core::sc_event& changed() const override { return changed_event; }
};
} // namespace

TEST(WireArbiter, ARequestWithoutLinkCreditsLetsResponsesGoAndLeavesWhenCreditsReturn)
{
  auto config = default_cycle_config();
  cyc::FramePool pool;
  cyc::WireArbiter arbiter("arbiter", config.wire_arbiter);
  FrameSink link("link");
  LinkStub credits;
  credits.credits[cyc::kComputeRequest] = false; // the peer's request buffer is full
  VnFeeder feeder("feeder");
  arbiter.out.bind(link.in);
  arbiter.link.bind(credits);
  feeder.requests.bind(arbiter.vn[cyc::kComputeRequest]);
  feeder.responses.bind(arbiter.vn[cyc::kComputeResponse]);
  feeder.credits.bind(arbiter.credits);
  auto* request       = make_request(pool, 8, 1);
  auto* answer        = pool.allocate(bxisim::hw::FrameKind::Response, frame_of(*request).operation, 0, 1);
  feeder.to_requests  = {request};
  feeder.to_responses = {answer};
  feeder.credit_at    = ns(50); // unused (flow control is off); the feeder's thread ends there
  feeder.credited     = frame_of(*request).operation.get();
  struct Returner : sc_core::sc_module {
    LinkStub& stub;
    Returner(sc_core::sc_module_name name, LinkStub& s) : sc_core::sc_module(name), stub(s)
    {
      SC_HAS_PROCESS(Returner);
      SC_THREAD(run);
    }
    void run()
    {
      wait(ns(40));
      stub.credits[cyc::kComputeRequest] = true;
      stub.changed_event.notify(sc_core::SC_ZERO_TIME);
    }
  } returner("returner", credits);
  sc_core::sc_start();
  const auto a = config.wire_arbiter.arbitrate;
  ASSERT_EQ(link.arrivals.size(), 2U);
  EXPECT_EQ(link.frames[0], answer); // the response does not wait behind the request
  EXPECT_EQ(link.arrivals[0], ns(1) + a);
  EXPECT_EQ(link.frames[1], request);
  EXPECT_EQ(link.arrivals[1], ns(40) + a);
  EXPECT_GE(arbiter.link_stalls, 1U);
}

TEST(WireArbiter, NicFlowControlHoldsRequestsUntilACreditReturns)
{
  auto config                   = default_cycle_config();
  config.wire_arbiter.nic_limit = 1;
  cyc::FramePool pool;
  cyc::WireArbiter arbiter("arbiter", config.wire_arbiter);
  FrameSink link("link");
  VnFeeder feeder("feeder");
  LinkStub ready;
  arbiter.out.bind(link.in);
  arbiter.link.bind(ready);
  feeder.requests.bind(arbiter.vn[cyc::kComputeRequest]);
  feeder.responses.bind(arbiter.vn[cyc::kComputeResponse]);
  feeder.credits.bind(arbiter.credits);
  auto* first         = make_request(pool, 8, 1);
  auto* second        = make_request(pool, 8, 1);
  auto* other         = make_request(pool, 8, 2); // another destination, behind `second` on the same network
  auto* answer        = pool.allocate(bxisim::hw::FrameKind::Response, frame_of(*first).operation, 0, 1);
  feeder.to_requests  = {first, second, other};
  feeder.to_responses = {answer};
  feeder.credit_at    = ns(100);
  feeder.credited     = frame_of(*first).operation.get();
  sc_core::sc_start();
  const auto a = config.wire_arbiter.arbitrate;
  ASSERT_EQ(link.arrivals.size(), 4U);
  EXPECT_EQ(link.frames[0], first);
  EXPECT_EQ(link.arrivals[0], a);
  EXPECT_EQ(link.frames[1], answer); // the response network goes on while requests wait
  EXPECT_EQ(link.arrivals[1], ns(1) + a);
  EXPECT_EQ(link.frames[2], second); // after the credit of `first`
  EXPECT_EQ(link.arrivals[2], ns(100) + a);
  EXPECT_EQ(link.frames[3], other); // head-of-line: it waited behind `second`
  EXPECT_EQ(link.arrivals[3], ns(100) + a + a);
  EXPECT_GE(arbiter.flow_stalls, 1U);
  EXPECT_EQ(arbiter.flow_stalled_time, ns(100) - ns(1) - a);
}

namespace
{
struct CreditReturner : sc_core::sc_module {
  cyc::LinkPort* port = nullptr;
  sc_core::sc_time at;
  uint64_t flits = 0;
  explicit CreditReturner(sc_core::sc_module_name name) : sc_core::sc_module(name)
  {
    SC_HAS_PROCESS(CreditReturner);
    SC_THREAD(run);
  }
  void run()
  {
    wait(at);
    port->credits_returned(flits);
  }
};
} // namespace

TEST(LinkPort, SendsChunksWithinItsCreditsAndStallsWithoutThem)
{
  auto config              = default_cycle_config();
  config.link_port.credits = 2 * config.link_port.flits_per_packet; // two packets in the peer's buffer
  cyc::FramePool pool;
  cyc::Outbox outbox;
  FrameSource source("source");
  cyc::LinkPort port("port", config.link_port, 0, outbox);
  FrameSink e2e("e2e");
  FrameSink dma("dma");
  CreditReturner returner("returner");
  source.out.bind(port.in);
  port.to_e2e.bind(e2e.in);
  port.dma.bind(dma.in);
  returner.port            = &port;
  returner.at              = ns(50);
  returner.flits           = config.link_port.flits_per_packet;
  auto* frame              = make_request(pool, 3 * config.packetizer.wire_packet_payload);
  frame_of(*frame).packets = 3;
  source.plan              = {{sc_core::SC_ZERO_TIME, frame}};
  sc_core::sc_start();
  auto sends = outbox.take();
  ASSERT_EQ(sends.size(), 3U); // half the credits per chunk: one packet each
  for (const auto& send : sends) {
    EXPECT_EQ(send.kind, OutboxRequest::Kind::WireSend);
    EXPECT_EQ(send.bytes, config.link_port.wire_packet);
  }
  EXPECT_FALSE(sends[0].last);
  EXPECT_TRUE(sends[2].last);
  sc_core::sc_time packet = config.link_port.serialization(config.link_port.wire_packet);
  ASSERT_EQ(e2e.arrivals.size(), 1U);
  EXPECT_EQ(e2e.arrivals[0], ns(50) + packet); // two packets, then a wait for credits until 50 ns
  EXPECT_EQ(port.credit_stalls, 1U);
  EXPECT_EQ(port.credit_stalled_time, ns(50) - 2.0 * packet);
}

namespace
{
/** Stands for the bridge: answers the LMEs' Deliver requests at once (polls the outbox every ns). */
struct FakeBridge : sc_core::sc_module {
  cyc::Outbox* outbox     = nullptr;
  cyc::CommitOrder* order = nullptr;
  std::vector<sc_core::sc_time> delivered;
  explicit FakeBridge(sc_core::sc_module_name name) : sc_core::sc_module(name)
  {
    SC_HAS_PROCESS(FakeBridge);
    SC_THREAD(run);
  }
  void run()
  {
    for (int i = 0; i < 1000; ++i) {
      for (int delta = 0; delta < 8; ++delta) { // the deltas at this time: engines commit one after another
        for (auto& request : outbox->take()) {
          frame_of(*request.frame).delivered_by_core = true;
          delivered.push_back(sc_core::sc_time_stamp());
          order->delivered.notify(sc_core::SC_ZERO_TIME);
          request.frame->release();
        }
        wait(sc_core::SC_ZERO_TIME);
      }
      wait(ns(1));
    }
  }
};
} // namespace

TEST(ListMatchingEngine, EnginesMatchInParallelAndCommitInArrivalOrder)
{
  auto config                  = default_cycle_config();
  config.list_matching.engines = 2;
  cyc::FramePool pool;
  cyc::Outbox outbox;
  cyc::CommitOrder order("order");
  cyc::FrameQueue headers("headers"), out("out");
  cyc::ListMatchingEngine lme0("lme0", config.list_matching, 1, outbox, order);
  cyc::ListMatchingEngine lme1("lme1", config.list_matching, 1, outbox, order);
  QueueDrain writer("writer");
  FakeBridge bridge("bridge");
  cyc::ResponseSlots slots("slots", 1);
  for (auto* lme : {&lme0, &lme1}) {
    lme->headers.bind(headers);
    lme->out.bind(out);
    lme->slots.bind(slots);
  }
  writer.in.bind(out);
  bridge.outbox = &outbox;
  bridge.order  = &order;
  std::vector<tlm::tlm_generic_payload*> sent;
  for (int i = 0; i < 3; ++i) {
    sent.push_back(make_request(pool, 8));
    headers.push_front(sent.back()); // push_front from outside a process: the last pushed comes first
    sent.back()->release();
  }
  sc_core::sc_start();
  const auto m = config.list_matching.match;
  ASSERT_EQ(writer.frames.size(), 3U);
  EXPECT_EQ(writer.frames[0], sent[2]);
  EXPECT_EQ(writer.frames[1], sent[1]);
  EXPECT_EQ(writer.frames[2], sent[0]);
  // Two engines: headers 0 and 1 decided after one match time, header 2 after two.
  ASSERT_EQ(bridge.delivered.size(), 3U);
  EXPECT_EQ(bridge.delivered[0], m);
  EXPECT_EQ(bridge.delivered[1], m);
  EXPECT_EQ(bridge.delivered[2], 2.0 * m);
  EXPECT_EQ(lme0.matched + lme1.matched, 3U);
  EXPECT_EQ(slots.free(), 1U); // Puts without an ACK: each gave its response slot back at delivery
}

namespace
{
/** Takes the PCIe writes a module posts (transient payloads, not pooled frames): when and how many bytes. */
struct WriteSink : sc_core::sc_module {
  tlm_utils::simple_target_socket<WriteSink> in;
  std::vector<sc_core::sc_time> arrivals;
  std::vector<unsigned> bytes;

  explicit WriteSink(sc_core::sc_module_name name) : sc_core::sc_module(name), in("in")
  {
    in.register_b_transport(this, &WriteSink::accept);
  }
  void accept(tlm::tlm_generic_payload& write, sc_core::sc_time&)
  {
    arrivals.push_back(sc_core::sc_time_stamp());
    bytes.push_back(write.get_data_length());
    write.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};
/** Puts frames into a frame queue at time 0, in order (the queue keeps a reference of its own). */
struct QueueFeeder : sc_core::sc_module {
  cyc::FrameQueue& queue;
  std::vector<tlm::tlm_generic_payload*> frames;
  QueueFeeder(sc_core::sc_module_name name, cyc::FrameQueue& q, std::vector<tlm::tlm_generic_payload*> f)
      : sc_core::sc_module(name), queue(q), frames(std::move(f))
  {
    SC_HAS_PROCESS(QueueFeeder);
    SC_THREAD(run);
  }
  void run()
  {
    for (auto* frame : frames) {
      queue.push_back(frame);
      frame->release();
    }
  }
};
} // namespace

TEST(CommandQueue, SchedulesRoundRobinAmongProcessesAndFreesSlots)
{
  auto config = default_cycle_config();
  cyc::FramePool pool;
  cyc::Outbox outbox;
  FrameSource source("source");
  cyc::CommandQueue queue("queue", config.command_queue, 0, outbox);
  FrameSink sink("sink");
  source.out.bind(queue.in);
  queue.out.bind(sink.in);
  // Process 0 writes three commands, process 1 two, all at time 0: the scheduler alternates, starting
  // after the last process served (none yet: 0).
  for (uint32_t process : {0U, 0U, 0U, 1U, 1U})
    source.plan.push_back({sc_core::SC_ZERO_TIME, make_request(pool, 8, 1, bxisim::portals::OpKind::put, process)});
  sc_core::sc_start();
  ASSERT_EQ(sink.arrivals.size(), 5U);
  std::vector<uint32_t> order;
  for (size_t i = 0; i < 5; ++i) {
    order.push_back(frame_of(*sink.frames[i]).operation->message->source_process);
    // One command per scheduling decision; the sink takes it at once.
    EXPECT_EQ(sink.arrivals[i], config.command_queue.schedule * static_cast<double>(i + 1)) << i;
  }
  EXPECT_EQ(order, (std::vector<uint32_t>{1, 0, 1, 0, 0}));
  EXPECT_EQ(queue.taken, 5U);
  // Each command taken frees its process's slot: the CPU side may write another.
  std::map<uint32_t, int> freed;
  for (const auto& request : outbox.take())
    if (request.kind == OutboxRequest::Kind::CommandTaken)
      ++freed[request.process];
  EXPECT_EQ(freed[0], 3);
  EXPECT_EQ(freed[1], 2);
}

namespace
{
/** Puts frames into a frame queue at chosen times, in time order, each with its in_memory_at as the
 * depacketizer sets it (the last wire packet at `arrived`, the deposit of its payload after it). */
struct TimedFeeder : sc_core::sc_module {
  cyc::FrameQueue& queue;
  std::vector<std::pair<sc_core::sc_time, tlm::tlm_generic_payload*>> plan;
  TimedFeeder(sc_core::sc_module_name name, cyc::FrameQueue& q,
              std::vector<std::pair<sc_core::sc_time, tlm::tlm_generic_payload*>> p)
      : sc_core::sc_module(name), queue(q), plan(std::move(p))
  {
    SC_HAS_PROCESS(TimedFeeder);
    SC_THREAD(run);
  }
  void run()
  {
    for (auto& [when, frame] : plan) {
      if (sc_core::sc_time_stamp() < when)
        wait(when - sc_core::sc_time_stamp());
      queue.push_back(frame);
      frame->release();
    }
  }
};

double seconds(const sc_core::sc_time& time)
{
  return time.to_seconds();
}
} // namespace

// The payloads stream to memory behind the wire: a payload that arrives with the engine free is in
// memory one PCIe packet and the PCIe latency after its last wire packet. Before (phase 10 of the
// region-switch study), the engine was held for the whole serialization from the moment the frame had
// arrived, so an 8 B payload right behind a 64 KiB one waited 5.24 us for a write that had already
// streamed. A payload whose write engine is behind (written_by, counted by the link port as chunks
// arrive) is in memory when the engine is through it.
TEST(DmaWriter, StreamedPayloadsLeaveTheEngineFreeOnePciePacketAfterTheirArrival)
{
  auto config = default_cycle_config();
  cyc::FramePool pool;
  cyc::FrameQueue arrived("arrived");
  cyc::DmaWriter writer("writer", config.dma_writer);
  WriteSink pcie("pcie");
  FrameSink events("events");
  writer.in.bind(arrived);
  writer.dma.bind(pcie.in);
  writer.out.bind(events.in);
  const auto& c        = config.dma_writer;
  const uint64_t large = 65536, small = 8;
  auto* first  = make_request(pool, large);
  auto* second = make_request(pool, small);
  auto* third  = make_request(pool, large);
  auto* get    = make_request(pool, large, 1, bxisim::portals::OpKind::get); // no payload to write
  // Late enough that the engine, idle since time 0, could have streamed the first payload.
  const double start                                      = 2 * static_cast<double>(large) / c.pcie.bandwidth;
  const std::vector<std::pair<double, uint64_t>> arrivals = {
      {start, large}, {start + 10e-9, small}, {start + 20e-9, large}, {start + 30e-9, 0}};
  // when the write engine is through each payload: behind for the third only
  const double behind                  = start + 20e-9 + 3 * static_cast<double>(large) / c.pcie.bandwidth;
  const std::vector<double> written_by = {0, 0, behind, 0};
  std::vector<std::pair<sc_core::sc_time, tlm::tlm_generic_payload*>> plan;
  std::vector<tlm::tlm_generic_payload*> frames = {first, second, third, get};
  for (size_t i = 0; i < frames.size(); ++i) {
    frame_of(*frames[i]).operation->message->mlength = arrivals[i].second;
    frame_of(*frames[i]).arrived_at                  = cyc::to_sc_time(arrivals[i].first);
    frame_of(*frames[i]).written_by                  = cyc::to_sc_time(written_by[i]);
    frame_of(*frames[i]).in_memory_at = cyc::to_sc_time(arrivals[i].first) + c.deposit(arrivals[i].second);
    frames[i]->acquire(); // kept for the checks
    plan.emplace_back(cyc::to_sc_time(arrivals[i].first), frames[i]);
  }
  TimedFeeder feeder("feeder", arrived, plan);
  sc_core::sc_start();
  const double bandwidth = c.pcie.bandwidth, latency = c.pcie.latency, setup = seconds(c.setup);
  const double packet = static_cast<double>(c.packet) / bandwidth;
  auto serialization  = [&](uint64_t bytes) { return static_cast<double>(bytes) / bandwidth; };
  ASSERT_EQ(pcie.arrivals.size(), 3U); // the Get request writes nothing
  EXPECT_EQ(pcie.bytes, (std::vector<unsigned>{large, small, large}));
  // The first streamed in: its write is posted at once; the engine is done one packet after arrival.
  EXPECT_NEAR(seconds(pcie.arrivals[0]), start + setup, 1e-12);
  double first_done = start + packet;
  EXPECT_NEAR(seconds(frame_of(*first).in_memory_at), first_done + latency, 2e-12);
  // The 8 B payload: after the first's last packet, not after its whole serialization.
  // (The writer takes a frame once it has passed the previous one on, then spends its setup.)
  double second_done = start + 10e-9 + serialization(small);
  double taken       = std::max(start + 10e-9, seconds(events.arrivals.at(0))) + setup;
  EXPECT_NEAR(seconds(pcie.arrivals[1]), std::max(taken, second_done - serialization(small)), 2e-12);
  EXPECT_NEAR(seconds(frame_of(*second).in_memory_at), second_done + latency, 2e-12);
  EXPECT_LT(seconds(frame_of(*second).in_memory_at), start + serialization(large)); // before: after it
  // The third waits for the engine.
  double third_done = behind;
  taken             = std::max(start + 20e-9, seconds(events.arrivals.at(1))) + setup;
  EXPECT_NEAR(seconds(pcie.arrivals[2]), std::max(taken, third_done - serialization(large)), 2e-12);
  EXPECT_NEAR(seconds(frame_of(*third).in_memory_at), third_done + latency, 2e-12);
  // Each frame goes on once its write is posted; the Get right after its own setup.
  ASSERT_EQ(events.arrivals.size(), 4U);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(events.arrivals[i], pcie.arrivals[i]) << i;
  EXPECT_NEAR(seconds(events.arrivals[3]), std::max(start + 30e-9, seconds(pcie.arrivals[2])) + setup, 1e-12);
  EXPECT_EQ(writer.writes, 3U);
  EXPECT_EQ(writer.bytes, 2 * large + small);
  for (auto* frame : frames)
    frame->release();
}

// The write engine's work: payloads that stream in one after the other leave it free; two streaming in
// together faster than the PCIe takes them (from the loopback and the wire) are both late, as their
// packets come in turns; a small payload taken before a large one that had started first does not
// hide the large one's bytes.
TEST(WriteEngineWork, StreamsShareTheEngineInTheOrderTheirBytesArrive)
{
  const double chunk_write = 1.0, chunk_on_link = 1.25; // a chunk's write at the PCIe's rate; its time on the link
  bxisim::hw::WriteEngineWork<double> alone;
  for (int k = 0; k < 8; ++k)
    EXPECT_DOUBLE_EQ(alone.done_with(k * chunk_on_link, chunk_write), k * chunk_on_link + chunk_write);
  // two streams, chunks arriving in turns, each taking twice its time on the link (shared), twice as
  // fast together as the engine: 16 chunks' work from time 0
  bxisim::hw::WriteEngineWork<double> together;
  double last = 0;
  for (int k = 0; k < 8; ++k)
    for (int stream = 0; stream < 2; ++stream)
      last = together.done_with(k * chunk_write + stream * 0.1, chunk_write);
  EXPECT_DOUBLE_EQ(last, 16 * chunk_write);
  // a small payload that arrived during a large one's stream, given first
  bxisim::hw::WriteEngineWork<double> nested;
  EXPECT_DOUBLE_EQ(nested.done_with(5.0, 0.01), 5.01);
  EXPECT_DOUBLE_EQ(nested.done_with(0.0, 8.0), 8.01); // the large one's bytes were there from 0
}

TEST(EventEngine, ResponseEventsWaitForThePayloadInMemoryThenCompleteTheOperation)
{
  auto config = default_cycle_config();
  cyc::FramePool pool;
  cyc::Outbox outbox;
  FrameSource source("source");
  cyc::EventEngine engine("engine", config.event_engine, 0, outbox);
  WriteSink pcie("pcie");
  FrameSink responses("responses");
  source.out.bind(engine.in);
  engine.dma.bind(pcie.in);
  engine.to_response.bind(responses.in);
  // A Put with an ACK arriving at its target: its event is written, then it goes to the response
  // generator. A reply arriving at its initiator whose payload is in memory only at 100 ns.
  auto* request                                   = make_request(pool, 8);
  frame_of(*request).operation->message->response = bxisim::portals::ResponseKind::ack;
  auto operation                                  = std::make_shared<cyc::Operation>();
  operation->message                              = std::make_unique<bxisim::portals::Message>();
  operation->message->kind                        = bxisim::portals::OpKind::get;
  auto* reply                                     = pool.allocate(bxisim::hw::FrameKind::Response, operation, 1, 0);
  frame_of(*reply).in_memory_at                   = ns(100);
  source.plan                                     = {{sc_core::SC_ZERO_TIME, request}, {sc_core::SC_ZERO_TIME, reply}};
  sc_core::sc_start();
  const auto& c = config.event_engine;
  ASSERT_EQ(responses.arrivals.size(), 1U);
  EXPECT_EQ(responses.arrivals[0], c.event);
  ASSERT_EQ(pcie.arrivals.size(), 2U); // one event write each
  EXPECT_EQ(pcie.arrivals[0], c.event);
  EXPECT_EQ(pcie.arrivals[1], ns(100)); // building it overlapped the wait for the payload
  EXPECT_EQ(pcie.bytes,
            (std::vector<unsigned>{static_cast<unsigned>(c.event_bytes), static_cast<unsigned>(c.event_bytes)}));
  EXPECT_EQ(engine.events, 2U);
  int sends = 0, responses_completed = 0;
  for (const auto& posted : outbox.take()) {
    sends += posted.kind == OutboxRequest::Kind::CompleteSend ? 1 : 0;
    responses_completed += posted.kind == OutboxRequest::Kind::CompleteResponse ? 1 : 0;
  }
  EXPECT_EQ(sends, 1); // the reply's operation: SEND (still due) then REPLY
  EXPECT_EQ(responses_completed, 1);
}

TEST(Depacketizer, ReturnsCreditsDispatchesAndDropsDuplicates)
{
  auto config = default_cycle_config();
  cyc::FramePool pool;
  cyc::Outbox outbox;
  cyc::FrameQueue rx("rx"), rx_responses("rx_responses"), headers("headers"), responses("responses");
  cyc::Depacketizer depacketizer("depacketizer", config.depacketizer, 1, outbox);
  FrameSink e2e("e2e");
  QueueDrain matched("matched"), replies("replies");
  depacketizer.in.bind(rx);
  depacketizer.in_responses.bind(rx_responses);
  depacketizer.to_e2e.bind(e2e.in);
  depacketizer.headers.bind(headers);
  depacketizer.responses.bind(responses);
  matched.in.bind(headers);
  replies.in.bind(responses);
  const uint64_t size = 4096;
  auto* request       = make_request(pool, size); // node 0 -> node 1
  // The same request again (a retransmission whose BXI ACK was lost): same operation.
  auto* copy = pool.allocate(bxisim::hw::FrameKind::Request, frame_of(*request).operation, 0, 1);
  // A Get reply arriving at node 1 from node 2.
  auto operation               = std::make_shared<cyc::Operation>();
  operation->message           = std::make_unique<bxisim::portals::Message>();
  operation->message->kind     = bxisim::portals::OpKind::get;
  operation->message->response = bxisim::portals::ResponseKind::reply;
  operation->message->mlength  = 100;
  auto* reply                  = pool.allocate(bxisim::hw::FrameKind::Response, operation, 2, 1);
  unsigned flits               = 7;
  for (auto* frame : {request, copy, reply})
    frame_of(*frame).last_flits = flits;
  QueueFeeder feeder("feeder", rx, {request, copy});
  QueueFeeder response_feeder("response_feeder", rx_responses, {reply});
  sc_core::sc_start();
  const auto& c = config.depacketizer;
  ASSERT_EQ(e2e.arrivals.size(), 3U); // every frame, one per depacketize time
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(e2e.arrivals[i], c.depacketize * static_cast<double>(i + 1));
  EXPECT_EQ(e2e.frames[0], reply);      // the response network's buffer goes first
  ASSERT_EQ(matched.frames.size(), 1U); // the copy is dropped
  EXPECT_EQ(matched.arrivals[0], c.depacketize * 2.0);
  EXPECT_EQ(depacketizer.duplicates, 1U);
  // The payload's last PCIe packet is in memory one packet after arrival (at 0 here).
  auto deposit = [&](uint64_t bytes) {
    return cyc::to_sc_time(c.pcie.latency + static_cast<double>(std::min(bytes, c.pcie_packet)) / c.pcie.bandwidth);
  };
  EXPECT_EQ(frame_of(*matched.frames[0]).in_memory_at, deposit(size));
  ASSERT_EQ(replies.frames.size(), 1U);
  EXPECT_EQ(replies.arrivals[0], c.depacketize);
  EXPECT_EQ(frame_of(*replies.frames[0]).in_memory_at, deposit(100));
  // Each frame's credits go back to its sender at once.
  std::map<int, uint64_t> credits;
  for (const auto& posted : outbox.take())
    if (posted.kind == OutboxRequest::Kind::CreditReturn)
      credits[posted.node] += posted.flits;
  EXPECT_EQ(credits[0], 2U * flits);
  EXPECT_EQ(credits[2], flits);
}

namespace
{
/** A request delivered at node 1, from node 0, whose semantics asked for `response`. */
tlm::tlm_generic_payload* delivered(cyc::FramePool& pool, bxisim::portals::OpKind kind,
                                    bxisim::portals::ResponseKind response, uint64_t bytes)
{
  auto* frame                                   = make_request(pool, bytes, 1, kind);
  frame_of(*frame).operation->message->response = response;
  frame_of(*frame).operation->message->mlength  = bytes;
  frame_of(*frame).operation->source_node       = 0;
  return frame;
}
} // namespace

TEST(ResponseGenerator, BuildsAnAckAndAReplyOneAfterTheOther)
{
  auto config = default_cycle_config();
  cyc::FramePool pool;
  cyc::Outbox outbox;
  FrameSource source("source");
  cyc::ResponseGenerator generator("generator", config.response_generator, 1, outbox, pool);
  FrameSink sink("sink");
  source.out.bind(generator.in);
  generator.out.bind(sink.in);
  cyc::ResponseSlots slots("slots", 0); // the LMEs took them
  generator.slots.bind(slots);
  const uint64_t size = 2048;
  source.plan         = {
              {sc_core::SC_ZERO_TIME, delivered(pool, bxisim::portals::OpKind::put, bxisim::portals::ResponseKind::ack, size)},
              {sc_core::SC_ZERO_TIME,
               delivered(pool, bxisim::portals::OpKind::get, bxisim::portals::ResponseKind::reply, size)}};
  sc_core::sc_start();
  const auto& c = config.response_generator;
  ASSERT_EQ(sink.frames.size(), 2U);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(sink.arrivals[i], c.generate * static_cast<double>(i + 1));
    EXPECT_EQ(frame_of(*sink.frames[i]).kind, bxisim::hw::FrameKind::Response);
    EXPECT_EQ(frame_of(*sink.frames[i]).from, 1); // from the target
    EXPECT_EQ(frame_of(*sink.frames[i]).to, 0);   // back to the initiator
  }
  EXPECT_EQ(frame_of(*sink.frames[0]).payload, 0U);   // an ACK carries no payload
  EXPECT_EQ(frame_of(*sink.frames[1]).payload, size); // a reply carries the matched bytes
  EXPECT_TRUE(outbox.empty());
  EXPECT_EQ(slots.free(), 2U); // each response on its way gave its slot back
}

TEST(ResponseGenerator, QuickAcksCompleteAtOnceWithoutAFrame)
{
  auto config                          = default_cycle_config();
  config.response_generator.quick_acks = true;
  cyc::FramePool pool;
  cyc::Outbox outbox;
  FrameSource source("source");
  cyc::ResponseGenerator generator("generator", config.response_generator, 1, outbox, pool);
  FrameSink sink("sink");
  source.out.bind(generator.in);
  generator.out.bind(sink.in);
  cyc::ResponseSlots slots("slots", 0); // the LMEs took them
  generator.slots.bind(slots);
  source.plan = {
      {sc_core::SC_ZERO_TIME, delivered(pool, bxisim::portals::OpKind::put, bxisim::portals::ResponseKind::ack, 8)}};
  sc_core::sc_start();
  EXPECT_TRUE(sink.frames.empty());
  std::vector<OutboxRequest::Kind> kinds;
  for (const auto& posted : outbox.take())
    kinds.push_back(posted.kind);
  EXPECT_EQ(kinds,
            (std::vector<OutboxRequest::Kind>{OutboxRequest::Kind::FlowCreditReturn, OutboxRequest::Kind::CompleteSend,
                                              OutboxRequest::Kind::CompleteResponse}));
  EXPECT_EQ(slots.free(), 1U);
}

namespace
{
/** Plays the CPU and the bridge around a PCIe endpoint: command writes arriving, DMA reads finishing
 * at chosen times; records when each read returned. */
struct PcieDriver : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<PcieDriver> dma;
  cyc::PcieEndpoint& endpoint;
  cyc::Outbox& outbox;
  std::vector<tlm::tlm_generic_payload*> commands, reads;
  sc_core::sc_time finish_reads_at;
  std::vector<sc_core::sc_time> returned;
  std::vector<OutboxRequest> posted;

  PcieDriver(sc_core::sc_module_name name, cyc::PcieEndpoint& e, cyc::Outbox& o)
      : sc_core::sc_module(name), dma("dma"), endpoint(e), outbox(o)
  {
    SC_HAS_PROCESS(PcieDriver);
    SC_THREAD(cpu);
    SC_THREAD(reader);
    SC_THREAD(bridge);
  }
  void cpu()
  {
    for (auto* command : commands)
      endpoint.command_arrived(command); // its reference goes with it
  }
  void reader()
  {
    for (auto* frame : reads) {
      frame->set_command(tlm::TLM_READ_COMMAND);
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      dma->b_transport(*frame, delay);
      returned.push_back(sc_core::sc_time_stamp());
      // The frame leaves once all its payload is in: an ignore command waits for the read's end.
      frame->set_command(tlm::TLM_IGNORE_COMMAND);
      dma->b_transport(*frame, delay);
      returned.push_back(sc_core::sc_time_stamp());
    }
  }
  void bridge()
  {
    wait(finish_reads_at - sc_core::sc_time_stamp());
    for (auto& request : outbox.take()) {
      posted.push_back(request);
      if (request.kind == OutboxRequest::Kind::DmaRead)
        endpoint.read_finished(*request.frame);
    }
  }
};
} // namespace

TEST(PcieEndpoint, TakesCommandsInMmioTimeAndWaitsForOnePacketReads)
{
  auto config = default_cycle_config();
  cyc::FramePool pool;
  cyc::Outbox outbox;
  cyc::PcieEndpoint endpoint("endpoint", config.pcie_endpoint, 0, outbox);
  FrameSink queue("queue");
  endpoint.commands.bind(queue.in);
  PcieDriver driver("driver", endpoint, outbox);
  driver.dma.bind(endpoint.dma);
  const auto& c   = config.pcie_endpoint;
  driver.commands = {make_request(pool, 8), make_request(pool, 8)};
  // A one-packet payload: the read returns when the bridge says the read finished (at 1 us here).
  auto* small            = make_request(pool, c.packet);
  driver.reads           = {small};
  driver.finish_reads_at = ns(1000);
  sc_core::sc_start();
  ASSERT_EQ(queue.arrivals.size(), 2U); // one MMIO command after the other
  EXPECT_EQ(queue.arrivals[0], c.mmio);
  EXPECT_EQ(queue.arrivals[1], c.mmio * 2.0);
  ASSERT_EQ(driver.returned.size(), 2U);
  EXPECT_EQ(driver.returned[0], ns(1000));
  EXPECT_EQ(driver.returned[1], ns(1000));
  ASSERT_EQ(driver.posted.size(), 1U);
  EXPECT_EQ(driver.posted[0].kind, OutboxRequest::Kind::DmaRead);
  EXPECT_EQ(driver.posted[0].bytes, c.packet);
  EXPECT_TRUE(driver.posted[0].initiator_memory);
  EXPECT_EQ(endpoint.reads, 1U);
}

TEST(PcieEndpoint, LargeReadsLetTheWireStartAfterTheFirstPacket)
{
  auto config = default_cycle_config();
  cyc::FramePool pool;
  cyc::Outbox outbox;
  cyc::PcieEndpoint endpoint("endpoint", config.pcie_endpoint, 0, outbox);
  FrameSink queue("queue");
  endpoint.commands.bind(queue.in);
  PcieDriver driver("driver", endpoint, outbox);
  driver.dma.bind(endpoint.dma);
  const auto& c          = config.pcie_endpoint;
  const uint64_t size    = 16 * c.packet;
  driver.reads           = {make_request(pool, size)};
  driver.finish_reads_at = ns(5000);
  sc_core::sc_start();
  ASSERT_EQ(driver.returned.size(), 2U);
  // The packetizer may go on once the first packet is in: one packet's PCIe time...
  EXPECT_EQ(driver.returned[0], c.first_packet(size));
  EXPECT_LT(driver.returned[0], ns(5000));
  // ...but the frame keeps its payload until the whole read is over.
  EXPECT_EQ(driver.returned[1], ns(5000));
  ASSERT_EQ(driver.posted.size(), 1U);
  EXPECT_EQ(driver.posted[0].bytes, size);
}

namespace
{
/** The wire arbiter's side of flow control: records the operations whose credit came back. */
struct CreditRecorder : sc_core::sc_module, cyc::FlowCreditIf {
  std::vector<const cyc::Operation*> returned;
  explicit CreditRecorder(sc_core::sc_module_name name) : sc_core::sc_module(name) {}
  void return_credit(cyc::Operation& operation) override { returned.push_back(&operation); }
};

/** Plays the link port (frames that left, and again when E2E resends them: the packetizer and port
 * are instantaneous here) and the depacketizer (frames that arrive at chosen times). */
struct E2eDriver : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<E2eDriver> sent, arrived;
  tlm_utils::simple_target_socket<E2eDriver> resend;
  std::vector<tlm::tlm_generic_payload*> leaving;
  std::vector<std::pair<sc_core::sc_time, tlm::tlm_generic_payload*>> arriving;
  std::vector<sc_core::sc_time> resent;

  explicit E2eDriver(sc_core::sc_module_name name)
      : sc_core::sc_module(name), sent("sent"), arrived("arrived"), resend("resend")
  {
    resend.register_b_transport(this, &E2eDriver::on_resend);
    SC_HAS_PROCESS(E2eDriver);
    SC_THREAD(run);
  }
  void run()
  {
    for (auto* frame : leaving)
      cyc::forward(sent, *frame);
    for (auto& [when, frame] : arriving) {
      wait(when - sc_core::sc_time_stamp());
      cyc::forward(arrived, *frame);
    }
  }
  void on_resend(tlm::tlm_generic_payload& frame, sc_core::sc_time&)
  {
    resent.push_back(sc_core::sc_time_stamp());
    cyc::forward(sent, frame); // out again at once: a new timer
    frame.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};
} // namespace

TEST(E2eEngine, ResendsOnTimeoutGivesUpAfterTheRetriesAndAcknowledgesArrivals)
{
  auto config        = default_cycle_config();
  config.e2e.timeout = ns(1000);
  config.e2e.retries = 1;
  cyc::FramePool pool;
  cyc::Outbox outbox;
  cyc::E2eEngine e2e("e2e", config.e2e, 64, 0, outbox, pool);
  E2eDriver driver("driver");
  FrameSink responses_resent("responses_resent");
  cyc::FrameQueue acks("acks");
  QueueDrain wire("wire");
  CreditRecorder credits("credits");
  driver.sent.bind(e2e.sent);
  driver.arrived.bind(e2e.arrived);
  e2e.resend_request.bind(driver.resend);
  e2e.resend_response.bind(responses_resent.in);
  e2e.acks.bind(acks);
  wire.in.bind(acks);
  e2e.flow.bind(credits);
  // Lost: never acknowledged. Acknowledged: its BXI ACK comes back at 100 ns. Incoming: a request
  // from node 2 arriving at 200 ns, which this NIC acknowledges.
  auto* lost         = make_request(pool, 4096);
  auto* acknowledged = make_request(pool, 4096);
  auto* bxi_ack      = pool.allocate(bxisim::hw::FrameKind::RequestAck, frame_of(*acknowledged).operation, 1, 0);
  auto* incoming     = pool.allocate(bxisim::hw::FrameKind::Request, frame_of(*make_request(pool, 8)).operation, 2, 0);
  driver.leaving     = {lost, acknowledged};
  driver.arriving    = {{ns(100), bxi_ack}, {ns(200), incoming}};
  sc_core::sc_start();
  const auto& c = config.e2e;
  // The lost request goes again once its timer expires, and is given up at the next expiry.
  ASSERT_EQ(driver.resent.size(), 1U);
  EXPECT_EQ(driver.resent[0], c.timeout);
  EXPECT_EQ(e2e.retransmissions, 1U);
  EXPECT_EQ(e2e.given_up, 1U);
  EXPECT_TRUE(frame_of(*lost).operation->given_up);
  EXPECT_TRUE(responses_resent.frames.empty());
  // Both requests' flow credits came back: the acknowledged one's first, the lost one's at give-up.
  ASSERT_EQ(credits.returned.size(), 2U);
  EXPECT_EQ(credits.returned[0], frame_of(*acknowledged).operation.get());
  EXPECT_EQ(credits.returned[1], frame_of(*lost).operation.get());
  // The incoming request was acknowledged with a BXI ACK back to node 2, after the E2E's processing.
  ASSERT_EQ(wire.frames.size(), 1U);
  EXPECT_EQ(frame_of(*wire.frames[0]).kind, bxisim::hw::FrameKind::RequestAck);
  EXPECT_EQ(frame_of(*wire.frames[0]).to, 2);
  EXPECT_EQ(wire.arrivals[0], ns(200) + c.process);
  EXPECT_EQ(e2e.bxi_acks_sent, 1U);
  // SEND of the 4 KiB requests (beyond the E2E context): the acknowledged one at its BXI ACK; the
  // lost one's initiator learns from the drop (SEND then failure).
  int sends = 0, drops = 0;
  for (const auto& posted : outbox.take()) {
    sends += posted.kind == OutboxRequest::Kind::CompleteSend ? 1 : 0;
    drops += posted.kind == OutboxRequest::Kind::DropRequest ? 1 : 0;
  }
  EXPECT_EQ(sends, 1);
  EXPECT_EQ(drops, 1);
}
