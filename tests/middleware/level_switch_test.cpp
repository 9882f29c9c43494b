// Switching MPI back ends at region boundaries (middleware/LevelSwitch.hpp): the same program runs
// all-smpi, all-message, all-cycle and mixed, across nodes (--ppn 1) and inside nodes (--ppn 2). Its
// phases make the same exchange, start at known simulated times, check what they receive, and print
// their duration per rank. A phase at the smpi level of a mixed run takes exactly the time it takes
// in the all-smpi run (a boundary takes no simulated time, and a mixed run keeps the node model's
// network model at every level, as the all-smpi run of a program with regions does). A phase at an
// OpenMPI level takes the time of the same phase in the run at that level within 5%: OpenMPI keeps
// state from one exchange to the next and its copy starts at the first boundary into it, so its
// history differs, and the polling delay (up to 1 us per empty poll) shifts times (measured: up to
// 4% on this 0.6 ms exchange; benchmarks/region_switch checks 1% on a longer phase).

#include "tests/runtime/RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

using namespace bxisim::test;
using testing::HasSubstr;

namespace
{
const std::string kPrograms = BXISIM_MW_TEST_PROGRAMS;
constexpr int kRanks        = 4;

CommandResult run_switch(const std::string& options, const std::string& mode, int ppn)
{
  return run_command("'" BXISIM_BINARY "' run --no-cpu-simulation -n " + std::to_string(kRanks) + " --ppn " +
                     std::to_string(ppn) + " " + options + " " + kPrograms + "/level_switch " + mode + " 2>&1");
}

/** Every rank printed ok=1 and finalized=1, and no bad_ check: returns each rank's fields. */
std::map<int, Fields> check_ok(const CommandResult& result)
{
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, testing::Not(HasSubstr("bad_"))) << result.output;
  std::map<int, Fields> fields = fields_by_rank(result.output);
  EXPECT_EQ(static_cast<int>(fields.size()), kRanks) << result.output;
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank << "\n" << result.output;
    EXPECT_EQ(mine["finalized"], "1") << "rank " << rank;
  }
  return fields;
}

const char* kAllSmpi    = "--level smpi --region second=smpi --region fourth=smpi";
const char* kAllMessage = "--level message --region first=message --region third=message";
const char* kAllCycle   = "--level cycle --region first=cycle --region second=cycle --region third=cycle --region "
                          "fourth=cycle";

class LevelSwitch : public testing::TestWithParam<int> // ranks per node
{
};
} // namespace

TEST_P(LevelSwitch, SmpiAndMessageAlternateOnTheWorldCommunicator)
{
  auto smpi    = check_ok(run_switch(kAllSmpi, "world", GetParam()));
  auto message = check_ok(run_switch(kAllMessage, "world", GetParam()));
  auto result  = run_switch("--level smpi", "world", GetParam()); // the code's levels: smpi, message, smpi, message
  auto mixed   = check_ok(result);
  EXPECT_THAT(result.output, HasSubstr("levels (4 switches"));
  for (int rank = 0; rank < kRanks; ++rank) {
    for (const char* key : {"phase1", "phase3"}) // clocks read at 1 ns resolution
      EXPECT_NEAR(number(mixed[rank], key), number(smpi[rank], key), 4e-9) << "rank " << rank << " " << key;
    for (auto [mixed_key, message_key] : {std::pair{"phase2", "phase2"}, std::pair{"phase4", "phase4"}}) {
      double reference = number(message[rank], message_key);
      EXPECT_NEAR(number(mixed[rank], mixed_key), reference, 0.05 * reference) << "rank " << rank << " " << mixed_key;
    }
  }
  // The OpenMPI levels model the NIC and PCIe: slower than SMPI's flows on the same exchange.
  EXPECT_GT(number(message[0], "phase2"), number(smpi[0], "phase2"));
}

