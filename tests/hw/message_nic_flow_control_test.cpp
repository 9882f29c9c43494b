// NIC flow control in the message model (thesis 7.1; the cycle model's wire arbiter has the same
// rule): with a limit of L requests in flight towards a destination NIC (or process), a NIC sends a
// new request only once an earlier one's BXI ACK is back. Rank 0 posts kPuts Puts of 8 B (inline,
// SEND event as soon as sent) to rank 1 at once; with a limit of 1 consecutive departures are
// separated by exactly one round trip: the request's wire time and its BXI ACK's. Across nodes and
// inside a node (the NIC's loopback).

#include "MessageNicWorld.hpp"

#include <gtest/gtest.h>

using bxisim::test::MessageNicWorld;
using bxisim::test::Placement;
using bxisim::test::PortalsEndpoint;
using Figures = bxisim::test::MessageNicFigures;

namespace
{
constexpr ptl_match_bits_t kBits = 0x7;
constexpr int kPuts              = 6;
constexpr size_t kSize           = 8;
constexpr double kPicosecond     = 1e-12;

/** The times of the SEND events of kPuts Puts posted at once; `stalls`: the model's flow stalls. */
std::vector<double> send_times(Placement placement, const std::vector<std::string>& parameters, Figures* figures,
                               uint64_t* stalls)
{
  MessageNicWorld world(parameters, placement);
  *figures = Figures(world);
  std::vector<double> times;
  world.run(
      [&] {
        auto endpoint = PortalsEndpoint::open(kSize);
        auto md       = endpoint.bind();
        world.ready();
        for (int i = 0; i < kPuts; ++i)
          ASSERT_EQ(PtlPut(md, 0, kSize, PTL_NO_ACK_REQ, world.address_of(1), 0, kBits, 0, nullptr, 0), PTL_OK);
        for (int i = 0; i < kPuts; ++i) {
          endpoint.wait_for(PTL_EVENT_SEND);
          times.push_back(simgrid::s4u::Engine::get_clock());
        }
      },
      [&] {
        auto endpoint = PortalsEndpoint::open(kSize);
        endpoint.expose(kBits);
        world.ready();
        for (int i = 0; i < kPuts; ++i)
          endpoint.wait_for(PTL_EVENT_PUT);
      });
  *stalls = world.model().statistics().flow_stalls;
  return times;
}

void expect_one_round_trip_apart(Placement placement, const std::string& limit)
{
  Figures f;
  uint64_t stalls = 0;
  auto limited    = send_times(placement, {limit + "=1"}, &f, &stalls);
  ASSERT_EQ(limited.size(), static_cast<size_t>(kPuts));
  // The request (one packet) reaches the target NIC, whose RX sends its BXI ACK (one packet) at once;
  // on its arrival the initiator's request TX sends the next Put, already waiting in its queue.
  double round_trip = f.wire(kSize) + f.wire(0);
  for (int i = 1; i < kPuts; ++i)
    EXPECT_NEAR(limited[i] - limited[i - 1], round_trip, kPicosecond) << "Put " << i;
  EXPECT_EQ(stalls, static_cast<uint64_t>(kPuts - 1));
}

/** Without flow control the Puts follow one another at the wire's pace: one frame's serialization
 * apart (the rank's commands, 64 B on the PCIe each, come faster). Inside a node the NIC's loopback
 * carries each request and its BXI ACK (one packet too), and TX waits for a frame to be through the
 * loopback: two serializations apart. */
void expect_no_wait(Placement placement)
{
  Figures f;
  uint64_t stalls = 0;
  auto times      = send_times(placement, {}, &f, &stalls);
  ASSERT_EQ(times.size(), static_cast<size_t>(kPuts));
  ASSERT_LT(f.pcie(static_cast<double>(f.nic.command_bytes)) - f.pcie_latency, f.serialization(kSize));
  double pace = placement == Placement::OneNode ? f.serialization(kSize) + f.serialization(0) : f.serialization(kSize);
  for (int i = 1; i < kPuts; ++i)
    EXPECT_NEAR(times[i] - times[i - 1], pace, kPicosecond) << "Put " << i;
  EXPECT_EQ(stalls, 0U);
}
} // namespace

TEST(MessageNicFlowControl, NicLimitOfOneWaitsForEachBxiAckAcrossNodes)
{
  expect_one_round_trip_apart(Placement::TwoNodes, "nic.flow_control_nic_limit");
}

TEST(MessageNicFlowControl, NicLimitOfOneWaitsForEachBxiAckInsideANode)
{
  expect_one_round_trip_apart(Placement::OneNode, "nic.flow_control_nic_limit");
}

TEST(MessageNicFlowControl, ProcessLimitOfOneWaitsForEachBxiAckAcrossNodes)
{
  expect_one_round_trip_apart(Placement::TwoNodes, "nic.flow_control_process_limit");
}

TEST(MessageNicFlowControl, ProcessLimitOfOneWaitsForEachBxiAckInsideANode)
{
  expect_one_round_trip_apart(Placement::OneNode, "nic.flow_control_process_limit");
}

TEST(MessageNicFlowControl, OffSendsWithoutWaitingAcrossNodes)
{
  expect_no_wait(Placement::TwoNodes);
}

TEST(MessageNicFlowControl, OffSendsWithoutWaitingInsideANode)
{
  expect_no_wait(Placement::OneNode);
}
