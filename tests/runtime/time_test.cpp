// Ranks live in simulated time: every clock a program reads and every way it sleeps.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace bxisim::test;

namespace
{
Fields sleep_and_read_clocks(const std::string& how, double seconds, const std::string& options = "--no-cpu-simulation")
{
  auto result =
      run_bxisim("run -n 1 " + options + " " + test_program("clocks") + " " + how + " " + std::to_string(seconds));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return fields_by_rank(result.output)[0];
}

void expect_every_clock_advanced_by(const Fields& clocks, double seconds)
{
  // Exactly: the simulated clock starts at 0 and nothing else takes simulated time.
  for (const char* clock : {"monotonic", "realtime", "steady_clock", "system_clock", "bxisim_time", "timespec_get"})
    EXPECT_EQ(number(clocks, clock), seconds) << clock;
  EXPECT_NEAR(number(clocks, "ftime"), seconds, 1e-9); // in milliseconds
  EXPECT_EQ(number(clocks, "calendar_start"), 0.0);
  EXPECT_EQ(number(clocks, "gettimeofday"), seconds);
  EXPECT_EQ(number(clocks, "time"), std::floor(seconds)); // time() counts whole seconds from 0
}
} // namespace

TEST(SimulatedTime, NanosleepAdvancesEveryClockByExactlyTheSleep)
{
  expect_every_clock_advanced_by(sleep_and_read_clocks("nanosleep", 1.5), 1.5);
}

TEST(SimulatedTime, UsleepAdvancesEveryClockByExactlyTheSleep)
{
  expect_every_clock_advanced_by(sleep_and_read_clocks("usleep", 1.5), 1.5);
}

TEST(SimulatedTime, ChronoSleepAdvancesEveryClockByExactlyTheSleep)
{
  expect_every_clock_advanced_by(sleep_and_read_clocks("chrono", 1.5), 1.5);
}

TEST(SimulatedTime, SleepAdvancesEveryClockByExactlyTheSleep)
{
  expect_every_clock_advanced_by(sleep_and_read_clocks("sleep", 2), 2);
}

// Old code sleeps with select or poll on no descriptor: they took wall time and no simulated time.
TEST(SimulatedTime, SelectAndPollWithoutDescriptorsAreSleeps)
{
  for (const char* how : {"select", "pselect", "poll", "ppoll"})
    expect_every_clock_advanced_by(sleep_and_read_clocks(how, 1.5), 1.5);
}

// With descriptors, the real call held the simulator (every rank) for its timeout: they are checked between sleeps of
// simulated time until one is ready or the timeout has passed (here an empty pipe for 0.5 + 0.1 s, then a full one).
TEST(SimulatedTime, SelectAndPollOnDescriptorsWaitInSimulatedTime)
{
  auto clocks = sleep_and_read_clocks("poll_pipe", 0.5);
  EXPECT_EQ(clocks["empty_pipe_poll"], "0");
  EXPECT_EQ(clocks["empty_pipe_select"], "0");
  EXPECT_EQ(clocks["still_set"], "0"); // a select that timed out clears the sets
  EXPECT_EQ(clocks["full_pipe_select"], "1");
  EXPECT_EQ(clocks["set"], "1");
  EXPECT_EQ(clocks["full_pipe_poll"], "1");
  EXPECT_NEAR(number(clocks, "monotonic"), 0.6, 1e-9); // the timeouts, and no time for the ready descriptor
}

TEST(SimulatedTime, ALongSleepIsSimulatedNotWaited)
{
  // An hour of simulated sleep: the test's own timeout (minutes) would catch a real one.
  expect_every_clock_advanced_by(sleep_and_read_clocks("sleep", 3600), 3600);
}

TEST(SimulatedTime, WithComputationSimulatedTheSleepIsStillThere)
{
  // The rank's own CPU time is added to the sleep, so the clock moves at least by the sleep.
  Fields clocks = sleep_and_read_clocks("nanosleep", 1.5, "");
  EXPECT_GE(number(clocks, "monotonic"), 1.5);
  EXPECT_LT(number(clocks, "monotonic"), 1.6);
}

