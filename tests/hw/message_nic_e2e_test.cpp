// End-to-end reliability: a frame the network loses is sent again after the E2E timeout and the
// operation completes once; across nodes and inside a node (frames through the NIC's loopback).

#include "MessageNicWorld.hpp"

#include <gtest/gtest.h>

using bxisim::test::MessageNicWorld;
using bxisim::test::Placement;
using bxisim::test::PortalsEndpoint;

namespace
{
constexpr ptl_match_bits_t kBits = 7;

constexpr double kPicosecond = 1e-12;

struct Outcome {
  bxisim::test::MessageNicFigures figures;
  double ack_time = -1;
  int put_events  = 0;
  int ack_events  = 0;
  int fail_type   = -1;
};

/** One 8-byte Put with an ACK; the target then counts PUT events until well after everything settled. */
Outcome put_once(std::vector<std::string> parameters, Placement placement)
{
  if (placement == Placement::OneNode)
    parameters.emplace_back("bxi.loopback_latency=25ns"); // not the default 0, so that it shows in the times
  MessageNicWorld world(parameters, placement);
  Outcome outcome;
  outcome.figures = bxisim::test::MessageNicFigures(world);
  world.run(
      [&] {
        auto endpoint = PortalsEndpoint::open(8);
        auto md       = endpoint.bind();
        world.ready();
        EXPECT_EQ(PtlPut(md, 0, 8, PTL_ACK_REQ, world.address_of(1), 0, kBits, 0, nullptr, 0), PTL_OK);
        auto ack          = endpoint.wait_for(PTL_EVENT_ACK);
        outcome.ack_time  = simgrid::s4u::Engine::get_clock();
        outcome.fail_type = ack.ni_fail_type;
        outcome.ack_events++;
      },
      [&] {
        auto endpoint = PortalsEndpoint::open(8);
        endpoint.expose(kBits);
        world.ready();
        // Count every PUT event for long enough to see a duplicate delivery, were there one.
        ptl_event_t event;
        unsigned which;
        while (PtlEQPoll(&endpoint.eq, 1, 50 /* ms */, &event, &which) == PTL_OK)
          if (event.type == PTL_EVENT_PUT)
            outcome.put_events++;
      });
  return outcome;
}

class MessageNicE2e : public testing::TestWithParam<Placement>
{
};

std::string placement_name(const testing::TestParamInfo<Placement>& param)
{
  return param.param == Placement::OneNode ? "OneNode" : "TwoNodes";
}
} // namespace

TEST_P(MessageNicE2e, NoLossDeliversOnce)
{
  Outcome normal = put_once({}, GetParam());
  const auto& f  = normal.figures;
  EXPECT_EQ(normal.put_events, 1);
  EXPECT_NEAR(normal.ack_time, f.pcie(f.nic.command_bytes) + f.wire(8) + f.deposit(8) + f.wire(0), kPicosecond);
}

TEST_P(MessageNicE2e, LostRequestIsSentAgainAndDeliveredOnce)
{
  Outcome lost  = put_once({"nic.drop_frames=1", "nic.e2e_timeout=10us"}, GetParam());
  const auto& f = lost.figures;
  EXPECT_EQ(lost.put_events, 1);
  EXPECT_EQ(lost.ack_events, 1);
  EXPECT_EQ(lost.fail_type, PTL_NI_OK);
  // Frame 1 (the request) entered the wire after the command; it is sent again one timeout after it
  // left the NIC.
  EXPECT_NEAR(lost.ack_time,
              f.pcie(f.nic.command_bytes) + f.tx_hold(8) + f.nic.e2e_timeout + f.wire(8) + f.deposit(8) + f.wire(0),
              kPicosecond);
}

TEST_P(MessageNicE2e, LostAckIsSentAgain)
{
  // Frame 2 is the target's BXI ACK of the request, frame 3 its Portals ACK: the latter is lost, and
  // the target's E2E sends it again one timeout after it left (it left after the deposit).
  Outcome lost  = put_once({"nic.drop_frames=3", "nic.e2e_timeout=10us"}, GetParam());
  const auto& f = lost.figures;
  EXPECT_EQ(lost.put_events, 1);
  EXPECT_EQ(lost.ack_events, 1);
  EXPECT_NEAR(lost.ack_time,
              f.pcie(f.nic.command_bytes) + f.wire(8) + f.deposit(8) + f.tx_hold(0) + f.nic.e2e_timeout + f.wire(0),
              kPicosecond);
}

TEST_P(MessageNicE2e, LostBxiAckMakesADuplicateThatIsNotDeliveredTwice)
{
  // Frame 2, the BXI ACK of the request, is lost: the initiator sends the request again after the
  // timeout; the target recognises the copy, acknowledges it and delivers nothing more.
  Outcome lost  = put_once({"nic.drop_frames=2", "nic.e2e_timeout=10us"}, GetParam());
  const auto& f = lost.figures;
  EXPECT_EQ(lost.put_events, 1);
  EXPECT_EQ(lost.ack_events, 1);
  EXPECT_NEAR(lost.ack_time, f.pcie(f.nic.command_bytes) + f.wire(8) + f.deposit(8) + f.wire(0), kPicosecond);
}

TEST_P(MessageNicE2e, TooManyLossesMakeTheRequestUndeliverable)
{
  Outcome lost = put_once({"nic.drop_frames=1,2,3", "nic.e2e_retries=2", "nic.e2e_timeout=10us"}, GetParam());
  EXPECT_EQ(lost.put_events, 0);
  EXPECT_EQ(lost.fail_type, PTL_NI_UNDELIVERABLE);
}

/** The link a frame between the two ranks crosses: node1's BXI link, or node0's loopback inside a node. */
std::string crossed_link(Placement placement)
{
  return placement == Placement::OneNode ? "node0-nic-loopback" : "node1-bxi";
}

TEST_P(MessageNicE2e, LinkDownLosesTheRequestUntilItComesBack)
{
  // The link is down while the request travels (from 0 to 5 us) and up again before E2E sends it
  // again, 10 us after it left: the same times as a request lost by nic.drop_frames=1.
  Outcome lost =
      put_once({"fault.links=link=" + crossed_link(GetParam()) + ",down=0,up=5us", "nic.e2e_timeout=10us"}, GetParam());
  const auto& f = lost.figures;
  EXPECT_EQ(lost.put_events, 1);
  EXPECT_EQ(lost.ack_events, 1);
  EXPECT_EQ(lost.fail_type, PTL_NI_OK);
  EXPECT_NEAR(lost.ack_time,
              f.pcie(f.nic.command_bytes) + f.tx_hold(8) + f.nic.e2e_timeout + f.wire(8) + f.deposit(8) + f.wire(0),
              kPicosecond);
}

TEST_P(MessageNicE2e, LinkThatNeverComesBackMakesTheRequestUndeliverable)
{
  Outcome lost = put_once(
      {"fault.links=link=" + crossed_link(GetParam()) + ",down=0", "nic.e2e_retries=2", "nic.e2e_timeout=10us"},
      GetParam());
  EXPECT_EQ(lost.put_events, 0);
  EXPECT_EQ(lost.ack_events, 1);
  EXPECT_EQ(lost.fail_type, PTL_NI_UNDELIVERABLE);
}

INSTANTIATE_TEST_SUITE_P(Placements, MessageNicE2e, testing::Values(Placement::TwoNodes, Placement::OneNode),
                         placement_name);
