// MPI programs built with bxicc, run by `bxisim run` at each accuracy level that has its MPI library
// in this build (BXISIM_MPI_TEST_LEVELS: smpi always, SimGrid's SMPI from libsimgrid; message when
// bxisim's OpenMPI build exists), through the middleware's dispatch: across nodes (--ppn 1) and
// inside nodes (--ppn 2 and more). The same program and checks at every level.

#include "MpiTestLevels.hpp"
#include "tests/runtime/RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <tuple>

using namespace bxisim::test;
using testing::HasSubstr;

namespace
{
const std::string kPrograms = BXISIM_MW_TEST_PROGRAMS;

CommandResult run_mpi(const std::string& level, const std::string& program, int ranks, int ppn,
                      const std::string& arguments, const std::string& options = "")
{
  return run_command("'" BXISIM_BINARY "' run --level " + level + " --no-cpu-simulation -n " + std::to_string(ranks) +
                     " --ppn " + std::to_string(ppn) + " " + options + " " + kPrograms + "/" + program + " " +
                     arguments + " 2>&1");
}

/** Every rank printed ok=1 finalized=1 and no bad_ check. */
std::map<int, Fields> check_all_ok(const CommandResult& result, int ranks)
{
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, testing::Not(HasSubstr("bad_"))) << result.output;
  auto fields = fields_by_rank(result.output);
  EXPECT_EQ(static_cast<int>(fields.size()), ranks) << result.output;
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["ok"], "1") << "rank " << rank << "\n" << result.output;
    EXPECT_EQ(mine["finalized"], "1") << "rank " << rank;
    EXPECT_EQ(mine["provided_ok"], "1") << "rank " << rank;
  }
  return fields;
}

class PerPlacement : public testing::TestWithParam<std::tuple<std::string, int>> // level, ranks per node
{
 protected:
  const std::string& level() const { return std::get<0>(GetParam()); }
  int ppn() const { return std::get<1>(GetParam()); }
};

class PerLevel : public testing::TestWithParam<std::string>
{
 protected:
  const std::string& level() const { return GetParam(); }
};

std::string level_name(const testing::TestParamInfo<std::string>& param)
{
  return param.param;
}

std::string placement_name(const testing::TestParamInfo<std::tuple<std::string, int>>& param)
{
  return std::get<0>(param.param) + "_ppn" + std::to_string(std::get<1>(param.param));
}
} // namespace

TEST_P(PerPlacement, PointToPointEagerAndRendezvous)
{
  for (const char* bytes : {"8", "1048576"}) { // below and above the eager limits (Portals BTL's, SMPI's 64 KiB)
    auto result = run_mpi(level(), "mpi_suite", 4, ppn(), std::string("p2p ") + bytes);
    auto fields = check_all_ok(result, 4);
    for (auto& [rank, mine] : fields) {
      EXPECT_EQ(mine["truncate_class"], "15") << "rank " << rank; // MPI_ERR_TRUNCATE of the standard ABI
      EXPECT_GT(number(mine, "pingpong_time"), 0.0);
    }
  }
}

// Requests with MPI_PROC_NULL completed by every MPI_Wait*/MPI_Test*, and MPI_Testany of delivered sends. At smpi,
// SMPI 3.32's MPI_Testany answered MPI_UNDEFINED for them (the Graph 500 reference code then wrote through its
// request array at that index: a crash), its MPI_Waitsome crashed on them, its MPI_Start of a persistent send to
// MPI_PROC_NULL aborted the simulator, and its MPI_Waitany took an active persistent receive from it for an inactive
// request.
TEST_P(PerPlacement, RequestsWithProcNullAndDeliveredSendsComplete)
{
  check_all_ok(run_mpi(level(), "mpi_suite", 4, ppn(), "completions"), 4);
}

// Requests completed by tests only (a halo code's polling). At smpi, SimGrid 3.32 kept each in the rank's list of
// activities until the rank ended, every later completion scanning it (wall time quadratic in their number): bxisim
// drops the finished ones (runtime/launch/TestedActivities.hpp), which its verbose log counts. Simulated times: the
// same whether they are dropped or not (the test of the mechanism is the count; the data are checked every round).
TEST_P(PerPlacement, RequestsCompletedByTestsOnlyAreAllDelivered)
{
  constexpr int kRounds = 1000;
  auto result           = run_mpi(level(), "mpi_suite", 2, ppn(), "tested_ring " + std::to_string(kRounds),
                                  "--log=bxisim_launch.thres:verbose");
  auto fields           = check_all_ok(result, 2);
  for (auto& [rank, mine] : fields)
    EXPECT_EQ(number(mine, "tested"), 2 * kRounds) << "rank " << rank;
  if (level() != "smpi")
    return;
  std::regex released("released ([0-9]+) finished activities");
  long total = 0;
  for (std::sregex_iterator it(result.output.begin(), result.output.end(), released), end; it != end; ++it)
    total += std::stol((*it)[1]);
  // Each round's receive, all but the last few of each rank (SMPI detaches sends this short: not the rank's)
  EXPECT_GE(total, 2 * (kRounds - 64)) << result.output;
}