// `while (now() - start < t) {}` with nothing simulated (OSU's overlap benchmarks do this with
// MPI_Wtime): after 1000 reads at one simulated time each read costs 10 ns (as SMPI charges every read) for 100,000
// reads, then doubles after every 10,000 further reads up to 1 us (runtime/os/TimeInterposition.cpp), so the loop
// ends after t, at most a step late, and bxisim says why once the step grows.
namespace
{
struct SpinBound {
  double step = 0;     // the cost of a read once the loop has spun for the wait
  long reads  = 0;     // the reads it takes
  bool warned = false; // whether the step grew (bxisim warns then)
};

/** The rule of docs/running.md, "Busy-waits", applied to a loop that spins for `wait` seconds. */
SpinBound spin_bound(double wait)
{
  const long free_reads = 1000, steady_reads = 100000, reads_per_doubling = 10000;
  const double first_step = 1e-8, last_step = 1e-6;
  SpinBound bound{first_step, free_reads};
  double spun = 0;
  for (long band = 0; spun < wait; ++band) {
    bound.step  = std::min(first_step * static_cast<double>(1L << std::min(band, 20L)), last_step);
    long needed = static_cast<long>(std::ceil((wait - spun) / bound.step));
    long reads  = std::min(needed, band == 0 ? steady_reads : reads_per_doubling);
    spun += static_cast<double>(reads) * bound.step;
    bound.reads += reads;
    bound.warned = band > 0;
  }
  return bound;
}

/** Both ranks spin for `wait` simulated seconds (ppn 1 and 2): each ends after it, at most the rule's step late,
 * within the rule's number of reads, and bxisim warned about each once the step grew. */
void expect_spin_ends_by_the_rule(double wait)
{
  const SpinBound bound = spin_bound(wait);
  for (int ppn : {1, 2}) {
    auto result = run_bxisim("run -n 2 --ppn " + std::to_string(ppn) + " --no-cpu-simulation " +
                             test_program("clocks") + " spin " + std::to_string(wait));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (int rank : {0, 1}) {
      std::string warning = "rank " + std::to_string(rank) + " read the clock or called sched_yield 101000 times";
      if (bound.warned)
        EXPECT_THAT(result.output, testing::HasSubstr(warning));
      else
        EXPECT_THAT(result.output, testing::Not(testing::HasSubstr("read the clock")));
      Fields clocks = fields_by_rank(result.output)[rank];
      // the loop's last read is at >= wait; the first read after it costs one more read
      EXPECT_GE(number(clocks, "monotonic"), wait) << result.output;
      EXPECT_LE(number(clocks, "monotonic"), wait + 3 * bound.step) << result.output;
      EXPECT_LE(number(clocks, "spin_reads"), static_cast<double>(bound.reads) + 2) << result.output;
    }
  }
}

} // namespace

TEST(SimulatedTime, AClockBusyWaitEndsWhenNothingIsSimulated)
{
  expect_spin_ends_by_the_rule(5e-4);
}

// A wait of a simulated second (MPICH's pt2pt/bsendpending waits 2 s): about 1e6 reads once the step has
// grown to 1 us, where 10 ns steps would take 1e8 (minutes of wall time); bxisim says why.
TEST(SimulatedTime, AClockBusyWaitOfASecondTakesAMillionReads)
{
  expect_spin_ends_by_the_rule(1.0);
}

// A program that times short computations (ELPA: MPI_Wtime around each kernel, 20,000 reads in a solve of a rank
// alone) with nothing simulated: its reads cost what SMPI charges, 10 ns each after the first 1000, with no warning.
// The step doubled after every 1000 reads up to 1 us: 13 ms of simulated time for 20,000 reads, 70 times smpi's, and a
// warning of a loop waiting for time to pass.
TEST(SimulatedTime, TimersAroundComputationCostWhatSmpiCharges)
{
  for (int ppn : {1, 2}) {
    auto result = run_bxisim("run -n 2 --ppn " + std::to_string(ppn) + " --no-cpu-simulation " +
                             test_program("clocks") + " timed_kernels 10000");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_THAT(result.output, testing::Not(testing::HasSubstr("read the clock"))) << result.output;
    for (int rank : {0, 1}) {
      Fields clocks = fields_by_rank(result.output)[rank];
      EXPECT_EQ(number(clocks, "spin_reads"), 20000) << result.output;
      // 20,000 reads and the program's few others, less the 1000 free ones, at 10 ns
      EXPECT_GE(number(clocks, "monotonic"), 19000 * 1e-8) << result.output;
      EXPECT_LE(number(clocks, "monotonic"), 19100 * 1e-8) << result.output;
    }
  }
}

