// Traffic that stays inside a node: a Put or a Get to a neighbour (another core of the same node) or
// to the process itself goes core -> PCIe -> NIC -> the NIC's loopback -> PCIe -> core, never on the
// BXI wire. Exact simulated times, derived here from the parameters and the model's protocol
// (hw/message/MessageNicModel.hpp), the same as across nodes with the loopback in place of the wire:
//   command over PCIe (with its payload when PIO) -> [DMA: first PCIe packet] -> loopback -> response.

#include "MessageNicWorld.hpp"

#include <algorithm>
#include <gtest/gtest.h>

using bxisim::test::MessageNicWorld;
using bxisim::test::Placement;
using bxisim::test::PortalsEndpoint;
using Figures = bxisim::test::MessageNicFigures;

namespace
{
constexpr double kPicosecond     = 1e-12;
constexpr ptl_match_bits_t kBits = 0x42;
constexpr unsigned char kData    = 0x5A;

enum class Peer { Neighbour, Self };

/** One Put with an ACK from rank 0 to rank 1 of the same node, or to itself; returns the time until
 * the ACK event. Checks the data and the PUT event at the target. */
double time_put(Peer peer, const std::vector<std::string>& parameters, size_t size, Figures* figures)
{
  MessageNicWorld world(parameters, Placement::OneNode);
  *figures       = Figures(world);
  double elapsed = -1;
  auto check_put = [size](PortalsEndpoint& target) {
    auto put = target.wait_for(PTL_EVENT_PUT);
    EXPECT_EQ(put.mlength, size);
    EXPECT_EQ(put.ni_fail_type, PTL_NI_OK);
    EXPECT_EQ(std::count(target.memory.begin(), target.memory.end(), kData), static_cast<long>(size));
  };
  world.run(
      [&] {
        auto endpoint = PortalsEndpoint::open(size);
        std::vector<unsigned char> source(size, kData);
        if (peer == Peer::Self)
          endpoint.expose(kBits);
        auto md = endpoint.bind(source.data(), source.size());
        world.ready();
        double start = simgrid::s4u::Engine::get_clock();
        EXPECT_EQ(
            PtlPut(md, 0, size, PTL_ACK_REQ, world.address_of(peer == Peer::Self ? 0 : 1), 0, kBits, 0, nullptr, 0),
            PTL_OK);
        // The PUT event comes before the ACK: the target's events wait for the same deposit.
        if (peer == Peer::Self)
          check_put(endpoint);
        auto ack = endpoint.wait_for(PTL_EVENT_ACK);
        EXPECT_EQ(ack.mlength, size);
        EXPECT_EQ(ack.ni_fail_type, PTL_NI_OK);
        elapsed = simgrid::s4u::Engine::get_clock() - start;
      },
      [&] {
        if (peer == Peer::Self) {
          world.ready();
          return;
        }
        auto endpoint = PortalsEndpoint::open(size);
        endpoint.expose(kBits);
        world.ready();
        check_put(endpoint);
      });
  return elapsed;
}

/** One Get by rank 0 from rank 1 of the same node, or from itself; returns the time until the REPLY
 * event. */
double time_get(Peer peer, const std::vector<std::string>& parameters, size_t size, Figures* figures)
{
  MessageNicWorld world(parameters, Placement::OneNode);
  *figures       = Figures(world);
  double elapsed = -1;
  world.run(
      [&] {
        auto endpoint = PortalsEndpoint::open(size);
        std::fill(endpoint.memory.begin(), endpoint.memory.end(), kData);
        if (peer == Peer::Self)
          endpoint.expose(kBits);
        std::vector<unsigned char> destination(size, 0);
        auto md = endpoint.bind(destination.data(), destination.size());
        world.ready();
        double start = simgrid::s4u::Engine::get_clock();
        EXPECT_EQ(PtlGet(md, 0, size, world.address_of(peer == Peer::Self ? 0 : 1), 0, kBits, 0, nullptr), PTL_OK);
        auto reply = endpoint.wait_for(PTL_EVENT_REPLY);
        EXPECT_EQ(reply.mlength, size);
        elapsed = simgrid::s4u::Engine::get_clock() - start;
        EXPECT_EQ(std::count(destination.begin(), destination.end(), kData), static_cast<long>(size));
      },
      [&] {
        if (peer == Peer::Self) {
          world.ready();
          return;
        }
        auto endpoint = PortalsEndpoint::open(size);
        std::fill(endpoint.memory.begin(), endpoint.memory.end(), kData);
        endpoint.expose(kBits);
        world.ready();
        endpoint.wait_for(PTL_EVENT_GET);
      });
  return elapsed;
}

/** Put: command (PIO payload included), DMA start, loopback, deposit at the target, ACK back. */
/** After the payload's arrival, until it is in memory: its last PCIe packet, unless the NIC's write
 * engine, at the PCIe's rate from the frame's first packet, is slower than the loopback brought it. */
double in_memory(const Figures& f, double bytes)
{
  return std::max(f.deposit(bytes), bytes / f.pcie_bandwidth + f.pcie_latency - f.wire(bytes));
}

double expected_put(const Figures& f, size_t size)
{
  double command = f.nic.command_bytes;
  double dma     = 0;
  if (size > f.nic.pio_max_matching)
    dma = f.dma_start(static_cast<double>(size));
  else if (size > f.nic.inline_max_matching)
    command += static_cast<double>(size);
  return f.pcie(command) + dma + f.wire(static_cast<double>(size)) + in_memory(f, static_cast<double>(size)) +
         f.wire(0);
}

/** Get: the request, its BXI ACK ahead of the reply on the response network (the TX waits for it to
 * be through the loopback), the reply read by DMA. */
double expected_get(const Figures& f, size_t size)
{
  auto bytes = static_cast<double>(size);
  return f.pcie(f.nic.command_bytes) + f.wire(0) + f.tx_hold(0) + f.dma_start(bytes) + f.wire(bytes) +
         in_memory(f, bytes);
}

class IntraNode : public testing::TestWithParam<Peer>
{
};

std::string peer_name(const testing::TestParamInfo<Peer>& info)
{
  return info.param == Peer::Self ? "ToSelf" : "ToNeighbour";
}
} // namespace

