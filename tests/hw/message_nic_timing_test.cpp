// Exact simulated times of one Put (until its ACK event) and one Get (until its REPLY event) on two
// nodes of one switch, derived here from the parameters and the model's stated protocol
// (hw/message/MessageNicModel.hpp):
//   command over PCIe (with its payload when PIO) -> [DMA: first PCIe packet] -> wire -> response.

#include "MessageNicWorld.hpp"

#include <gtest/gtest.h>

using bxisim::test::MessageNicWorld;
using bxisim::test::PortalsEndpoint;
using Figures = bxisim::test::MessageNicFigures;

namespace
{
constexpr double kPicosecond     = 1e-12;
constexpr ptl_match_bits_t kBits = 0x42;

double time_put(const std::vector<std::string>& parameters, size_t size, Figures* figures)
{
  MessageNicWorld world(parameters);
  *figures       = Figures(world);
  double elapsed = -1;
  world.run(
      [&] {
        auto endpoint = PortalsEndpoint::open(size);
        auto md       = endpoint.bind();
        world.ready();
        double start = simgrid::s4u::Engine::get_clock();
        ptl_process_t target;
        target.phys = {1, 0};
        EXPECT_EQ(PtlPut(md, 0, size, PTL_ACK_REQ, target, 0, kBits, 0, nullptr, 0), PTL_OK);
        auto ack = endpoint.wait_for(PTL_EVENT_ACK);
        EXPECT_EQ(ack.mlength, size);
        elapsed = simgrid::s4u::Engine::get_clock() - start;
      },
      [&] {
        auto endpoint = PortalsEndpoint::open(size);
        endpoint.expose(kBits);
        world.ready();
        auto put = endpoint.wait_for(PTL_EVENT_PUT);
        EXPECT_EQ(put.mlength, size);
      });
  return elapsed;
}

double time_get(size_t size, Figures* figures)
{
  MessageNicWorld world({});
  *figures       = Figures(world);
  double elapsed = -1;
  world.run(
      [&] {
        auto endpoint = PortalsEndpoint::open(size);
        auto md       = endpoint.bind();
        world.ready();
        double start = simgrid::s4u::Engine::get_clock();
        ptl_process_t target;
        target.phys = {1, 0};
        EXPECT_EQ(PtlGet(md, 0, size, target, 0, kBits, 0, nullptr), PTL_OK);
        auto reply = endpoint.wait_for(PTL_EVENT_REPLY);
        EXPECT_EQ(reply.mlength, size);
        EXPECT_EQ(endpoint.memory.back(), 0xAB); // the target's data arrived
        elapsed = simgrid::s4u::Engine::get_clock() - start;
      },
      [&] {
        auto endpoint = PortalsEndpoint::open(size);
        std::fill(endpoint.memory.begin(), endpoint.memory.end(), 0xAB);
        endpoint.expose(kBits);
        world.ready();
        endpoint.wait_for(PTL_EVENT_GET);
      });
  return elapsed;
}
} // namespace

TEST(MessageNicTiming, PutInline8Bytes)
{
  Figures f;
  double measured = time_put({}, 8, &f);
  // Inline: the payload rides in the command; the request crosses the wire, the target NIC writes it
  // to memory (events wait for its last PCIe packet), then
  // sends the Portals ACK back.
  ASSERT_LE(8U, f.nic.inline_max_matching);
  EXPECT_NEAR(measured, f.pcie(f.nic.command_bytes) + f.wire(8) + f.deposit(8) + f.wire(0), kPicosecond);
}

TEST(MessageNicTiming, PutPio256Bytes)
{
  Figures f;
  double measured = time_put({}, 256, &f);
  // PIO: the CPU writes the payload with the command; no DMA read.
  ASSERT_GT(256U, f.nic.inline_max_matching);
  ASSERT_LE(256U, f.nic.pio_max_matching);
  EXPECT_NEAR(measured, f.pcie(f.nic.command_bytes + 256.0) + f.wire(256) + f.deposit(256) + f.wire(0), kPicosecond);
}

TEST(MessageNicTiming, PutDma64KiB)
{
  Figures f;
  const size_t size = 64 * 1024;
  double measured   = time_put({}, size, &f);
  // DMA: the wire starts after the first PCIe packet; the read (5.2 us) ends before the wire (5.9 us).
  ASSERT_GT(size, f.nic.pio_max_matching);
  EXPECT_NEAR(measured, f.pcie(f.nic.command_bytes) + f.dma_start(size) + f.wire(size) + f.deposit(size) + f.wire(0),
              kPicosecond);
}

TEST(MessageNicTiming, PutWithoutPcieCommands)
{
  Figures f;
  double measured = time_put({"nic.model_pcie_commands=false"}, 256, &f);
  EXPECT_NEAR(measured, f.wire(256) + f.deposit(256) + f.wire(0), kPicosecond);
}

TEST(MessageNicTiming, QuickAcksSkipTheAckMessage)
{
  Figures f;
  double measured = time_put({"nic.quick_acks=true"}, 8, &f);
  EXPECT_NEAR(measured, f.pcie(f.nic.command_bytes) + f.wire(8) + f.deposit(8), kPicosecond);
}

TEST(MessageNicTiming, Get8Bytes)
{
  Figures f;
  double measured = time_get(8, &f);
  // The request carries no payload. The target first sends the request's BXI ACK (on arrival), then
  // reads the reply by DMA (one packet: all of it) and sends it.
  EXPECT_NEAR(measured,
              f.pcie(f.nic.command_bytes) + f.wire(0) + f.serialization(0) + f.dma_start(8) + f.wire(8) + f.deposit(8),
              kPicosecond);
}

TEST(MessageNicTiming, Get256Bytes)
{
  Figures f;
  double measured = time_get(256, &f);
  EXPECT_NEAR(measured,
              f.pcie(f.nic.command_bytes) + f.wire(0) + f.serialization(0) + f.dma_start(256) + f.wire(256) +
                  f.deposit(256),
              kPicosecond);
}

TEST(MessageNicTiming, Get64KiB)
{
  Figures f;
  const size_t size = 64 * 1024;
  double measured   = time_get(size, &f);
  EXPECT_NEAR(measured,
              f.pcie(f.nic.command_bytes) + f.wire(0) + f.serialization(0) + f.dma_start(size) + f.wire(size) +
                  f.deposit(size),
              kPicosecond);
}
