// Unit tests of the cycle NIC's modules, each driven through its own sockets without the rest of the
// NIC and without SimGrid; expected times are derived here from the module's configuration (cycle
// counts times the clock period). One process per test: SystemC cannot be restarted.

#include "ModuleBench.hpp"

#include "hw/cycle/AddressTranslation.hpp"
#include "hw/cycle/CommandDecoder.hpp"
#include "hw/cycle/LinkPort.hpp"
#include "hw/cycle/ListMatchingEngine.hpp"
#include "hw/cycle/Packetizer.hpp"
#include "hw/cycle/PcieEndpoint.hpp"
#include "hw/cycle/WireArbiter.hpp"

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

TEST(WireArbiter, NicFlowControlHoldsRequestsUntilACreditReturns)
{
  auto config                   = default_cycle_config();
  config.wire_arbiter.nic_limit = 1;
  cyc::FramePool pool;
  cyc::WireArbiter arbiter("arbiter", config.wire_arbiter);
  FrameSink link("link");
  VnFeeder feeder("feeder");
  arbiter.out.bind(link.in);
  feeder.requests.bind(arbiter.vn[cyc::kComputeRequest]);
  feeder.responses.bind(arbiter.vn[cyc::kComputeResponse]);
  feeder.credits.bind(arbiter.credits);
  auto* first         = make_request(pool, 8, 1);
  auto* second        = make_request(pool, 8, 1);
  auto* other         = make_request(pool, 8, 2); // another destination, behind `second` on the same network
  auto* answer        = pool.allocate(cyc::FrameKind::Response, frame_of(*first).operation, 0, 1);
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
  for (auto* lme : {&lme0, &lme1}) {
    lme->headers.bind(headers);
    lme->out.bind(out);
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
}