// The standard input is rank 0's, as under mpirun: the other ranks read end-of-file (they took rank 0's lines: ranks
// share the C library's stdin and descriptor 0), by stdio and by read(), before and between rank 0's reads.
TEST_P(PerPlacement, TheStandardInputIsRankZerosAsUnderMpirun)
{
  auto result = run_command("printf 'one\\ntwo three\\n' | '" BXISIM_BINARY "' run --level " + level() +
                            " --no-cpu-simulation -n 4 --ppn " + std::to_string(ppn()) + " " + kPrograms +
                            "/mpi_suite stdin 2>&1");
  auto fields = check_all_ok(result, 4);
  EXPECT_EQ(fields[0]["first_line"], "one") << result.output;
  EXPECT_EQ(fields[0]["next_word"], "two") << result.output;
  for (int rank : {1, 2, 3}) {
    EXPECT_EQ(fields[rank]["first_line"], "eof") << result.output;
    EXPECT_EQ(fields[rank]["raw"], "eof") << result.output;
  }
}

// All ranks are one process: the host's CPU-time clocks summed every rank's work and the simulator's (LAMMPS printed
// "1807% CPU use"). A rank's clocks count its computation and its MPI calls (OpenMPI polls), not its sleeps or its
// blocking waits, in simulated time; a process's is the sum of its threads'.
TEST_P(PerPlacement, TheCpuTimeClocksAreEachRanksInSimulatedTime)
{
  auto result = run_mpi(level(), "cpu_clocks", 4, ppn(), "");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 4U) << result.output;
  constexpr double kCpu = 0.010 + 0.005 + 0.004; // computed, waited in the barrier or computed before it, the thread's
  for (auto& [rank, clocks] : fields) {
    double elapsed = number(clocks, "elapsed");
    // The second's sleep is off the CPU; the barrier's latency and the reads' costs (smpi/wtime) are on it.
    EXPECT_NEAR(number(clocks, "process"), elapsed - 1.0, 1e-6) << "rank " << rank << "\n" << result.output;
    EXPECT_NEAR(number(clocks, "process"), kCpu, 1e-4) << "rank " << rank;
    EXPECT_NEAR(number(clocks, "thread"), number(clocks, "process") - 0.004, 1e-9) << "rank " << rank;
    EXPECT_NEAR(number(clocks, "worker"), 0.004, 1e-9) << "rank " << rank;
    EXPECT_NEAR(number(clocks, "dynamic"), number(clocks, "process"), 1e-9) << "rank " << rank;
    EXPECT_NEAR(number(clocks, "clock"), number(clocks, "process"), 2e-6) << "rank " << rank;
    EXPECT_NEAR(number(clocks, "rusage"), number(clocks, "process"), 2e-6) << "rank " << rank;
    EXPECT_NEAR(number(clocks, "rusage_thread"), number(clocks, "thread"), 2e-6) << "rank " << rank;
    EXPECT_NEAR(number(clocks, "times"), number(clocks, "process"), 0.02) << "rank " << rank; // in clock ticks
    EXPECT_EQ(clocks["other_rank_clock"], "EPERM") << "rank " << rank;
  }
}

// Hybrid programs call MPI inside `omp single`: libgomp gave the block to the first thread to arrive, often one of
// the team's real threads, whose MPI calls bxisim refuses (the run stopped). The master, the rank's thread, runs it.
TEST_P(PerPlacement, MpiInsideOmpSingleRunsOnTheRanksThread)
{
  auto result = run_mpi(level(), "openmp_single", 4, ppn(), "");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 4U) << result.output;
  for (auto& [rank, mine] : fields) {
    EXPECT_EQ(mine["sum"], "52") << result.output; // 6, 10, 14, 18 (ranks 0..3 plus 4k), and 4
    EXPECT_EQ(mine["by_master"], "5") << "rank " << rank;
    EXPECT_EQ(mine["copied"], "3") << "rank " << rank; // copyprivate: the master's value in every thread
    EXPECT_EQ(mine["provided_ok"], "1") << "rank " << rank;
  }
}

TEST_P(PerPlacement, CommunicatorsGroupsDatatypesOneSided)
{
  for (const char* mode : {"comms", "datatypes", "rma"}) {
    auto result = run_mpi(level(), "mpi_suite", 4, ppn(), mode);
    auto fields = check_all_ok(result, 4);
    if (std::string(mode) == "rma") {
      EXPECT_EQ(fields[0]["lock_slot1"], "4"); // the four ranks' exclusive-lock increments (slot 1 untouched by puts)
    }
  }
}