TEST_P(LevelSwitch, ARegionReMappedToCycleRunsOnTheCycleNic)
{
  auto cycle  = check_ok(run_switch(kAllCycle, "world", GetParam()));
  auto smpi   = check_ok(run_switch(kAllSmpi, "world", GetParam()));
  auto result = run_switch("--level smpi --region second=cycle --region fourth=smpi", "world", GetParam());
  auto mixed  = check_ok(result);
  EXPECT_THAT(result.output, HasSubstr("levels (2 switches"));
  for (int rank = 0; rank < kRanks; ++rank) {
    EXPECT_NEAR(number(mixed[rank], "phase2"), number(cycle[rank], "phase2"), 0.05 * number(cycle[rank], "phase2"));
    for (const char* key : {"phase1", "phase3", "phase4"})
      EXPECT_NEAR(number(mixed[rank], key), number(smpi[rank], key), 4e-9) << key;
  }
}

TEST_P(LevelSwitch, RequestsPendingAtABoundaryCompleteInTheirBackEnd)
{
  auto result = run_switch("--level smpi", "pending", GetParam());
  check_ok(result);
  EXPECT_THAT(result.output, HasSubstr("levels (2 switches"));
}

TEST_P(LevelSwitch, NestedRegionsSwitchAndSwitchBack)
{
  auto result = run_switch("--level smpi", "nested", GetParam());
  check_ok(result);
  // smpi -> message (outer) -> smpi (inner) -> message (outer again) -> smpi (the run's level)
  EXPECT_THAT(result.output, HasSubstr("levels (4 switches"));
  auto all_smpi = check_ok(run_switch("--level smpi --region outer=smpi", "nested", GetParam()));
  auto mixed    = fields_by_rank(result.output);
  for (int rank = 0; rank < kRanks; ++rank)
    EXPECT_NEAR(number(mixed[rank], "phase2"), number(all_smpi[rank], "phase2"), 4e-9);
}

TEST_P(LevelSwitch, HandlesMadeAtOneLevelAreUsableAtTheOther)
{
  // Datatypes (of every constructor: a subarray, hindexed and indexed-block types were unknown at the other level
  // before, and a darray), a user operation (called with bxisim's datatype handles), a split and a
  // duplicated communicator made at smpi, used at message and back at smpi; a datatype made at message used at
  // smpi. Starting from either level, and with cycle as the OpenMPI level.
  for (const char* options : {"--level smpi", "--level message", "--level cycle --region second=cycle"}) {
    auto result = run_switch(options, "derived", GetParam());
    check_ok(result);
    EXPECT_THAT(result.output,
                HasSubstr(std::string(options) == "--level smpi" ? "levels (2 switches" : "levels (4 switches"))
        << options;
  }
}

TEST_P(LevelSwitch, AttributesErrorHandlersAndInfosCarryAcrossBoundaries)
{
  // Keyvals, attributes (copied by a dup at either level, deleted with their delete function),
  // predefined attributes, MPI_ERRORS_RETURN and a user error handler, an info's entries: made in
  // "first", used in "second" and "third" at the other level and back. From either level.
  for (const char* options :
       {"--level smpi", "--level message --region first=message --region second=smpi --region third=message"}) {
    auto result = run_switch(options, "attributes", GetParam());
    check_ok(result);
    EXPECT_THAT(result.output, HasSubstr("levels (2 switches")) << options;
  }
}

TEST_P(LevelSwitch, MessagesSentBeforeABoundaryAreReceivedAfterIt)
{
  // A small Send and a large Isend at smpi, received at message (Recv from any source, Sendrecv):
  // each receive goes where its message waits; the sender completes its Isend at message.
  check_ok(run_switch("--level smpi", "cross", GetParam()));
}

TEST_P(LevelSwitch, AMessageSentToAReceivePendingAtTheOtherLevelIsForwardedToIt)
{
  // Rank 1 posts an Irecv at smpi, rank 0 sends at message: the message goes to the receive, in SMPI.
  check_ok(run_switch("--level smpi", "orphan_send", GetParam()));
}

