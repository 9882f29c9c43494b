// The link arbiter both NIC models share (hw/actors/PacketFairTurns): whole messages, turns counted in
// packets.

#include "hw/actors/PacketFairTurns.hpp"

#include <gtest/gtest.h>

#include <string>

using bxisim::hw::PacketFairTurns;
using Turns = PacketFairTurns<2>;

namespace
{
constexpr int kRequests  = 0;
constexpr int kResponses = 1;

/** The networks granted `grants` times in a row while both always have a message of these sizes. */
std::string grants_while_backlogged(Turns& turns, uint64_t request_packets, uint64_t response_packets, int grants)
{
  std::string order;
  for (int i = 0; i < grants; ++i)
    order += turns.grant({request_packets, response_packets}) == kRequests ? 'Q' : 'R';
  return order;
}
} // namespace

TEST(PacketFairTurns, ANetworkAloneGoesAtOnceWhateverItsMessageSize)
{
  Turns turns;
  EXPECT_EQ(turns.next({0, 0}), -1);
  EXPECT_EQ(turns.grant({0, 0}), -1);
  EXPECT_EQ(turns.grant({1000, 0}), kRequests);
  EXPECT_EQ(turns.grant({0, 3}), kResponses);
  EXPECT_EQ(turns.grant({7, 0}), kRequests);
}

TEST(PacketFairTurns, MessagesOfOnePacketAlternate)
{
  Turns turns; // the first round visits the requests first
  EXPECT_EQ(grants_while_backlogged(turns, 1, 1, 6), "QRQRQR");
}

TEST(PacketFairTurns, AcknowledgementsGoByAStreamOfLargeRequestsAsManyPacketsAsEachRequest)
{
  // A stream of 8-packet requests against 1-packet acknowledgements: eight of them per request, so
  // both networks get the same share of the link's packets (seven before the first request: its credit
  // grew first in the first round).
  Turns turns;
  std::string order = grants_while_backlogged(turns, 8, 1, 26);
  EXPECT_EQ(order, "RRRRRRRQRRRRRRRRQRRRRRRRRQ");
}

TEST(PacketFairTurns, NextDecidesWithoutTakingATurn)
{
  Turns turns;
  EXPECT_EQ(turns.next({8, 1}), kResponses);
  EXPECT_EQ(turns.next({8, 1}), kResponses);
  EXPECT_EQ(grants_while_backlogged(turns, 8, 1, 8), "RRRRRRRQ");
}

TEST(PacketFairTurns, ALargeMessageIsNotStarvedBySmallOnes)
{
  Turns turns;
  std::string order = grants_while_backlogged(turns, 300, 1, 301);
  EXPECT_EQ(order.find('Q'), 299U);
}

TEST(PacketFairTurns, ANetworkWithNothingToSendKeepsNoCredit)
{
  // The requests earn 5 packets of credit waiting behind acknowledgements, then their queue empties:
  // when a request comes back, it starts from nothing again.
  Turns turns;
  EXPECT_EQ(grants_while_backlogged(turns, 8, 1, 5), "RRRRR");
  EXPECT_EQ(turns.grant({0, 1}), kResponses);
  EXPECT_EQ(grants_while_backlogged(turns, 8, 1, 8), "RRRRRRRQ"); // with its 5 packets kept: "RRQ"
}

TEST(PacketFairTurns, ANetworkWhoseTurnGoesOnSendsWhatItsCreditCovers)
{
  // Requests earn 7 packets of credit, get their turn with the 8th and send two 4-packet messages in it.
  Turns turns;
  EXPECT_EQ(grants_while_backlogged(turns, 8, 1, 7), "RRRRRRR");
  EXPECT_EQ(turns.grant({4, 1}), kRequests);
  EXPECT_EQ(turns.grant({4, 1}), kRequests);
  EXPECT_EQ(turns.grant({4, 1}), kResponses);
}