TEST_P(IntraNode, PutInline8Bytes)
{
  Figures f;
  double measured = time_put(GetParam(), {}, 8, &f);
  ASSERT_LE(8U, f.nic.inline_max_matching);
  // Inline: the payload rides in the command; 72 B through the loopback, deposit, the ACK's 72 B.
  EXPECT_NEAR(measured, f.pcie(f.nic.command_bytes) + f.wire(8) + f.deposit(8) + f.wire(0), kPicosecond);
  EXPECT_NEAR(measured, expected_put(f, 8), kPicosecond);
}

TEST_P(IntraNode, PutPio256Bytes)
{
  Figures f;
  double measured = time_put(GetParam(), {}, 256, &f);
  ASSERT_GT(256U, f.nic.inline_max_matching);
  ASSERT_LE(256U, f.nic.pio_max_matching);
  EXPECT_NEAR(measured, f.pcie(f.nic.command_bytes + 256.0) + f.wire(256) + f.deposit(256) + f.wire(0), kPicosecond);
}

TEST_P(IntraNode, PutDma64KiB)
{
  Figures f;
  const size_t size = 64 * 1024;
  double measured   = time_put(GetParam(), {}, size, &f);
  ASSERT_GT(size, f.nic.pio_max_matching);
  // The DMA read (PCIe up) and the loopback run side by side; the write at the target uses PCIe down.
  EXPECT_NEAR(measured, f.pcie(f.nic.command_bytes) + f.dma_start(size) + f.wire(size) + f.deposit(size) + f.wire(0),
              kPicosecond);
}

TEST_P(IntraNode, GetDma64KiB)
{
  Figures f;
  const size_t size = 64 * 1024;
  double measured   = time_get(GetParam(), {}, size, &f);
  // With the default loopback latency of 0, the BXI ACK holds the response TX for its serialization.
  EXPECT_NEAR(measured,
              f.pcie(f.nic.command_bytes) + f.wire(0) + f.serialization(0) + f.dma_start(size) + f.wire(size) +
                  f.deposit(size),
              kPicosecond);
  EXPECT_NEAR(measured, expected_get(f, size), kPicosecond);
}

// Other loopback figures, and the BXI link far slower: only the loopback's may show.
const std::vector<std::string> kOtherLoopback = {"bxi.loopback_bandwidth=20GBps", "bxi.loopback_latency=40ns",
                                                 "bxi.link_bandwidth=1GBps", "bxi.link_latency=5us"};

TEST_P(IntraNode, LoopbackParametersSetThePutTime)
{
  Figures f;
  const size_t size = 64 * 1024;
  double put        = time_put(GetParam(), kOtherLoopback, size, &f);
  EXPECT_DOUBLE_EQ(f.wire_bandwidth, 20e9);
  EXPECT_DOUBLE_EQ(f.wire_latency, 40e-9);
  EXPECT_NEAR(put, expected_put(f, size), kPicosecond);
}

TEST_P(IntraNode, LoopbackParametersSetTheGetTime)
{
  Figures f;
  const size_t size = 64 * 1024;
  double get        = time_get(GetParam(), kOtherLoopback, size, &f);
  EXPECT_DOUBLE_EQ(f.wire_latency, 40e-9);
  EXPECT_NEAR(get, expected_get(f, size), kPicosecond);
}

INSTANTIATE_TEST_SUITE_P(MessageNic, IntraNode, testing::Values(Peer::Neighbour, Peer::Self), peer_name);