namespace
{
// Each rank computes 3 ms of CPU time, simulated 1000 times slower (cpu.factor), then calls time()
// inside a shared library's lock. A clock read that switched ranks there left the other rank blocked on
// that lock, on the one thread all ranks share: the run never ended (the wall-time limit bounds it here).
void expect_time_in_a_locked_library_to_switch_no_rank(int ppn)
{
  auto result = run_bxisim("run -n 2 --ppn " + std::to_string(ppn) + " --wall-limit 60 --set cpu.factor=1000 " +
                           test_program("locked_clock") + " 0.003");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (int rank : {0, 1}) {
    Fields fields = fields_by_rank(result.output)[rank];
    // time() counts the computation so far (3 s simulated) although it does not end the burst
    EXPECT_GE(number(fields, "seconds"), 3) << result.output;
    EXPECT_LE(number(fields, "seconds"), number(fields, "simulated")) << result.output;
  }
}
} // namespace

TEST(SimulatedTime, TimeInsideASharedLibrarysLockSwitchesNoRankAcrossNodes)
{
  expect_time_in_a_locked_library_to_switch_no_rank(1);
}

TEST(SimulatedTime, TimeInsideASharedLibrarysLockSwitchesNoRankInsideANode)
{
  expect_time_in_a_locked_library_to_switch_no_rank(2);
}

// A shared library's mutex held across an MPI call that waits for the other ranks, which wait for the mutex (a Fortran
// print whose list called MPI did so with libgfortran's unit lock until each rank got its own libgfortran): the run
// ends after a simulated second of waiting, saying who holds the lock and what to do, instead of running for ever.
TEST(SharedLocks, AMutexHeldAcrossACollectiveEndsWithTheReason)
{
  for (const char* level : {"smpi", "message"})
    for (const char* ppn : {"1", "3"}) { // across nodes, inside a node
      auto result = run_bxisim(std::string("run -n 3 --ppn ") + ppn + " --no-cpu-simulation --wall-limit 60 --level " +
                               level + " " + test_program("locked_clock_mpi") + " 0 barrier");
      EXPECT_EQ(result.exit_code, 6) << level << "\n" << result.output; // kUnsupportedExitCode
      EXPECT_THAT(result.output, testing::HasSubstr("for a lock of a shared library that rank")) << level << "\n"
                                                                                                 << result.output;
      EXPECT_THAT(result.output, testing::HasSubstr("holds across a simulator call, and rank")) << level << "\n"
                                                                                                << result.output;
      EXPECT_THAT(result.output, testing::HasSubstr("--privatize-lib NAME")) << level << "\n" << result.output;
    }
}

// At --level smpi, SMPI keeps the account of CPU time: time() reads the clock of the rank's last MPI call
// there, and still switches no rank (the same program hung before).
TEST(SimulatedTime, TimeInsideASharedLibrarysLockSwitchesNoRankAtTheSmpiLevel)
{
  for (int ppn : {1, 2}) {
    auto result = run_bxisim("run -n 2 --ppn " + std::to_string(ppn) + " --level smpi --wall-limit 60 " +
                             test_program("locked_clock_mpi") + " 0.003");
    ASSERT_EQ(result.exit_code, 0) << result.output;
    auto fields = fields_by_rank(result.output);
    ASSERT_EQ(fields.size(), 2u) << result.output;
    for (const auto& [rank, values] : fields)
      EXPECT_EQ(number(values, "seconds"), 0) << "rank " << rank;
  }
}

namespace
{
// Three ranks each sleep a simulated millisecond while they hold a shared library's mutex. The real
// pthread_mutex_lock of the second rank put the one thread all ranks share to sleep on a lock only that
// thread could release (the run hung; libgfortran's I/O units, locked across an MPI call in a print,
// did the same). A rank now waits in simulated time, polling from 10 ns doubling to 1 us, so each takes
// the mutex at its first poll after the previous holder left it.
void expect_ranks_to_take_a_shared_mutex_in_turn(int ppn)
{
  auto result = run_bxisim("run -n 3 --ppn " + std::to_string(ppn) + " --no-cpu-simulation --wall-limit 60 " +
                           test_program("locked_clock") + " 0 sleep");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 3u) << result.output;
  // Polls at 10, 30, 70, ..., 1270 ns, then every 1 us: the first after 1 ms is at 1.000270 ms.
  EXPECT_DOUBLE_EQ(number(fields[0], "simulated"), 0.001000000) << result.output;
  EXPECT_DOUBLE_EQ(number(fields[1], "simulated"), 0.002000270) << result.output;
  EXPECT_DOUBLE_EQ(number(fields[2], "simulated"), 0.003001270) << result.output;
}
} // namespace

TEST(SharedLocks, RanksTakeAMutexInTurnInSimulatedTimeAcrossNodes)
{
  expect_ranks_to_take_a_shared_mutex_in_turn(1);
}

TEST(SharedLocks, RanksTakeAMutexInTurnInSimulatedTimeInsideANode)
{
  expect_ranks_to_take_a_shared_mutex_in_turn(3);
}