TEST_P(PerPlacement, AProfilingLayerSeesTheProgramsSends)
{
  auto result = run_mpi(level(), "mpi_suite", 3, ppn(), "pmpi");
  auto fields = check_all_ok(result, 3);
  EXPECT_EQ(fields[0]["sends_counted"], "1");
  EXPECT_EQ(fields[1]["sends_counted"], "1");
  EXPECT_EQ(fields[2]["sends_counted"], "0");
}

// OpenMPI 4.1's op/avx component sums 8- and 16-bit integers with saturating instructions (127 + 1
// gives 127; open-mpi/ompi#8045, not fixed in 4.1): OSU's osu_allreduce -c failed at 64 B on 16 ranks.
// bxisim leaves that component out by default (runtime/launch/OpenMpi.cpp).
TEST_P(PerPlacement, IntegerSumsWrapAround)
{
  auto result = run_mpi(level(), "mpi_suite", 4, ppn(), "wrap");
  auto fields = check_all_ok(result, 4);
  for (auto& [rank, mine] : fields)
    EXPECT_EQ(mine["wrong_sums"], "0") << "rank " << rank << "\n" << result.output;
}

INSTANTIATE_TEST_SUITE_P(Mpi, PerPlacement,
                         testing::Combine(testing::ValuesIn(mpi_test_levels()), testing::Values(1, 2)), placement_name);

namespace
{
bool builds_both_nic_levels()
{
  auto all = mpi_test_levels();
  return std::find(all.begin(), all.end(), "cycle") != all.end();
}

/** `mpi_suite <mode>` on `ranks` ranks at message and at cycle, for each placement: rank 0's `key`
 * agrees within `tolerance` (relative). */
void expect_nic_levels_to_agree(int ranks, std::initializer_list<int> placements,
                                std::initializer_list<std::string> modes, const std::string& key, double tolerance)
{
  for (int ppn : placements)
    for (const std::string& mode : modes) {
      std::map<std::string, double> figure;
      for (const char* level : {"message", "cycle"})
        figure[level] = std::stod(check_all_ok(run_mpi(level, "mpi_suite", ranks, ppn, mode), ranks)[0][key]);
      EXPECT_NEAR(figure["message"], figure["cycle"], tolerance * figure["cycle"])
          << mode << " at ppn " << ppn << ": " << key << " " << figure["message"] << " at message, " << figure["cycle"]
          << " at cycle";
    }
}
} // namespace

// HPCC's ring bandwidth: each NIC sends 2 MB to one neighbour while receiving 2 MB from the other.
// The two NIC models agree: the message model once let a Get request pass the 2 MB reply its NIC was
// sending (Sendrecv: 372 us per step against 732 at cycle), and the cycle model's DMA writer wrote a
// payload that had streamed in with another only after it (Irecv/Isend: 1011 us against 720).
TEST(MpiNicLevels, ARingOfLargeMessagesTakesTheSameTimeAtMessageAndCycle)
{
  if (not builds_both_nic_levels())
    GTEST_SKIP() << "this build has no OpenMPI or no cycle model";
  expect_nic_levels_to_agree(3, {1, 3}, {"ring 2000000 sendrecv", "ring 2000000 nonblocking"}, "ring_step", 0.03);
}

// OSU osu_bw's pattern with OpenMPI's Get-based rendezvous (32 and 64 KiB): the target NIC sends a
// window of replies while the requests' BXI ACKs arrive. The message model's response TX had taken the
// next reply before its payload was read, so BXI ACKs made meanwhile waited for the whole reply, and
// the reply after them was read only then: 9803 against 10727 MB/s at 32 KiB.
TEST(MpiNicLevels, AWindowOfRendezvousSendsHasTheSameBandwidthAtMessageAndCycle)
{
  if (not builds_both_nic_levels())
    GTEST_SKIP() << "this build has no OpenMPI or no cycle model";
  // 128 KiB: a frame that takes all the link credits; a NIC that waited for it to land before the next
  // one (counting its credits by frame instead of by chunk) gave 9.99 against 10.77 GB/s.
  expect_nic_levels_to_agree(2, {1, 2}, {"window 32768", "window 65536", "window 131072"}, "window_bandwidth", 0.02);
}

// HPCC PTRANS's pattern: pairs of ranks exchange a strided 500 x 500 block, a pipeline of fragments
// each way (4 ranks: two pairs, across nodes and inside a node). Every fragment a node receives asks it for two
// response frames (BXI ACK, Portals ACK) while its own fragments take the link: with one message per virtual network in
// turn, its acknowledgements fell behind and the exchange took 350 us at message and 231 at cycle; the link's turns now
// count packets at both levels (hw/actors/PacketFairTurns).
TEST(MpiNicLevels, AStridedExchangeTakesTheSameTimeAtMessageAndCycle)
{
  if (not builds_both_nic_levels())
    GTEST_SKIP() << "this build has no OpenMPI or no cycle model";
  expect_nic_levels_to_agree(4, {1, 2}, {"strided 500"}, "strided_exchange", 0.02);
}

