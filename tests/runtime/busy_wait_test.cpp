// Busy-waits on memory a NIC writes (runtime/os/Preemption.hpp, runtime/os/TimeInterposition.cpp):
// a rank that loops on a flag, with sched_yield or with no call at all, sees the Put that sets it,
// across nodes and inside a node, at a simulated time bounded by the step of its wait.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <string>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
constexpr double kPutAfter  = 5e-6; // memory_spin's argument: rank 1 Puts after sleeping 5 us
constexpr double kYieldStep = 1e-8; // a spinning sched_yield costs 10 ns (TimeInterposition.cpp)
constexpr double kPauseStep = 1e-7; // a pause of a preempted rank adds 100 ns without CPU simulation
constexpr int kLimit        = 5;    // docs/running.md, "Exit codes"

struct Seen {
  CommandResult result;
  double seen = 0; // when rank 0 saw the flag, simulated
  double put  = 0; // when rank 1 Put it
};

Seen spin(int ppn, const std::string& how, const std::string& options, int put_after_us = 5)
{
  Seen run;
  run.result  = run_bxisim("run -n 2 --ppn " + std::to_string(ppn) + " " + options + " " + test_program("memory_spin") +
                           " " + how + " " + std::to_string(put_after_us));
  auto fields = fields_by_rank(run.result.output);
  EXPECT_EQ(fields[0]["value"], "42") << run.result.output;
  run.seen = number(fields[0], "seen");
  run.put  = number(fields[1], "put");
  return run;
}
} // namespace

class BusyWait : public testing::TestWithParam<int>
{
};

// With nothing simulated, `while (!flag) sched_yield();` would never let simulated time advance: after
// 1000 yields at one time each costs 10 ns, so the Put lands and is seen within a step of its arrival.
TEST_P(BusyWait, ASchedYieldLoopSeesThePutWithoutCpuSimulation)
{
  Seen yielding = spin(GetParam(), "yield", "--no-cpu-simulation");
  EXPECT_EQ(yielding.result.exit_code, 0) << yielding.result.output;
  // 10 ns per yield, as SMPI charges a clock read: a wait of microseconds is not worth a warning (that comes once the
  // cost grows, after 100,000 of them)
  EXPECT_THAT(yielding.result.output, Not(HasSubstr("called sched_yield")));
  EXPECT_THAT(yielding.result.output, Not(HasSubstr("busy-wait steps"))) << "no pause advanced simulated time";
  EXPECT_DOUBLE_EQ(yielding.put, kPutAfter);
  EXPECT_GT(yielding.seen, kPutAfter); // the Put takes time to land
  EXPECT_LT(yielding.seen, kPutAfter + 5e-6) << "a one-frame Put lands within microseconds";
  // the same run twice: the same simulated times, to the bit
  Seen again = spin(GetParam(), "yield", "--no-cpu-simulation");
  EXPECT_EQ(again.seen, yielding.seen);
}

// `while (!flag) {}` calls nothing: bxisim preempts the rank (after --preempt-after), each pause adding
// 100 ns, so it sees the Put at most one pause after the sched_yield loop (10 ns steps) sees it.
TEST_P(BusyWait, APlainLoopSeesThePutOncePreemptedWithoutCpuSimulation)
{
  Seen yielding = spin(GetParam(), "yield", "--no-cpu-simulation");
  Seen plain    = spin(GetParam(), "plain", "--no-cpu-simulation --preempt-after 0.05");
  EXPECT_EQ(plain.result.exit_code, 0) << plain.result.output;
  EXPECT_THAT(plain.result.output, HasSubstr("bxisim now pauses it whenever it has run its own code for 100 us"));
  // The summary says that these times depend on the host's speed, and which ranks were paused.
  EXPECT_THAT(plain.result.output, HasSubstr("busy-wait steps"));
  EXPECT_THAT(plain.result.output,
              testing::ContainsRegex("[1-9][0-9]* pause\\(s\\) of ranks 0 in their own code added"));
  EXPECT_DOUBLE_EQ(plain.put, kPutAfter);
  // landing time L: yielding.seen in [L, L + 10 ns], plain.seen in [L, L + 100 ns]
  EXPECT_GE(plain.seen, yielding.seen - kYieldStep - 1e-12) << plain.result.output;
  EXPECT_LE(plain.seen, yielding.seen + kPauseStep + 1e-12) << plain.result.output;
}

