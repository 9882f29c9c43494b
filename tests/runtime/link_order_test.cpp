// A NIC's link sends one message at a time, whatever its virtual network (thesis 2.2.3): a request
// waits for the response the NIC is sending, at both NIC levels. request_behind_reply: rank 0 serves
// rank 1's Get of 1 MiB and, 5 us after the Get was issued, Puts 8 B to rank 2; its Put waits for the
// rest of the reply. Across nodes the Put waits for the link; inside a node (all three ranks on one
// node) its ACK is a response behind the reply on the same network. Before the message model took
// turns on the link, its Put passed the reply across nodes (2.5 us instead of 93 us), and a ring of
// MPI_Sendrecv of 2 MB ran twice as fast at message as at cycle.
//
// With a fourth rank Putting 1 MiB to rank 1 at the same time, the reply shares the way into rank 1's
// node and takes twice as long: the link stays the reply's until it is through (the message model
// released it after the reply's time at full rate: 140 us instead of 187), and rank 1's NIC writes
// the two payloads to memory as their packets arrive (the cycle model's DMA writer wrote the second
// one after the whole first: reply 274 us at cycle against 191 at message). Inside a node, where the
// payloads come faster than the PCIe takes them, the write engine is what both wait for.

#include "RunOutput.hpp"
#include "config/Parameters.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

using namespace bxisim::test;

namespace
{
struct Figures {
  double alone;
  double crossed;
  double reply;
  double put; // the fourth rank's, when there is one
};

Figures run_at(const std::string& level, int ranks, int ppn)
{
  auto result = run_bxisim(fmt::format("run -n {} --ppn {} --no-cpu-simulation --level {} {} 1048576 5e-6", ranks, ppn,
                                       level, test_program("request_behind_reply")));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  auto by_rank = fields_by_rank(result.output);
  return {number(by_rank[0], "alone"), number(by_rank[0], "crossed"), number(by_rank[1], "reply"),
          ranks == 4 ? number(by_rank[3], "put") : 0.0};
}

void expect_the_request_to_wait_for_the_reply(int ppn)
{
  const double delay = 5e-6;
  std::map<std::string, Figures> at;
  for (const char* level : {"message", "cycle"}) {
    Figures f = at[level] = run_at(level, 3, ppn);
    // the reply started within a few microseconds of the Get; the Put waits for what is left of it
    EXPECT_GT(f.crossed - f.alone, f.reply - delay - 5e-6)
        << level << ": alone " << f.alone << " s, crossed " << f.crossed << " s, reply " << f.reply << " s";
    EXPECT_LT(f.crossed - f.alone, f.reply) << level;
  }
  EXPECT_NEAR(at["message"].crossed, at["cycle"].crossed, 0.01 * at["cycle"].crossed);
}
} // namespace

void expect_the_link_held_until_the_slowed_reply_is_through(int ppn)
{
  const double delay = 5e-6;
  std::map<std::string, Figures> at;
  for (const char* level : {"message", "cycle"}) {
    Figures f = at[level] = run_at(level, 4, ppn);
    EXPECT_GT(f.crossed - f.alone, 0.85 * (f.reply - delay))
        << level << ": alone " << f.alone << " s, crossed " << f.crossed << " s, reply " << f.reply << " s";
  }
  EXPECT_NEAR(at["message"].reply, at["cycle"].reply, 0.01 * at["cycle"].reply);
}

TEST(LinkOrder, ARequestWaitsForTheReplyItsNicIsSendingAcrossNodes)
{
  expect_the_request_to_wait_for_the_reply(1);
}

TEST(LinkOrder, ARequestWaitsForTheReplyItsNicIsSendingInsideANode)
{
  expect_the_request_to_wait_for_the_reply(3);
}

TEST(LinkOrder, ARequestToAnotherNodeWaitsForTheReplyItsNicSendsInsideTheNode)
{
  expect_the_request_to_wait_for_the_reply(2);
}

TEST(LinkOrder, AReplySlowedDownFurtherOnHoldsTheLinkUntilThroughAcrossNodes)
{
  expect_the_link_held_until_the_slowed_reply_is_through(1);
}

// Inside a node the reply comes over the loopback while the Put comes over the wire, each at about
// the link's rate: together faster than the PCIe takes them. The NIC's write engine cannot write the
// 2 MiB faster than the PCIe's rate: the later of the two operations ends no earlier, at both levels
// (the message model's engine takes the payloads in the order they started, the cycle model's as
// their chunks arrive, so it is the Put that waits at message and both at cycle).
TEST(LinkOrder, AReplyAndAPutStreamingInTogetherShareTheWriteEngineInsideANode)
{
  auto p           = bxisim::config::Parameters::defaults();
  double pcie_rate = std::min(p.real("pcie.bus_bandwidth"), p.real("pcie.transfer_bandwidth"));
  std::map<std::string, double> later;
  for (const char* level : {"message", "cycle"}) {
    Figures f     = run_at(level, 4, 2);
    later[level]  = std::max(f.reply, f.put);
    double engine = 2.0 * 1048576 / pcie_rate;
    EXPECT_GT(later[level], engine) << level << ": reply " << f.reply << " s, put " << f.put << " s";
  }
  EXPECT_NEAR(later["message"], later["cycle"], 0.03 * later["cycle"]);
}

namespace
{
// A Put to a node the machine does not have is undeliverable at both NIC levels (PtlPut succeeds, its
// ACK says PTL_NI_UNDELIVERABLE; the cycle model's PtlPut failed with an internal error), and it does
// not keep the link from the 64 KiB reply queued behind it (the message model could leave the link
// reserved for it).
void expect_an_undeliverable_put_to_let_the_reply_by(int ppn)
{
  for (const char* level : {"message", "cycle"}) {
    auto result = run_bxisim(fmt::format("run -n 2 --ppn {} --no-cpu-simulation --level {} {}", ppn, level,
                                         test_program("undeliverable_behind_put")));
    ASSERT_EQ(result.exit_code, 0) << level << "\n" << result.output;
    EXPECT_NE(result.output.find("targets node 999, which this machine does not have"), std::string::npos)
        << result.output;
    auto by_rank = fields_by_rank(result.output);
    EXPECT_EQ(number(by_rank[0], "undeliverable"), 1) << level; // PTL_NI_UNDELIVERABLE
    EXPECT_EQ(number(by_rank[1], "reply_fail"), 0) << level;
    // the 64 KiB Put, the reply and their acknowledgements: about 15 us
    EXPECT_LT(number(by_rank[1], "reply"), 20e-6) << level;
  }
}
} // namespace

TEST(LinkOrder, APutToAMissingNodeIsUndeliverableAndKeepsNoReplyWaitingAcrossNodes)
{
  expect_an_undeliverable_put_to_let_the_reply_by(1);
}

TEST(LinkOrder, APutToAMissingNodeIsUndeliverableAndKeepsNoReplyWaitingInsideANode)
{
  expect_an_undeliverable_put_to_let_the_reply_by(2);
}