// Alltoalls of 32 and 64 KiB (OpenMPI's Get rendezvous): each NIC queues Get replies for every peer
// while the others' replies come in. The message NIC read one queued payload ahead of the wire where
// the cycle NIC's packetizer reads on at the PCIe's pace, and it held its link while a frame crawled
// through a congested switch where the cycle NIC's link credits let it send on: 43.0 against 38.0 us
// at 32 KiB (8 ranks on 8 nodes), 64.0 against 54.2 (on 4 nodes). It then started a frame whose
// network had no credits left (two 64 KiB replies in flight hold them all): 73.1 against 80.9 us at
// 64 KiB.
TEST(MpiNicLevels, AnAlltoallOfRendezvousMessagesTakesTheSameTimeAtMessageAndCycle)
{
  if (not builds_both_nic_levels())
    GTEST_SKIP() << "this build has no OpenMPI or no cycle model";
  expect_nic_levels_to_agree(8, {1, 2}, {"alltoall 32768", "alltoall 65536"}, "alltoall_time", 0.03);
}

TEST(MpiEnd, AJobEndingWhileRanksWaitInTheStartUpFenceEndsCleanly)
{
  // OpenMPI's osc rdma finds no RDMA path over the Portals BTL: the first rank to create a window
  // aborts the job (MPI_ERR_WIN, 53) while others still wait in a fence of MPI_Init. Killing a rank
  // there used to abort the whole simulator (std::terminate while the kill unwound SimGrid's wait).
  for (const char* level : {"message", "cycle"})
    for (int ppn : {1, 2}) {
      auto result = run_mpi(level, "mpi_suite", 4, ppn, "rma", "--mca osc rdma");
      EXPECT_EQ(result.exit_code, 53) << level << " ppn " << ppn << "\n" << result.output;
      EXPECT_THAT(result.output, HasSubstr("ended the job with code 53")) << result.output;
      EXPECT_THAT(result.output, testing::Not(HasSubstr("crashed"))) << result.output;
    }
}

namespace
{
/** The cm path (pml cm + mtl portals4) at --level message, with Portals' own one-sided and collective
 * components: osc portals4 (Portals Puts, Gets, atomics and counting events) and coll portals4
 * (collectives as trees of triggered operations in the NIC). */
class CmPath : public testing::TestWithParam<int> // ranks per node
{
 protected:
  void SetUp() override
  {
    auto all = mpi_test_levels();
    if (std::find(all.begin(), all.end(), "message") == all.end())
      GTEST_SKIP() << "this build has no OpenMPI (mpi_patches/build): the message level is not tested";
  }
};
} // namespace

TEST_P(CmPath, OneSidedThroughOscPortals4AndCollectivesThroughCollPortals4)
{
  auto rma    = run_mpi("message", "mpi_suite", 4, GetParam(), "rma", "--pml cm --mca osc portals4");
  auto fields = check_all_ok(rma, 4);
  EXPECT_EQ(fields[0]["lock_slot1"], "4");
  // Every rank takes coll portals4 (a rank that left it out would run other algorithms and deadlock). Its sums of
  // MPI_LONG were wrong before mpi_patches 0006 (8-bit lanes in the NIC).
  auto collectives =
      run_mpi("message", "mpi_suite", 8, GetParam(), "collectives", "--pml cm --mca coll_base_verbose 20");
  check_all_ok(collectives, 8);
  std::set<int> with_portals4;
  std::istringstream lines(collectives.output);
  for (std::string line; std::getline(lines, line);) {
    int rank = -1;
    if (line.find("comm_select: component available: portals4") != std::string::npos &&
        std::sscanf(line.c_str(), "[rank %d]", &rank) == 1)
      with_portals4.insert(rank);
  }
  EXPECT_EQ(with_portals4.size(), 8u) << collectives.output;
}

TEST_P(CmPath, MismatchedCollectivesAreReportedWithTheirCalls)
{
  // coll portals4's broadcast waits for its children's acknowledgements: both ranks stay in their call
  auto result = run_mpi("message", "mpi_bad", 2, GetParam(), "mismatch", "--pml cm");
  EXPECT_EQ(result.exit_code, 3) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 0 waits for the end of MPI_Bcast")) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 1 waits for the end of MPI_Barrier")) << result.output;
}

INSTANTIATE_TEST_SUITE_P(Mpi, CmPath, testing::Values(1, 2),
                         [](const testing::TestParamInfo<int>& param) { return "ppn" + std::to_string(param.param); });

TEST_P(PerLevel, CollectivesOnEightRanksOverTwoAndFourNodes)
{
  for (int ppn : {4, 2}) {
    auto result = run_mpi(level(), "mpi_suite", 8, ppn, "collectives");
    check_all_ok(result, 8);
    // A frame whose payload is in memory a rounding error after its arrival is not a sleep (at ppn 2
    // the message model asked SimGrid for sleeps of 1e-19 s, each reported on the user's terminal).
    EXPECT_THAT(result.output, testing::Not(HasSubstr("numerical accuracy"))) << result.output;
  }
}