// A rank found busy-waiting once is paused after every quantum of its code from then on. In a later stretch, shorter
// than --preempt-after, a pause adds a step only if its registers have not moved since two earlier pauses of that
// stretch: `while (!flag) {}` is found so at its third pause, and sees the Put as promptly as before.
TEST_P(BusyWait, AWaitInALaterStretchIsSteppedOnceFoundWithUnmovedRegisters)
{
  Seen yielding = spin(GetParam(), "yield", "--no-cpu-simulation");
  auto result   = run_bxisim("run -n 2 --ppn " + std::to_string(GetParam()) +
                             " --no-cpu-simulation --preempt-after 0.1 --log=bxisim_preemption.thres:debug " +
                             test_program("memory_spin") + " plain_after_compute 5 0.3");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  EXPECT_EQ(fields[0]["value"], "42") << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 0 paused in its own code: its registers have not moved since two "
                                       "earlier pauses of this stretch (it waits)"));
  EXPECT_GE(number(fields[0], "seen"), yielding.seen - kYieldStep - 1e-12) << result.output;
  EXPECT_LE(number(fields[0], "seen"), yielding.seen + kPauseStep + 1e-12) << result.output;
}

// With CPU simulation on (the default) a pause simulates the CPU time the rank used, as a call would:
// no warning, and the wait ends once that CPU time has carried the rank past the Put's arrival (its
// CPU time until the first pause is at most its wall time, 0.05 s plus the supervisor's period).
// bxisim's own signals (preemption, the supervisor's) stay deliverable whatever a rank blocks.
TEST_P(BusyWait, APlainLoopThatBlockedEverySignalIsStillPreempted)
{
  Seen plain   = spin(GetParam(), "plain", "--no-cpu-simulation --preempt-after 0.05");
  Seen blocked = spin(GetParam(), "blocked", "--no-cpu-simulation --preempt-after 0.05 --wall-limit 30");
  EXPECT_EQ(blocked.result.exit_code, 0) << blocked.result.output;
  EXPECT_THAT(blocked.result.output, HasSubstr("busy-wait steps"));
  EXPECT_DOUBLE_EQ(blocked.put, kPutAfter);
  // the same landing time as the plain loop's, within a pause
  EXPECT_NEAR(blocked.seen, plain.seen, kPauseStep + 1e-12) << blocked.result.output;
}

// time() does not switch ranks (a library may hold a lock across it), but a loop of them does now and
// then: with preemption off, `while (!flag) time(NULL);` still sees the Put, with or without CPU simulation.
TEST_P(BusyWait, ATimeLoopSeesThePutWithoutPreemption)
{
  for (const char* cpu : {"--no-cpu-simulation", ""}) {
    Seen timed = spin(GetParam(), "time", std::string(cpu) + " --preempt-after 0 --watchdog 0 --wall-limit 30");
    EXPECT_EQ(timed.result.exit_code, 0) << timed.result.output;
    EXPECT_THAT(timed.result.output, Not(HasSubstr("busy-wait steps"))) << "no pause was needed";
    if (std::string(cpu).empty()) // measured CPU time (a loaded host stretches it) may delay rank 1's Put
      EXPECT_GE(timed.put, kPutAfter);
    else
      EXPECT_DOUBLE_EQ(timed.put, kPutAfter);
    EXPECT_GT(timed.seen, timed.put);
  }
}