TEST_P(LevelSwitch, AReceiveCancelledAtOneLevelTakesNoMessageSentAtTheOther)
{
  // A receive cancelled at smpi (completed, or never), the same receive posted again at message: the
  // message sent there goes to the new one (it went to the cancelled one, and the run deadlocked).
  // And the other way round (message then smpi).
  for (const char* options : {"--level smpi", "--level message --region first=message --region second=smpi"})
    for (const char* how : {"waited", "unwaited"})
      check_ok(run_switch(options, std::string("cancelled ") + how, GetParam()));
}

TEST_P(LevelSwitch, MessagesCrossBoundariesOnDuplicatedAndSplitCommunicators)
{
  // Receives posted before the boundary on a duplicate and a split of MPI_COMM_WORLD get the messages
  // sent after it; a message sent before it is received after it; a receive tested in a loop and
  // posted again at the new level is matched there. smpi then message, and message then smpi.
  for (const char* options : {"--level smpi", "--level message --region first=message --region second=smpi"}) {
    auto result = run_switch(options, "forward", GetParam());
    check_ok(result);
    EXPECT_THAT(result.output, HasSubstr("levels (2 switches")) << options;
  }
}

TEST_P(LevelSwitch, AReceiveOfSmpiTestedInALoopAtMessageCostsWhatOpenMpisPollsCost)
{
  // Each rank posts a receive in "first" (smpi) and tests it in a loop in "second" (message), where its left
  // neighbour sends at 10 ms. The test in SMPI injects none of SMPI's smpi/test (100 us before the first test,
  // growing: the loop saw the message 100 us after its sending); each one that finds nothing costs an empty
  // poll of OpenMPI over the NIC (cpu.poll_delay_*, at most 1 us), so the loop sees it a few microseconds
  // after its sending. The other way round (posted at message, tested at smpi), the message is received too.
  auto at_message = check_ok(run_switch("--level smpi", "polled", GetParam()));
  auto at_smpi =
      check_ok(run_switch("--level message --region first=message --region second=smpi", "polled", GetParam()));
  for (int rank = 0; rank < kRanks; ++rank) {
    EXPECT_LT(number(at_message[rank], "polled_after"), 10e-6) << "rank " << rank;
    EXPECT_GT(number(at_smpi[rank], "polled_after"), 0.0) << "rank " << rank;
  }
}

TEST_P(LevelSwitch, AReceiveNothingIsSentToIsReportedAsADeadlockNamingItsRegions)
{
  // Rank 1 posts an Irecv at smpi and waits for it at message; nobody sends: a deadlock, reported
  // with the wait's region and the receive's, rather than left to hang.
  auto waited = run_switch("--level smpi", "orphan_wait", GetParam());
  EXPECT_EQ(waited.exit_code, 3) << waited.output;
  EXPECT_THAT(waited.output, HasSubstr("rank 1 waits for the end of MPI_Wait in region 'second' (message) for the "
                                       "receive from rank 0 (MPI_COMM_WORLD rank), tag 21, on MPI_COMM_WORLD, posted "
                                       "in region 'first' (smpi) at the smpi level"))
      << waited.output;
  EXPECT_THAT(waited.output, HasSubstr("rank 0 waits for the other ranks at the boundary of region 'second'"));
}

TEST_P(LevelSwitch, ARankAbortingWhileTheOthersWaitAtABoundaryEndsTheJobWithItsCode)
{
  // Rank 0 calls MPI_Abort(MPI_COMM_WORLD, 43) at 1 ms while ranks 1-3 wait (since time 0) at the
  // boundary that ends the region: at smpi (run level message) and at message (run level smpi).
  for (auto [options, region] : {std::pair{"--level message", "smpi"}, std::pair{"--level smpi", "message"}}) {
    auto result = run_switch(options, std::string("abort_at_boundary ") + region, GetParam());
    EXPECT_EQ(result.exit_code, 43) << options << "\n" << result.output;
    EXPECT_THAT(result.output, HasSubstr("rank 0 called MPI_Abort with error code 43")) << result.output;
    EXPECT_THAT(result.output, HasSubstr("rank 0 ended the job with code 43")) << result.output;
    EXPECT_THAT(result.output, testing::Not(HasSubstr("crashed"))) << result.output;
    EXPECT_THAT(result.output, testing::Not(HasSubstr("Impossible"))) << result.output;
  }
}