TEST(MessageNicIntraNode, SelfToAnotherPortalTable)
{
  // One NI, two PTs: a Put to PT 1 of the caller itself and a Get from its PT 0.
  MessageNicWorld world({}, Placement::OneNode);
  Figures f(world);
  world.run(
      [&] {
        auto endpoint = PortalsEndpoint::open(256);
        endpoint.expose(kBits); // PT 0, filled with kData below
        std::fill(endpoint.memory.begin(), endpoint.memory.end(), kData);
        ptl_pt_index_t second = 1;
        ASSERT_EQ(PtlPTAlloc(endpoint.ni, 0, endpoint.eq, 1, &second), PTL_OK);
        ASSERT_EQ(second, 1U);
        std::vector<unsigned char> landing(256, 0);
        ptl_me_t me{};
        me.start         = landing.data();
        me.length        = landing.size();
        me.ct_handle     = PTL_CT_NONE;
        me.uid           = PTL_UID_ANY;
        me.options       = PTL_ME_OP_PUT;
        me.match_id.phys = {PTL_NID_ANY, PTL_PID_ANY};
        me.match_bits    = kBits;
        ptl_handle_me_t handle;
        ASSERT_EQ(PtlMEAppend(endpoint.ni, second, &me, PTL_PRIORITY_LIST, nullptr, &handle), PTL_OK);
        std::vector<unsigned char> local(256, 0);
        auto md = endpoint.bind(local.data(), local.size());
        world.ready();

        double start = simgrid::s4u::Engine::get_clock();
        ASSERT_EQ(PtlGet(md, 0, 256, world.address_of(0), 0, kBits, 0, nullptr), PTL_OK);
        auto get = endpoint.wait_for(PTL_EVENT_GET);
        EXPECT_EQ(get.pt_index, 0U);
        endpoint.wait_for(PTL_EVENT_REPLY);
        EXPECT_NEAR(simgrid::s4u::Engine::get_clock() - start, expected_get(f, 256), kPicosecond);
        EXPECT_EQ(std::count(local.begin(), local.end(), kData), 256);

        start = simgrid::s4u::Engine::get_clock();
        ASSERT_EQ(PtlPut(md, 0, 256, PTL_ACK_REQ, world.address_of(0), second, kBits, 0, nullptr, 0), PTL_OK);
        auto put = endpoint.wait_for(PTL_EVENT_PUT);
        EXPECT_EQ(put.pt_index, second);
        EXPECT_EQ(put.initiator.phys.nid, 0U);
        EXPECT_EQ(put.initiator.phys.pid, 0U);
        endpoint.wait_for(PTL_EVENT_ACK);
        EXPECT_NEAR(simgrid::s4u::Engine::get_clock() - start, expected_put(f, 256), kPicosecond);
        EXPECT_EQ(std::count(landing.begin(), landing.end(), kData), 256);
      },
      [&] { world.ready(); });
}

TEST(MessageNicIntraNode, OppositePutsQueueInTheNicsTx)
{
  // Two ranks of one node Put 64 KiB to each other at the same time (no ACK). Both requests leave
  // from the same NIC, whose TX sends one frame after the other whatever the destination; the second
  // frame's DMA read starts while the first frame is sent, once the first read has had the first
  // frame's serialization time (as the cycle model's packetizer reads ahead).
  const size_t size = 64 * 1024;
  MessageNicWorld world({"bxi.loopback_latency=30ns"}, Placement::OneNode);
  Figures f(world);
  double arrived[2] = {-1, -1};
  auto rank         = [&](int me) {
    auto endpoint = PortalsEndpoint::open(size);
    endpoint.expose(kBits);
    std::vector<unsigned char> source(size, kData);
    auto md = endpoint.bind(source.data(), source.size());
    world.ready();
    EXPECT_EQ(PtlPut(md, 0, size, PTL_NO_ACK_REQ, world.address_of(1 - me), 0, kBits, 0, nullptr, 0), PTL_OK);
    // The source buffer must live until the SEND event, which may come before or after the PUT.
    bool sent = false;
    while (not sent || arrived[me] < 0) {
      ptl_event_t event{};
      ASSERT_EQ(PtlEQWait(endpoint.eq, &event), PTL_OK);
      if (event.type == PTL_EVENT_SEND)
        sent = true;
      if (event.type == PTL_EVENT_PUT) {
        arrived[me] = simgrid::s4u::Engine::get_clock();
        EXPECT_EQ(std::count(endpoint.memory.begin(), endpoint.memory.end(), kData), static_cast<long>(size));
      }
    }
  };
  world.run([&] { rank(0); }, [&] { rank(1); });
  // The two commands cross the node's PCIe bus (up) together: each gets half of its bandwidth,
  // below the per-transfer cap.
  const auto& node = world.platform().node;
  ASSERT_LT(node.pcie_bus.bandwidth / 2, node.pcie_transfer.bandwidth);
  double commands = f.pcie_latency + 2 * f.nic.command_bytes / node.pcie_bus.bandwidth;
  double first    = commands + f.dma_start(size) + f.wire(size) + f.deposit(size);
  // The second read starts once the first has had the first frame's serialization; its first packet
  // shares the PCIe bus with the rest of the first read, so it is in about when the first frame is
  // through the loopback (TX waits for that, latency included). The second frame queues behind the
  // first, and no longer waits a whole first PCIe packet after it (read after the first frame).
  double queued = first + f.wire(size);
  EXPECT_NEAR(std::min(arrived[0], arrived[1]), first, kPicosecond);
  EXPECT_GE(std::max(arrived[0], arrived[1]), queued - kPicosecond);
  EXPECT_LT(std::max(arrived[0], arrived[1]), queued + f.dma_start(size));
}