// The Put comes 100 us after the barrier: with CPU simulation on, rank 0 reaches its loop after the CPU
// time its first clock read charges, which a loaded host can stretch past a few microseconds (seen once
// with a 5 us delay: the Put had landed before the loop began, and the loop never spun).
TEST_P(BusyWait, APlainLoopSeesThePutWithCpuSimulation)
{
  Seen plain = spin(GetParam(), "plain", "--preempt-after 0.05", 100);
  EXPECT_EQ(plain.result.exit_code, 0) << plain.result.output;
  EXPECT_THAT(plain.result.output, Not(HasSubstr("bxisim now pauses it")));
  EXPECT_THAT(plain.result.output, Not(HasSubstr("busy-wait steps"))) << "pauses simulate CPU time instead";
  EXPECT_GE(plain.put, 100e-6);
  EXPECT_GT(plain.seen, plain.put);
  EXPECT_LT(plain.seen, 1.0) << "the rank was paused well before a second of CPU time";
}

// --preempt-after 0: no pause, the rank spins until --wall-limit, which says where it was.
TEST_P(BusyWait, WithoutPreemptionAPlainLoopWaitsUntilTheWallLimit)
{
  auto result = run_bxisim("run -n 2 --ppn " + std::to_string(GetParam()) +
                           " --no-cpu-simulation --preempt-after 0 --watchdog 0 --wall-limit 2 " +
                           test_program("memory_spin") + " plain 5");
  EXPECT_EQ(result.exit_code, kLimit) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 0: running its own code, without calling the simulator since simulated "
                                       "time 0.000000000 s"));
}

INSTANTIATE_TEST_SUITE_P(Placements, BusyWait, testing::Values(1, 2), [](const testing::TestParamInfo<int>& placement) {
  return "ppn" + std::to_string(placement.param);
});

// A loop that nothing ends: preempted, simulated time goes on, and the watchdog still speaks after its
// delay without calls; the wall limit's summary says the rank busy-waits and how often it was paused.
TEST(BusyWaitWatchdog, AnEndlessLoopIsPausedAndStillReported)
{
  auto result = run_bxisim("run -n 3 --no-cpu-simulation --preempt-after 0.05 --watchdog 1 --wall-limit 3 " +
                           test_program("hang") + " spin 1");
  EXPECT_EQ(result.exit_code, kLimit) << result.output;
  EXPECT_THAT(result.output, HasSubstr("watchdog: rank 1 has run its own code for 1 s of wall time without calling the "
                                       "simulator, since simulated time 0.000005000 s"));
  EXPECT_THAT(result.output, HasSubstr("bxisim has paused it"));
  EXPECT_THAT(result.output, HasSubstr("rank-1/hang(spin_on_flag+")); // the backtrace, in the rank's copy
  EXPECT_THAT(result.output, testing::ContainsRegex("rank 1: running its own code( \\(a busy-wait, paused [0-9]+ "
                                                    "times by bxisim\\))?, without calling the simulator since "
                                                    "simulated time 0.000005000 s"));
}

// A rank that computes for longer than --preempt-after without calling the simulator is paused as a
// busy-wait would be (bxisim cannot tell them apart). A pause lets simulated time pass only while something under
// way could end a wait on memory (a Portals operation, a rank asleep or computing in simulated time): ranks that
// compute while every other rank waits for them keep exact times, as without preemption. miniAMR's set-up at 8
// ranks drifted by 2% from run to run when every pause added 100 ns.
// The loop reads its thread's CPU clock, a system call: on this project's virtual machines the signal is
// then delivered as the call returns, outside the rank's code, nearly every time (1 pause in 0.5 s, none
// in 15% of the runs); the pause is now taken in the next clock read from its code, once per quantum.
TEST(BusyWaitSteps, RanksThatComputeWhileNothingIsUnderWayKeepExactTimes)
{
  auto paused = run_bxisim("run -n 2 --no-cpu-simulation --preempt-after 0.05 --log=bxisim_preemption.thres:debug " +
                           test_program("compute") + " spin 0.5");
  ASSERT_EQ(paused.exit_code, 0) << paused.output;
  EXPECT_THAT(paused.output, HasSubstr("rank 0 paused in its own code: nothing under way could end a wait"));
  EXPECT_THAT(paused.output, Not(HasSubstr("busy-wait steps")));
  auto fields = fields_by_rank(paused.output);
  for (int rank : {0, 1})
    EXPECT_EQ(number(fields[rank], "simulated"), 0.0) << paused.output;
}

