// Timing fidelity of CPU-time injection (docs/running.md, "Computation"): with CPU simulation on (the
// default), the time bxisim spends between two calls of a rank (its own clock reads and system calls,
// its bookkeeping, the first pass through its code) is not charged to the rank. programs/cpu_fidelity.c
// times a rank's first three Puts (each with its ACK) and a ping-pong round by round; these tests
// compare them with the same run with CPU simulation off, the model's figures.
//
// These are among the few tests on measured (so not deterministic) simulated times. The thresholds
// are the issue's: 2% of the model's half round trip, 5% between a rank's first and second Put. What
// the program does between two calls takes a few hundred nanoseconds, below cpu.threshold (1 us): a
// round where nothing disturbs the rank gives the model's time to the bit. A loaded machine does
// disturb some: the thread CPU clock of a virtual machine counts the interrupts taken and the time the
// host takes the CPU away, and a rank descheduled between two calls is charged the context switches
// (tens of microseconds, at random points). So the ping-pong is judged on its median round, which
// such rare events do not move, and the first Puts (single measures) on the best of five runs: a
// cost bxisim charged systematically (before this test, the first Put of the process paid 2 to 6 us
// more than the second, in every run) fails all five. So did the first pass through clock_gettime's conversion
// (about 1 us of cache and TLB misses, run after the burst had started: the first Put of one rank in two runs). Under
// `stress --cpu 2` a run's first Put missed the 5% in 2 of 6 runs (64 KiB inside a node) and 0 of 18 (the other three
// cases).

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace bxisim::test;

namespace
{
constexpr int kRanks       = 4; // two pairs: the first Put of the process and a later rank's
constexpr int kRounds      = 200;
constexpr double kPingPong = 0.02; // of the model's half round trip
constexpr double kFirstPut = 0.05; // of the rank's second Put
constexpr int kAttempts    = 5;

std::map<int, Fields> run_fidelity(const std::string& options, size_t bytes)
{
  auto result = run_bxisim(fmt::format("run -q --no-summary -n {} {} --level message {} {} {}", kRanks, options,
                                       test_program("cpu_fidelity"), bytes, kRounds));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return fields_by_rank(result.output);
}

/** Whether a run with CPU simulation on gives the model's times; says why not in `why`. */
bool faithful(const std::map<int, Fields>& simulated, const std::map<int, Fields>& model, std::string& why)
{
  bool ok = true;
  for (int rank = 0; rank < kRanks; rank += 2) {
    const Fields& on  = simulated.at(rank);
    const Fields& off = model.at(rank);
    double half = number(on, "median_half"), model_half = number(off, "median_half");
    double first = number(on, "first"), second = number(on, "second");
    if (std::fabs(half - model_half) > kPingPong * model_half) {
      ok = false;
      why += fmt::format(" rank {}: median half round trip {} us, model {} us;", rank, half, model_half);
    }
    if (std::fabs(first - second) > kFirstPut * second) {
      ok = false;
      why += fmt::format(" rank {}: first Put {} us, second {} us;", rank, first, second);
    }
  }
  return ok;
}

void expect_faithful(const std::string& placement, size_t bytes)
{
#if defined(__SANITIZE_ADDRESS__)
  // Under ASan the rank's calls to malloc, memcpy & co. go through ASan's interceptors (first touches of
  // shadow memory, quarantine): CPU time of the rank's own code that the normal build does not have. What
  // these tests check is a property of the normal build, where they run; ASan checks these paths through
  // every other Portals test.
  GTEST_SKIP() << "measured CPU time is ASan's as much as the rank's: checked in the normal build only";
#endif
  auto model = run_fidelity(placement + " --no-cpu-simulation", bytes);
  ASSERT_EQ(model.size(), static_cast<size_t>(kRanks / 2)) << "one line per pair";
  for (int rank = 0; rank < kRanks; rank += 2) // the model itself: every Put alike (clocks read in ns)
    ASSERT_NEAR(number(model.at(rank), "first"), number(model.at(rank), "second"), 1.001e-3);
  std::string failures;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    auto simulated = run_fidelity(placement, bytes);
    ASSERT_EQ(simulated.size(), model.size());
    std::string why;
    if (faithful(simulated, model, why))
      return;
    failures += fmt::format("\n  run {}:{}", attempt + 1, why);
  }
  ADD_FAILURE() << "CPU simulation charged the simulator's time to the ranks in every run:" << failures;
}
} // namespace

TEST(CpuFidelity, EightBytesAcrossNodes)
{
  expect_faithful("--ppn 1", 8);
}

TEST(CpuFidelity, EightBytesInsideANode)
{
  expect_faithful("--ppn 2", 8);
}

TEST(CpuFidelity, SixtyFourKibibytesAcrossNodes)
{
  expect_faithful("--ppn 1", 65536);
}

TEST(CpuFidelity, SixtyFourKibibytesInsideANode)
{
  expect_faithful("--ppn 2", 65536);
}