TEST_P(LevelSwitch, TheSimulatedTimeLimitReachedWhileRanksWaitAtABoundaryEndsTheRun)
{
  // Rank 0 would abort at 1 ms; the limit (0.5 ms) comes first, while ranks 1-3 wait at the boundary.
  auto result = run_switch("--level smpi --sim-time-limit 0.0005", "abort_at_boundary message", GetParam());
  EXPECT_EQ(result.exit_code, 5) << result.output;
  EXPECT_THAT(result.output, HasSubstr("ranks 1-3: waits for the other ranks at the boundary of region 'second'"))
      << result.output;
  EXPECT_THAT(result.output, testing::Not(HasSubstr("crashed"))) << result.output;
}

namespace
{
const char* kSmpiFirst    = "--level smpi"; // the code's levels: "first" smpi, "second" message
const char* kMessageFirst = "--level message --region first=message --region second=smpi";
const char* kFirstTwoSmpi = "--level smpi --region second=smpi";
const char* kFirstTwoMsg  = "--level message --region first=message";

/** `mixed` within 5% of `reference` (an OpenMPI level: its history differs from one run to another). */
void expect_close(double mixed, double reference, const std::string& what)
{
  EXPECT_NEAR(mixed, reference, 0.05 * reference) << what;
}
} // namespace

TEST_P(LevelSwitch, WildcardReceivesPendingAtTheOtherLevelGetForwardedMessagesWithTheirTrueStatus)
{
  // Rank 1's receives posted in "first" from rank 0 with MPI_ANY_TAG (twice), from MPI_ANY_SOURCE with
  // tag 8, from MPI_ANY_SOURCE with MPI_ANY_TAG: the first takes rank 0's message of "first", the
  // others the messages sent in "second" at 0.1 s (rank 0, tag 6), 0.11 s (rank 2, tag 8) and 0.12 s
  // (rank 0, tag 9), forwarded; rank 2's message at 0.13 s finds no receive left and is received at
  // the level of "second". Statuses are checked by the program. Rank 1's Waitall returns when the
  // last forwarded message arrived: as in the run at the receives' level.
  for (auto [options, reference] : {std::pair{kSmpiFirst, kFirstTwoSmpi}, std::pair{kMessageFirst, kFirstTwoMsg}}) {
    auto mixed_result = run_switch(options, "wildcard", GetParam());
    auto mixed        = check_ok(mixed_result);
    auto single       = check_ok(run_switch(reference, "wildcard", GetParam()));
    EXPECT_THAT(mixed_result.output, HasSubstr("levels (2 switches")) << options;
    double done = number(mixed[1], "wild_done");
    EXPECT_GT(done, 0.12) << options;
    if (std::string(options) == kSmpiFirst)
      EXPECT_NEAR(done, number(single[1], "wild_done"), 4e-9) << options;
    else
      expect_close(done - 0.12, number(single[1], "wild_done") - 0.12, options);
  }
}