// While another rank sleeps in simulated time, a computing rank cannot be told from one that waits for what the
// sleeper will write when it wakes: each pause adds 100 ns, so its times depend on the host's speed, and the
// summary says so; --preempt-after 0 keeps its computation at 0 s, as asked.
TEST(BusyWaitSteps, AComputingRankBesideASleepingOneIsCountedAndPreemptAfterZeroKeepsItsTimesExact)
{
  auto paused = run_bxisim("run -n 2 --no-cpu-simulation --preempt-after 0.05 " + test_program("compute") +
                           " spin_beside_sleep 0.5");
  ASSERT_EQ(paused.exit_code, 0) << paused.output;
  // 0.45 s after the first pause, paused after each 100 us quantum in its code: hundreds; at least 10
  EXPECT_THAT(paused.output, testing::ContainsRegex("[1-9][0-9]+ pause\\(s\\) of ranks 0 in their own code added"));
  EXPECT_GT(number(fields_by_rank(paused.output)[0], "simulated"), 0.0) << paused.output;

  auto exact = run_bxisim("run -n 2 --no-cpu-simulation --preempt-after 0 " + test_program("compute") +
                          " spin_beside_sleep 0.5");
  ASSERT_EQ(exact.exit_code, 0) << exact.output;
  EXPECT_THAT(exact.output, Not(HasSubstr("busy-wait steps")));
  EXPECT_EQ(number(fields_by_rank(exact.output)[0], "simulated"), 0.0) << exact.output;
}

// Once found computing for long beside a sleeping rank (each pause adding 100 ns, above), a rank is paused after every
// quantum of its code. Its later computations, shorter than --preempt-after, are told from waits by their registers,
// which move between two pauses: they add no time, as without preemption (MFEM's ex5p at 4 ranks gained 1.3 ms of
// 7.6 ms so; nothing now on an idle host).
TEST(BusyWaitSteps, ComputationsShorterThanPreemptAfterBesideASleepingRankKeepExactTimes)
{
  auto run = run_bxisim("run -n 2 --no-cpu-simulation --preempt-after 0.2 --log=bxisim_preemption.thres:debug " +
                        test_program("compute") + " bursts_beside_sleep 0.6");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, testing::ContainsRegex("[1-9][0-9]* pause\\(s\\) of ranks 0 in their own code added"))
      << "the first computation, longer than --preempt-after, is taken for a wait while rank 1 sleeps";
  EXPECT_THAT(run.output, HasSubstr("rank 0 paused in its own code: its registers moved since the last pause (it "
                                    "computes), no simulated time passes"));
  EXPECT_EQ(number(fields_by_rank(run.output)[0], "bursts"), 0.0) << run.output;
}

namespace
{
/** The preemption signals that found rank 0 in its own code while it computed for `seconds` of CPU time alone, with
 * --preempt-after 0.05, from the run's summary.json. */
long preemption_signals_while_computing(const std::string& level, double seconds)
{
  std::string summary = temporary_path("preempt-" + level + ".json");
  auto result = run_bxisim("run -n 1 -q --level " + level + " --no-cpu-simulation --preempt-after 0.05 --summary " +
                           summary + " " + test_program("compute") + " spin " + std::to_string(seconds));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  std::ifstream in(summary);
  std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::smatch found;
  if (not std::regex_search(json, found, std::regex("\"preemption_signals\": *([0-9]+)"))) {
    ADD_FAILURE() << "no preemption_signals in " << json;
    return -1;
  }
  return std::stol(found[1]);
}
} // namespace

// At smpi a preemption signal pauses nobody (SMPI's clocks and polling costs rule there), yet a rank computing for long
// got one every 100 us of its computation: the kernel's work only (2.2 s of system time beside 9 s of a rank's). None
// is sent there now; at message the same computation is preempted as documented.
TEST(BusyWait, NoPreemptionSignalReachesARankAtSmpi)
{
  EXPECT_EQ(preemption_signals_while_computing("smpi", 0.4), 0);
  EXPECT_GT(preemption_signals_while_computing("message", 0.4), 10);
}