// mpirun's --oversubscribe: 8 ranks on 2 nodes of 2 cores, two per core, talking inside and across the nodes.
TEST_P(PerLevel, OversubscribedRanksShareCoresAndCommunicateAsOthers)
{
  std::string platform = "--platform single-switch --set platform.nodes=2 --set node.cores=2";
  auto refused         = run_mpi(level(), "mpi_suite", 8, 4, "collectives", platform);
  EXPECT_EQ(refused.exit_code, 2) << refused.output; // a usage error
  EXPECT_THAT(refused.output, HasSubstr("or --oversubscribe for ranks that share cores")) << refused.output;
  for (const std::string map_by : {"core", "node"})
    for (const std::string mode : {"collectives", "p2p 65536"}) {
      auto result = run_mpi(level(), "mpi_suite", 8, 4, mode, platform + " --oversubscribe --map-by " + map_by);
      check_all_ok(result, 8);
    }
}

TEST_P(PerLevel, SimulatedTimesAreIdenticalInTwoRuns)
{
  for (int ppn : {1, 2}) {
    auto first  = run_mpi(level(), "mpi_suite", 4, ppn, "p2p 65536");
    auto second = run_mpi(level(), "mpi_suite", 4, ppn, "p2p 65536");
    auto a      = check_all_ok(first, 4);
    auto b      = check_all_ok(second, 4);
    for (int rank = 0; rank < 4; ++rank)
      EXPECT_EQ(a[rank]["pingpong_time"], b[rank]["pingpong_time"]) << "rank " << rank;
    auto c = check_all_ok(run_mpi(level(), "mpi_suite", 8, ppn, "collectives"), 8);
    auto d = check_all_ok(run_mpi(level(), "mpi_suite", 8, ppn, "collectives"), 8);
    for (int rank = 0; rank < 8; ++rank)
      EXPECT_EQ(c[rank]["collectives_time"], d[rank]["collectives_time"]) << "rank " << rank;
  }
}

TEST_P(PerLevel, CallsBeforeMpiInit)
{
  for (int ppn : {1, 2}) {
    auto result = run_mpi(level(), "mpi_bad", 2, ppn, "before_init");
    EXPECT_NE(result.exit_code, 0) << result.output;
    EXPECT_THAT(result.output, HasSubstr("called MPI_Comm_rank before MPI_Init")) << result.output;
  }
}

TEST_P(PerLevel, ARankThatNeverCallsMpiFinalize)
{
  for (int ppn : {1, 2}) {
    auto result = run_mpi(level(), "mpi_bad", 2, ppn, "no_finalize");
    EXPECT_NE(result.exit_code, 0) << result.output;
    EXPECT_THAT(result.output, HasSubstr("without MPI_Finalize")) << result.output;
    // bxisim says it, with the fix; SMPI's own question at its end would only repeat it
    EXPECT_THAT(result.output, testing::Not(HasSubstr("Stalling SMPI instance"))) << result.output;
  }
}

// A rank that exits while another waits for its message: the deadlock report says the awaited rank had ended.
TEST_P(PerLevel, ADeadlockReportNamesTheRanksThatHadEnded)
{
  for (int ppn : {1, 2}) {
    auto result = run_mpi(level(), "mpi_bad", 2, ppn, "exit_while_awaited");
    // mpirun would have ended the job with rank 1's code when it exited: so does the run (it ended with the
    // deadlock's, 3, where mpirun gives the rank's: a Fortran runtime error's 2)
    EXPECT_EQ(result.exit_code, 9) << result.output;
    EXPECT_THAT(result.output, HasSubstr("rank 0 waits for the end of MPI_Recv")) << result.output;
    EXPECT_THAT(result.output, HasSubstr("bxisim: rank 1 had already ended (the summary gives how)")) << result.output;
    EXPECT_THAT(result.output, HasSubstr("rank 1 (exit code 9)")) << result.output;
  }
}

// An error that concerns no communicator is raised on MPI_COMM_WORLD (MPI-3.1 8.3), whose default handler ends the job
// with it: SMPI 3.32's MPI_Error_string returned MPI_ERR_ARG without a word.
TEST_P(PerLevel, AnErrorOfNoCommunicatorEndsTheJobThroughTheWorldsHandler)
{
  for (int ppn : {1, 2}) {
    auto result = run_mpi(level(), "mpi_bad", 2, ppn, "error_string");
    EXPECT_EQ(result.exit_code, 13) << result.output; // MPI_ERR_ARG, the code of the error
    EXPECT_THAT(result.output, testing::Not(HasSubstr("[rank 1] passed_the_error"))) << result.output;
  }
}