TEST_P(LevelSwitch, MessagesFromOneSenderAreReceivedInItsOrderAcrossLevels)
{
  // Rank 0 sends tags 9, 5 in "first" and 5, 7, 9 in "second" (7 forwarded to rank 1's receive posted
  // in "first"); rank 1's receives in "second" (any tag, tag 5, any tag, the receive of "first", any
  // tag) get 9, 5, 5, 7, 9: an earlier message not yet taken is matched before a later one, whatever
  // the level it waits at. Rank 1's first receive takes the message waiting at the level of "first",
  // in the time it takes there.
  for (auto [options, reference] : {std::pair{kSmpiFirst, kFirstTwoSmpi}, std::pair{kMessageFirst, kFirstTwoMsg}}) {
    auto mixed  = check_ok(run_switch(options, "order", GetParam()));
    auto single = check_ok(run_switch(reference, "order", GetParam()));
    if (std::string(options) == kSmpiFirst)
      EXPECT_NEAR(number(mixed[1], "order_recv"), number(single[1], "order_recv"), 4e-9) << options;
    else
      EXPECT_NEAR(number(mixed[1], "order_recv"), number(single[1], "order_recv"),
                  0.05 * number(single[1], "order_recv") + 4e-9)
          << options;
  }
}

TEST_P(LevelSwitch, PersistentRequestsMadeAtOneLevelStartAtTheOther)
{
  // MPI_Send_init/MPI_Recv_init made in "first": the receive started there and the send started in
  // "second" is forwarded to it (pers1: as at the level of "first"); both started in "second" run at
  // its level (pers2: as in the run at that level).
  auto smpi    = check_ok(run_switch(kFirstTwoSmpi, "persistent", GetParam()));
  auto message = check_ok(run_switch(kFirstTwoMsg, "persistent", GetParam()));
  auto first   = check_ok(run_switch(kSmpiFirst, "persistent", GetParam()));
  auto reverse = check_ok(run_switch(kMessageFirst, "persistent", GetParam()));
  for (int rank = 0; rank < kRanks; ++rank) {
    EXPECT_NEAR(number(first[rank], "pers1"), number(smpi[rank], "pers1"), 4e-9) << "rank " << rank;
    expect_close(number(first[rank], "pers2"), number(message[rank], "pers2"), "pers2, rank " + std::to_string(rank));
    expect_close(number(reverse[rank], "pers1"), number(message[rank], "pers1"), "pers1, rank " + std::to_string(rank));
    EXPECT_NEAR(number(reverse[rank], "pers2"), number(smpi[rank], "pers2"), 4e-9) << "rank " << rank;
  }
  // The two levels model the exchange differently (SMPI's flows, the NIC and PCIe).
  EXPECT_GT(number(message[0], "pers2"), number(smpi[0], "pers2"));
}

TEST_P(LevelSwitch, ProbesAndMatchedProbesFindMessagesWaitingAtTheOtherLevel)
{
  // Messages of "first" are probed (MPI_Probe, MPI_Iprobe) and taken by matched probes (MPI_Mprobe +
  // MPI_Mrecv, MPI_Improbe + MPI_Imrecv) in "second", where they wait, in the sender's order (41 before
  // 43, sent later at the level of "second"); at smpi, which SMPI 3.32 lacks, a matched probe is bxisim's
  // (the probe receives the message). The probes and receives of the messages of "first" move their data as
  // the level of "first" does; what a probe costs as the rank's own work (SMPI's smpi/iprobe and smpi/test,
  // injected before each look) is the level of "second"'s, so at message they cost what the smpi run costs
  // without those injected times.
  const std::string no_smpi_polls = std::string(kFirstTwoSmpi) + " --cfg smpi/iprobe:0 --cfg smpi/test:0";
  for (auto [options, reference] :
       {std::pair{kSmpiFirst, no_smpi_polls.c_str()}, std::pair{kMessageFirst, kFirstTwoMsg}}) {
    auto mixed      = check_ok(run_switch(options, "mprobe", GetParam()));
    auto single     = check_ok(run_switch(reference, "mprobe", GetParam()));
    double expected = number(single[1], "mprobe_time");
    double slack    = std::string(options) == kSmpiFirst ? 4e-9 : 0.05 * expected + 4e-9;
    EXPECT_NEAR(number(mixed[1], "mprobe_time"), expected, slack) << options;
  }
}

