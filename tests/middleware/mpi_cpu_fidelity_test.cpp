// Timing fidelity of CPU-time injection through OpenMPI (docs/running.md, "Computation"): with CPU simulation on
// (the default), an MPI ping-pong at the NIC levels gives the model's half round trip (the run without CPU
// simulation), as the Portals ping-pong does (tests/runtime/cpu_fidelity_test.cpp). OpenMPI's own code between the
// program and a Portals call takes about 0.1 us on a real node (Debian's OpenMPI over shared memory: 0.21-0.26 us per
// half round trip, everything included, on the development machine), but 1 to 5 us per call here, run cold after
// the simulator's work: bxisim charged it (osu_latency at 8 B: 3.0 to 4.8 us against the model's 1.51). Now the
// library's share of a burst is left out (cpu.mpi_library=false). Measured times are not deterministic: the median
// round, best of five runs (why: cpu_fidelity_test.cpp); 8 B and 64 KiB, across nodes and inside a node.

#include "MpiTestLevels.hpp"
#include "tests/runtime/RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

using namespace bxisim::test;

namespace
{
constexpr double kTolerance = 0.05; // of the model's half round trip
constexpr int kAttempts     = 5;

class MpiCpuFidelity : public testing::TestWithParam<std::tuple<std::string, int>> // level, ranks per node
{
 protected:
  /** Rank 0's median half round trip (us) of a ping-pong of `bytes`, with `options`. */
  double median_half(int bytes, const std::string& options) const
  {
    auto result =
        run_command("'" BXISIM_BINARY "' run -q --no-summary --wall-limit 120 -n 2 --level " + std::get<0>(GetParam()) +
                    " --ppn " + std::to_string(std::get<1>(GetParam())) + " " + options +
                    " " BXISIM_MW_TEST_PROGRAMS "/mpi_cpu_fidelity " + std::to_string(bytes) + " 200 20 2>&1");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    auto fields = fields_by_rank(result.output);
    if (fields.count(0) == 0) {
      ADD_FAILURE() << "no line of rank 0:\n" << result.output;
      return -1;
    }
    return number(fields.at(0), "median_half");
  }

  /** Each rank's simulated time (us) for the program's MPI_Reduce_local `mode` with `amount`, with `options`. */
  std::vector<double> reduce_local(const std::string& mode, int amount, const std::string& options) const
  {
    auto result =
        run_command("'" BXISIM_BINARY "' run -q --no-summary --wall-limit 120 -n 2 --level " + std::get<0>(GetParam()) +
                    " --ppn " + std::to_string(std::get<1>(GetParam())) + " " + options +
                    " " BXISIM_MW_TEST_PROGRAMS "/mpi_cpu_fidelity " + mode + " " + std::to_string(amount) + " 2>&1");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(result.output.find("bad_"), std::string::npos) << result.output;
    std::vector<double> times;
    for (auto& [rank, fields] : fields_by_rank(result.output))
      times.push_back(number(fields, "simulated_us"));
    EXPECT_EQ(times.size(), 2U) << result.output;
    return times;
  }

  /** reduce_local's times, run again (up to kAttempts runs) while one is not below `limit`: a host's disturbance (the
   * kernel charging a preempted thread, a virtual machine's stolen time) lands in a run now and then, while charging
   * the library's computation to the program would show in every run. */
  std::vector<double> reduce_local_below(const std::string& mode, int amount, const std::string& options,
                                         double limit) const
  {
    std::vector<double> times;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      times = reduce_local(mode, amount, options);
      if (std::all_of(times.begin(), times.end(), [&](double time) { return time < limit; }))
        break;
    }
    return times;
  }

  void expect_model_time(int bytes) const
  {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "measured CPU time is ASan's as much as the rank's: checked in the normal build only";
#endif
    double model = median_half(bytes, "--no-cpu-simulation");
    ASSERT_GT(model, 0);
    std::string measured;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      double simulated = median_half(bytes, "");
      if (std::fabs(simulated - model) <= kTolerance * model)
        return;
      measured += " " + std::to_string(simulated);
    }
    ADD_FAILURE() << bytes << " B: median half round trip " << model
                  << " us without CPU simulation, with it in five runs (us):" << measured;
  }
};

std::vector<std::string> nic_levels()
{
  std::vector<std::string> levels;
  for (const std::string& level : mpi_test_levels())
    if (level != "smpi") // SMPI's code is the simulator's: never charged (smpi_parity_test.cpp)
      levels.push_back(level);
  return levels;
}

std::string placement_name(const testing::TestParamInfo<std::tuple<std::string, int>>& param)
{
  return std::get<0>(param.param) + "_ppn" + std::to_string(std::get<1>(param.param));
}
} // namespace

TEST_P(MpiCpuFidelity, EightBytesTakeTheModelsTime)
{
  expect_model_time(8);
}

TEST_P(MpiCpuFidelity, SixtyFourKibibytesTakeTheModelsTime)
{
  expect_model_time(65536);
}

// The library's own computation (MPI_SUM over 4 M doubles: 3 to 7 ms of CPU on the development machine) is not the
// program's by default, and is with cpu.mpi_library=true. The program's share of the call is its few instructions and
// what the kernel charges a thread the host preempts (15 to 170 us each, see below): under 500 us, failed at 100 us
// when two suites ran beside the tests.
TEST_P(MpiCpuFidelity, TheLibrarysComputationIsLeftOutUnlessAskedFor)
{
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "measured CPU time is ASan's as much as the rank's: checked in the normal build only";
#endif
  for (double simulated : reduce_local_below("sum", 4000000, "", 500.0))
    EXPECT_LT(simulated, 500.0) << "us for MPI_Reduce_local of 32 MB, by default";
  for (double simulated : reduce_local("sum", 4000000, "--set cpu.mpi_library=true"))
    EXPECT_GT(simulated, 1000.0) << "us for MPI_Reduce_local of 32 MB, with cpu.mpi_library=true";
}