// A null pointer for a handle argument (MPI_Type_commit(NULL)) is MPI_ERR_ARG through the error handler: the dispatch
// followed it and the simulator crashed (exit code 4).
TEST_P(PerLevel, ANullHandlePointerIsAnArgumentError)
{
  for (int ppn : {1, 2}) {
    auto result = run_mpi(level(), "mpi_bad", 2, ppn, "null_handle");
    EXPECT_EQ(result.exit_code, 13) << result.output; // MPI_ERR_ARG, under MPI_ERRORS_ARE_FATAL
    auto fields = fields_by_rank(result.output);
    for (int rank : {0, 1}) {
      EXPECT_EQ(fields[rank]["returned"], "13") << result.output;
      EXPECT_EQ(fields[rank]["isend_returned"], "13") << result.output;
    }
    EXPECT_THAT(result.output, HasSubstr("bxisim: rank 1 called MPI_Op_free with a null pointer for its handle "
                                         "argument 'op': MPI_ERR_ARG"))
        << result.output;
    EXPECT_THAT(result.output, testing::Not(HasSubstr("[rank 1] passed_the_error"))) << result.output;
  }
}

TEST_P(PerLevel, MpiAbortEndsTheJobWithItsCodeAndOneReport)
{
  for (int ppn : {1, 2}) {
    auto result = run_mpi(level(), "mpi_bad", 4, ppn, "abort");
    EXPECT_EQ(result.exit_code, 42) << result.output;
    // bxisim's own line, never in a rank's output (at smpi it carried the prefix of whichever rank ran last)
    EXPECT_THAT(result.output, testing::ContainsRegex("(^|\n)bxisim: rank 3 called MPI_Abort with error code 42"))
        << result.output;
    EXPECT_THAT(result.output, HasSubstr("rank 3 ended the job with code 42")) << result.output;
    // an aborting rank leaves without MPI_Finalize by design: no second report says it should not
    EXPECT_THAT(result.output, testing::Not(HasSubstr("without MPI_Finalize"))) << result.output;
    EXPECT_THAT(result.output, testing::Not(HasSubstr("passed_the_abort"))) << result.output;
    // the stopped ranks are reported with the simulated time at which the abort stopped them: after the
    // barrier, not after the aborting rank's end (OpenMPI's MPI_Abort stops the others, then waits 100 us)
    auto time_after = [&](const std::string& text) {
      auto at = result.output.find(text);
      return at == std::string::npos ? -1.0 : std::stod(result.output.substr(at + text.size()));
    };
    double stopped = time_after("ranks 0-2: stopped at ");
    double ended   = time_after("rank 3: exit code 42 at ");
    EXPECT_GT(stopped, 0.0) << result.output;
    EXPECT_LE(stopped, ended) << result.output;
  }
}

// A rank that aborts while the others simulate the last burst of their exit(): their kill cannot leave through
// exit(), which is noexcept; it aborted the simulator ("the simulator crashed", exit code 4), seen at smpi with PRK's
// MPISHM kernels, whose ranks all abort at once when a node holds fewer ranks than their shared-memory domain asks.
// With CPU simulation on: the 20 ms burst is simulated as the rank exits.
TEST_P(PerLevel, AnAbortWhileOtherRanksExitEndsTheJobWithItsCode)
{
  for (int ppn : {1, 2}) {
    auto result = run_command("'" BXISIM_BINARY "' run --level " + level() + " -n 4 --ppn " + std::to_string(ppn) +
                              " " + kPrograms + "/mpi_bad abort_while_exiting 2>&1");
    EXPECT_EQ(result.exit_code, 42) << result.output;
    EXPECT_THAT(result.output, HasSubstr("rank 0 ended the job with code 42")) << result.output;
    EXPECT_THAT(result.output, testing::Not(HasSubstr("crashed"))) << result.output;
  }
}

// Every rank calls MPI_Abort at the same simulated time (CPU simulation off): each may reach it before the first stops
// it. At smpi each was said to call MPI_Abort, and all but the first to have "ended without MPI_Finalize".
TEST_P(PerLevel, RanksThatAbortTogetherEndTheJobOnce)
{
  for (int ppn : {1, 2}) {
    auto result =
        run_command("'" BXISIM_BINARY "' run --no-cpu-simulation -q --no-summary --level " + level() + " -n 4 --ppn " +
                    std::to_string(ppn) + " " + kPrograms + "/mpi_bad abort_everywhere 2>&1");
    EXPECT_EQ(result.exit_code, 7) << result.output;
    EXPECT_EQ(occurrences(result.output, "called MPI_Abort with error code 7"), 1) << result.output;
    EXPECT_THAT(result.output, testing::Not(HasSubstr("without MPI_Finalize"))) << result.output;
    EXPECT_THAT(result.output, testing::Not(HasSubstr("passed_the_abort"))) << result.output;
  }
}