TEST_P(LevelSwitch, TopologyCommunicatorsAnswerTheSameAndForwardMessagesAtEveryLevel)
{
  // A Cartesian communicator and its sub-communicator, a graph and a distributed graph made in
  // "first": the topology queries answer the same in "first", "second" and "third" (at smpi, where
  // SMPI 3.32 has no graph topology, bxisim answers); sends in "second" on each are forwarded to the
  // receives posted in "first" (topo_fwd: as at the level of "first"), and a neighbour allgather there (at
  // smpi too, bxisim's). With "second" at message, also an intercommunicator made there whose merge is used at smpi.
  const char* all_message = "--level message --region first=message --region third=message";
  auto smpi               = check_ok(run_switch(kFirstTwoSmpi, "topology", GetParam()));
  auto message            = check_ok(run_switch(all_message, "topology openmpi", GetParam()));
  auto first              = check_ok(run_switch(kSmpiFirst, "topology openmpi", GetParam()));
  auto reversed           = check_ok(run_switch(
                "--level message --region first=message --region second=smpi --region third=message", "topology", GetParam()));
  for (int rank = 0; rank < kRanks; ++rank) {
    EXPECT_NEAR(number(first[rank], "topo_fwd"), number(smpi[rank], "topo_fwd"), 4e-9) << "rank " << rank;
    expect_close(number(reversed[rank], "topo_fwd"), number(message[rank], "topo_fwd"),
                 "topo_fwd, rank " + std::to_string(rank));
  }
}

TEST_P(LevelSwitch, AnIntercommunicatorMadeAtMessageIsUsedAtSmpi)
{
  // Made in "second" at message, used in "third" at smpi: re-created there by MPI_Intercomm_create.
  check_ok(run_switch("--level smpi", "inter_at_smpi", GetParam()));
}

TEST_P(LevelSwitch, CommunicatorsOfEveryRecordedConstructorAreUsableAtTheOtherLevel)
{
  // MPI_Comm_split_type, MPI_Comm_dup_with_info, MPI_Comm_create_group and MPI_Comm_create (their groups freed
  // before the boundary), MPI_Dist_graph_create, an intercommunicator and its duplicate (its local communicator
  // freed), a duplicate of a freed communicator and two of MPI_Comm_idup (one completed in "second"), made in
  // "first" and used in "second": receives posted in "first" (on the intercommunicator too) take the sends of
  // "second", collectives, neighbour queries and the intercommunicator's traffic work, from smpi to message and
  // back, as in a run at one level.
  for (const char* options : {"--level smpi --region first=smpi --region second=smpi",
                              "--level message --region first=message --region second=message", "--level smpi",
                              "--level smpi --region first=message --region second=smpi"})
    check_ok(run_switch(options, "carried", GetParam()));
}

TEST_P(LevelSwitch, TheRegionsTableAndTheRunSummaryCountTheSwitchInTheLevelLeft)
{
  // The first boundary into message starts OpenMPI (simulated time: its start-up's exchanges). Both reports
  // count that switch in the level left (smpi) and start the region after it; they used to disagree.
  auto result = run_switch("--level smpi", "carried", GetParam());
  check_ok(result);
  std::smatch table_row, summary_row, table_levels, summary_levels;
  ASSERT_TRUE(std::regex_search(result.output, table_row, std::regex(R"(\nsecond +message +message +1 +([0-9.]+))")))
      << result.output;
  ASSERT_TRUE(std::regex_search(result.output, summary_row, std::regex(R"(region second +([0-9.]+) s at message)")));
  EXPECT_EQ(table_row[1], summary_row[1]);
  ASSERT_TRUE(std::regex_search(result.output, table_levels,
                                std::regex(R"(\n  message +([0-9.]+) +[0-9.]+\n  smpi +([0-9.]+))")));
  ASSERT_TRUE(std::regex_search(result.output, summary_levels,
                                std::regex(R"(time per level \(max\) +message ([0-9.]+) s, smpi ([0-9.]+) s)")));
  EXPECT_EQ(table_levels[1], summary_levels[1]);
  EXPECT_EQ(table_levels[2], summary_levels[2]);
  EXPECT_EQ(table_levels[1], table_row[1]); // the only message region, entered once
}