// A thread off the CPU in the program's code before the call (a loaded host preempts it) does not make the library's
// computation after it the program's: the burst's CPU time went to the program and to the library by their wall times,
// and 20 ms off the CPU gave the program most of the sum's milliseconds (5.5 to 6.1 ms). The pause itself is charged
// some CPU time by the kernel (15 to 170 us of the thread's clock for a 20 ms nanosleep here), not the sum's.
TEST_P(MpiCpuFidelity, ThePrecedingPauseDoesNotMakeTheLibrarysComputationTheProgramsOwn)
{
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "measured CPU time is ASan's as much as the rank's: checked in the normal build only";
#endif
  for (double simulated : reduce_local_below("paused_sum", 4000000, "", 1000.0))
    EXPECT_LT(simulated, 1000.0) << "us for MPI_Reduce_local of 32 MB after 20 ms off the CPU, by default";
}

// The file writes the library makes for MPI-IO are the program's computation, as its own pwrite is: MPI_File_write_at
// of 8 MiB took 4 us (the library's share of a burst is left out), against milliseconds for the same pwrite.
TEST_P(MpiCpuFidelity, TheLibrarysFileWritesAreTheProgramsComputation)
{
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "measured CPU time is ASan's as much as the rank's: checked in the normal build only";
#endif
  std::string folder = temporary_path("mpiio_" + std::get<0>(GetParam()) + std::to_string(std::get<1>(GetParam())));
  ASSERT_EQ(run_command("mkdir -p '" + folder + "'").exit_code, 0);
  auto result = run_command("'" BXISIM_BINARY "' run -q --no-summary --wall-limit 120 -n 2 --level " +
                            std::get<0>(GetParam()) + " --ppn " + std::to_string(std::get<1>(GetParam())) +
                            " " BXISIM_MW_TEST_PROGRAMS "/mpi_cpu_fidelity file_write 8 '" + folder + "' 2>&1");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output.find("bad_"), std::string::npos) << result.output;
  auto ranks = fields_by_rank(result.output);
  ASSERT_EQ(ranks.size(), 2U) << result.output;
  for (auto& [rank, fields] : ranks) {
    double posix = number(fields, "pwrite_us"), mpiio = number(fields, "mpiio_us");
    EXPECT_GT(posix, 100.0) << "us for a pwrite of 8 MiB, rank " << rank; // the kernel's copy into the page cache
    EXPECT_GT(mpiio, 100.0) << "us for MPI_File_write_at of 8 MiB, rank " << rank;
    // Before: 4 us against 3 to 4 ms. The kernel's cost of either varies tenfold on a loaded host (20 ms, 2 ms).
    EXPECT_GT(mpiio, 0.02 * posix) << "rank " << rank;
  }
  run_command("rm -rf '" + folder + "'");
}

// A user operation the library calls is the program's code: its 500 us of CPU time are simulated by default.
TEST_P(MpiCpuFidelity, AUserOperationsComputationIsTheProgramsOwn)
{
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "measured CPU time is ASan's as much as the rank's: checked in the normal build only";
#endif
  for (double simulated : reduce_local("user_op", 500, "")) {
    EXPECT_GE(simulated, 450.0);
    EXPECT_LT(simulated, 5000.0);
  }
  for (double simulated : reduce_local("user_op", 500, "--no-cpu-simulation"))
    EXPECT_EQ(simulated, 0.0);
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(MpiCpuFidelity);
INSTANTIATE_TEST_SUITE_P(NicLevels, MpiCpuFidelity,
                         testing::Combine(testing::ValuesIn(nic_levels()), testing::Values(1, 2)), placement_name);

// With CPU simulation on (the default), what an MPI call costs bxisim itself (its entry points, the ranks' output) is
// not charged to the rank, as smpirun charges nothing but the program's own code: an 8-byte ping-pong, whose code
// between two calls is a few hundred nanoseconds (below cpu.threshold), takes its time without CPU simulation to 2 %.
// SMPI's own measure, used before, charged about 1.8 us per call (35 % more per round trip). Measured times are not
// deterministic: a virtual machine's thread CPU clock also counts the interrupts and the host's steal that land in a
// burst (tens to hundreds of microseconds, a few times per thousand rounds), so the mean round is off by them while a
// cost charged at every call moves every round: the median round, best of five runs, across nodes and inside a node.
TEST(SmpiCpuFidelity, APingPongIsChargedOnlyItsOwnCode)
{
  for (int ranks_per_node : {1, 2}) {
    auto median_half = [&](const std::string& options) {
      auto result = run_command("'" BXISIM_BINARY "' run --level smpi -q --no-summary -n 2 --ppn " +
                                std::to_string(ranks_per_node) + " " + options + " " +
                                BXISIM_MW_TEST_PROGRAMS "/mpi_cpu_fidelity 8 1000 20 2>&1");
      EXPECT_EQ(result.exit_code, 0) << result.output;
      auto fields = fields_by_rank(result.output);
      return fields.count(0) == 0 ? -1.0 : number(fields.at(0), "median_half");
    };
    double model = median_half("--no-cpu-simulation");
    ASSERT_GT(model, 0);
    std::string measured;
    bool faithful = false;
    for (int attempt = 0; attempt < 5 && not faithful; ++attempt) {
      double simulated = median_half("");
      faithful         = std::fabs(simulated - model) <= 0.02 * model;
      measured += " " + std::to_string(simulated);
    }
    EXPECT_TRUE(faithful) << "--ppn " << ranks_per_node << ": the median half round trip takes " << model
                          << " us without CPU simulation, with it:" << measured;
  }
}