TEST_P(PerLevel, ACrashInsideAnMpiCallNamesTheRank)
{
  for (int ppn : {1, 2}) {
    auto result = run_mpi(level(), "mpi_bad", 2, ppn, "bad_pointer");
    EXPECT_EQ(result.exit_code, 4) << result.output; // a crash
    // OpenMPI runs in the rank's own copy (a crash of the rank's code); SMPI runs in the simulator
    if (level() == "smpi")
      EXPECT_THAT(result.output, HasSubstr("crashed (Segmentation fault) inside a call of rank 1")) << result.output;
    else
      EXPECT_THAT(result.output, HasSubstr("rank 1 crashed (Segmentation fault)")) << result.output;
    EXPECT_THAT(result.output, testing::Not(HasSubstr("outside the code of any rank"))) << result.output;
    EXPECT_THAT(result.output, HasSubstr("MPI_Comm_size")) << result.output; // in the backtrace
  }
}

TEST_P(PerLevel, ASendCancelledAfterItsReceiveMatchedCompletesOrIsExplained)
{
  for (int ppn : {1, 2}) {
    auto result = run_mpi(level(), "mpi_bad", 2, ppn, "cancel_matched");
    if (level() == "smpi") { // SMPI 3.32 fails the transfer on both sides: the report says why
      EXPECT_EQ(result.exit_code, 4) << result.output;
      EXPECT_THAT(result.output, HasSubstr("SMPI 3.32 does so when the program cancels a send after a receive has "
                                           "matched it"))
          << result.output;
    } else { // OpenMPI's ob1 cannot cancel a send: it completes, as MPI allows
      EXPECT_EQ(result.exit_code, 0) << result.output;
      EXPECT_THAT(result.output, HasSubstr("[rank 0] rank 0: cancelled 0")) << result.output;
      EXPECT_THAT(result.output, HasSubstr("[rank 1] rank 1: cancelled 0")) << result.output;
    }
  }
}

TEST_P(PerLevel, ARunStoppedAtItsLimitNamesEachRanksMpiCall)
{
  // Empty polls that sleep never look like a deadlock: the limit stops the run, and says in which MPI call.
  for (int ppn : {1, 2}) {
    auto result = run_mpi(level(), "mpi_bad", 2, ppn, "recv_never", "--sim-time-limit 0.001 --set mpi.polling=delay");
    EXPECT_EQ(result.exit_code, 5) << result.output;
    EXPECT_THAT(result.output, HasSubstr("the simulated time limit is reached")) << result.output;
    EXPECT_THAT(result.output, HasSubstr("rank 0: inside MPI_Recv, ")) << result.output;
    // OpenMPI's MPI_Finalize waits for every rank (a fence), SMPI's does not
    EXPECT_THAT(result.output, HasSubstr(level() == "smpi" ? "rank 1: ended with exit code 0"
                                                           : "rank 1: inside MPI_Finalize, waits for the fence"))
        << result.output;
  }
}

TEST_P(PerLevel, MismatchedCollectivesAreReportedWithTheirCalls)
{
  for (int ppn : {1, 2}) {
    auto result = run_mpi(level(), "mpi_bad", 2, ppn, "mismatch");
    EXPECT_EQ(result.exit_code, 3) << result.output; // the deadlock exit code
    EXPECT_THAT(result.output, HasSubstr("deadlock")) << result.output;
    EXPECT_THAT(result.output, HasSubstr("rank 1 waits for the end of MPI_Barrier")) << result.output;
    // SMPI and OpenMPI's ob1 send a 4-byte broadcast eagerly: its root finishes it and waits in
    // MPI_Finalize, only rank 1 is left in the collective (the cm path's twin: CmPath).
    if (level() == "message") {
      EXPECT_THAT(result.output, HasSubstr("rank 0 waits for the fence of MPI_Init or MPI_Finalize")) << result.output;
    }
  }
}

// HDF5's t_cache_image: rank 0 skipped a collective and went to MPI_Finalize while the others waited in MPI_Comm_dup.
// At message and cycle those poll with sleeps (their agreement progresses without Portals changes), so simulated
// time ran on for ever and only --wall-limit ended the run; it is a deadlock report now, as at smpi.
TEST_P(PerLevel, ACommunicatorMadeWithoutOneRankIsADeadlock)
{
  for (int ppn : {1, 2}) {
    auto result = run_mpi(level(), "mpi_bad", 4, ppn, "dup_without_rank0", "--wall-limit 120");
    EXPECT_EQ(result.exit_code, 3) << result.output; // the deadlock exit code
    EXPECT_THAT(result.output, HasSubstr("deadlock")) << result.output;
    EXPECT_THAT(result.output, HasSubstr("MPI_Comm_dup")) << result.output;
  }
}

INSTANTIATE_TEST_SUITE_P(Mpi, PerLevel, testing::ValuesIn(mpi_test_levels()), level_name);