TEST_P(LevelSwitch, WindowsAndFilesKeepTheirBackEndAndErrorHandlersAcrossBoundaries)
{
  // A window made in "first" is used in "second" (its calls go to the back end that made it: win_time
  // as at the level of "first"), with MPI_ERRORS_RETURN and an error handler made at the other level;
  // a file opened in "second" (message) is written, read and given an error handler made in "third"
  // (smpi). SMPI cannot open files on bxisim's hosts: the runs with "second" at smpi use no file.
  auto smpi =
      check_ok(run_switch("--level smpi --region second=smpi --region third=smpi", "window nofile", GetParam()));
  auto message = check_ok(
      run_switch("--level message --region first=message --region third=message", "window nofile", GetParam()));
  auto first    = check_ok(run_switch(kSmpiFirst, "window", GetParam()));
  auto reversed = check_ok(run_switch("--level message --region first=message --region second=smpi --region "
                                      "third=message",
                                      "window nofile", GetParam()));
  for (int rank = 0; rank < kRanks; ++rank) {
    EXPECT_NEAR(number(first[rank], "win_time"), number(smpi[rank], "win_time"), 4e-9) << "rank " << rank;
    expect_close(number(reversed[rank], "win_time"), number(message[rank], "win_time"),
                 "win_time, rank " + std::to_string(rank));
  }
}

TEST_P(LevelSwitch, AFileOpenedAtSmpiFailsWithAMessageInsteadOfStoppingTheSimulator)
{
  auto result = run_switch("--level smpi", "file_at_smpi", GetParam());
  check_ok(result);
  EXPECT_THAT(result.output, HasSubstr("MPI_File_open(\"/tmp/bxisim-never-opened\") at the smpi level: SMPI's MPI-IO "
                                       "needs a disk on the host"))
      << result.output;
}

TEST_P(LevelSwitch, CommunicatorsSplitAndFreedRightBeforeABoundaryDoNotHang)
{
  // Ranks reach each boundary at their own pace right after MPI_Comm_split, MPI_Comm_dup and
  // MPI_Comm_free (SMPI's eager messages of the rank that arrived first used to freeze: a hang).
  auto mixed_result = run_switch(kSmpiFirst, "split_free", GetParam());
  auto mixed        = check_ok(mixed_result);
  EXPECT_THAT(mixed_result.output, HasSubstr("levels (2 switches"));
  auto smpi = check_ok(run_switch("--level smpi --region second=smpi", "split_free", GetParam()));
  EXPECT_NEAR(number(mixed[0], "split_end"), number(smpi[0], "split_end"), 4e-9);
  EXPECT_GT(number(mixed[0], "split_end"), 0.003); // after the last rank's start (3 ms)
  check_ok(run_switch("--level message --region second=smpi", "split_free", GetParam()));
}

// A run with regions has SMPI parts, where a rank is one actor (SMPI 3.32): MPI_Init_thread(MPI_THREAD_MULTIPLE)
// grants MPI_THREAD_SERIALIZED, and MPI_Query_thread answers it in every region, whichever level starts.
TEST_P(LevelSwitch, ThreadMultipleIsGrantedSerializedInEveryRegion)
{
  for (const char* level : {"smpi", "message"}) {
    auto fields = check_ok(run_switch(std::string("--level ") + level, "thread_level", GetParam()));
    for (auto& [rank, mine] : fields) {
      EXPECT_EQ(mine["serialized"], "1") << level << " rank " << rank;
      EXPECT_EQ(mine["same"], "1") << level << " rank " << rank;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Placements, LevelSwitch, testing::Values(1, 2),
                         [](const auto& placement) { return "ppn" + std::to_string(placement.param); });