namespace
{
/** The run's simulated seconds, from its summary. */
double simulated_seconds(const CommandResult& result)
{
  auto at   = result.output.find(" s simulated");
  auto from = result.output.rfind(' ', at - 1);
  return at == std::string::npos ? -1 : std::stod(result.output.substr(from + 1, at - from - 1));
}

// Three ranks send 8 MiB to rank 0 at once: sharing rank 0's link, their frames take longer on the wire than
// the message NIC's E2E timeout (1 ms) after their uncontended serialization. They were sent again, whole, while
// still arriving (FT class A of the NAS benchmarks doubled its time so): a timer that fires while its frame is
// on the wire now starts again when it lands. The run takes the time it takes without E2E (its ACKs aside).
void expect_no_retransmission_of_frames_slowed_by_contention(int ppn)
{
  const std::string levels = BXISIM_MPI_TEST_LEVELS;
  if (levels.find("message") == std::string::npos)
    GTEST_SKIP() << "this build has no message level";
  auto with_e2e    = run_mpi("message", "mpi_suite", 4, ppn, "incast 8388608");
  auto without_e2e = run_mpi("message", "mpi_suite", 4, ppn, "incast 8388608", "--e2e off");
  check_all_ok(with_e2e, 4);
  EXPECT_THAT(with_e2e.output, HasSubstr("retransmissions 0")) << with_e2e.output;
  double with = simulated_seconds(with_e2e), without = simulated_seconds(without_e2e);
  EXPECT_NEAR(with, without, without * 1e-3) << with_e2e.output << without_e2e.output;
}
} // namespace

namespace
{
// Three ranks exchange 16 MiB with each other (MPI_Alltoall): a BXI ACK waits behind a whole 16 MiB frame on the
// other NIC's link (1.3 ms, beyond the 1 ms timeout), since each model sends a frame in one transfer where the
// link interleaves packets. The initiator sent landed frames again (163 retransmissions at message, 0.064 s
// instead of 0.048; the cycle NIC gave up on responses; HDF5's t_bigio). An ACK on its way now restarts the timer.
void expect_no_retransmission_while_the_ack_travels(const std::string& level, int ppn)
{
  const std::string levels = BXISIM_MPI_TEST_LEVELS;
  if (levels.find(level) == std::string::npos)
    GTEST_SKIP() << "this build has no " << level << " level";
  auto with_e2e    = run_mpi(level, "mpi_suite", 3, ppn, "alltoall 16777216");
  auto without_e2e = run_mpi(level, "mpi_suite", 3, ppn, "alltoall 16777216", "--e2e off");
  check_all_ok(with_e2e, 3);
  EXPECT_THAT(with_e2e.output, HasSubstr("retransmissions 0")) << with_e2e.output;
  EXPECT_THAT(with_e2e.output, Not(HasSubstr("gives up"))) << with_e2e.output;
  double with = simulated_seconds(with_e2e), without = simulated_seconds(without_e2e);
  EXPECT_NEAR(with, without, without * 1e-3) << with_e2e.output << without_e2e.output;
}
} // namespace

TEST(E2e, AFrameWhoseAckIsOnItsWayIsNotSentAgainAtMessage)
{
  expect_no_retransmission_while_the_ack_travels("message", 1);
  expect_no_retransmission_while_the_ack_travels("message", 2);
}

TEST(E2e, AFrameWhoseAckIsOnItsWayIsNotSentAgainAtCycle)
{
  expect_no_retransmission_while_the_ack_travels("cycle", 1);
  expect_no_retransmission_while_the_ack_travels("cycle", 2);
}

// ScaLAPACK's BLACS tester waits 2 s by reading MPI_Wtime: at smpi each read costs smpi/wtime (10 ns, as under
// smpirun), 2e8 reads, and the run said nothing for hours. bxisim names the setting that shortens such waits.
TEST(SmpiClock, AClockBusyWaitIsNamedWithTheSettingThatShortensIt)
{
  for (int ppn : {1, 2}) {
    auto result = run_mpi("smpi", "mpi_suite", 2, ppn, "clock_wait 0.0012");
    auto fields = check_all_ok(result, 2);
    EXPECT_THAT(result.output, HasSubstr("rank 0 read the clock 100000 times in a row"));
    EXPECT_THAT(result.output, HasSubstr("--cfg smpi/wtime:1e-6"));
    EXPECT_EQ(fields[0]["clock_reads"], "119999") << result.output; // 1.2 ms in reads of 10 ns, as under smpirun
    auto faster = run_mpi("smpi", "mpi_suite", 2, ppn, "clock_wait 0.0012", "--cfg smpi/wtime:1e-6");
    EXPECT_THAT(faster.output, Not(HasSubstr("read the clock"))) << faster.output;
  }
}

TEST(E2e, FramesSlowedByContentionAreNotSentAgainAcrossNodes)
{
  expect_no_retransmission_of_frames_slowed_by_contention(1);
}

TEST(E2e, FramesSlowedByContentionAreNotSentAgainInsideANode)
{
  expect_no_retransmission_of_frames_slowed_by_contention(2);
}
