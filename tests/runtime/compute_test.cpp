// CPU time of ranks becomes simulated computation; the compute API and SMPI's sampling macros.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <nlohmann/json.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace bxisim::test;

namespace
{
std::map<int, Fields> run_compute(const std::string& options, const std::string& arguments)
{
  auto result = run_bxisim("run " + options + " " + test_program("compute") + " " + arguments);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return fields_by_rank(result.output);
}

/**
 * The burst simulated between the program's two clock reads holds the measured spin plus the little
 * code around it: at least the spin times the factor, and not much more.
 */
void expect_simulated_spin(const Fields& fields, double factor)
{
  double measured  = number(fields, "measured");
  double simulated = number(fields, "simulated");
  EXPECT_GE(simulated, measured * factor * 0.999);
  EXPECT_LE(simulated, measured * factor * 1.05 + 0.002);
}
} // namespace

TEST(Compute, CpuTimeOfTheRankIsSimulated)
{
  expect_simulated_spin(run_compute("-n 1", "spin 0.05")[0], 1.0);
}

TEST(Compute, CpuFactorScalesIt)
{
  expect_simulated_spin(run_compute("-n 1 --cpu-factor 3", "spin 0.05")[0], 3.0);
  expect_simulated_spin(run_compute("-n 1 --set cpu.factor=0.5", "spin 0.05")[0], 0.5);
}

TEST(Compute, CpuTimeIsSimulatedAtLevelSmpiAsElsewhere)
{
  // bxisim measures it at every level (SMPI's own measure, only between MPI_Init and MPI_Finalize, gave 0 here).
  expect_simulated_spin(run_compute("-n 1 --level smpi", "spin 0.05")[0], 1.0);
  expect_simulated_spin(run_compute("-n 1 --level smpi --cpu-factor 3", "spin 0.05")[0], 3.0);
}

TEST(Compute, ItDoesNotDependOnTheCoreSpeed)
{
  // Seconds of CPU become flops at the core's speed, which the core then runs at that speed.
  expect_simulated_spin(run_compute("-n 1 --set node.core_speed=1Mf", "spin 0.05")[0], 1.0);
}

TEST(Compute, BurstsBelowTheThresholdAreIgnored)
{
  auto fields = run_compute("-n 1 --cpu-threshold 10s", "spin 0.05")[0];
  EXPECT_GE(number(fields, "measured"), 0.05);
  EXPECT_EQ(number(fields, "simulated"), 0.0);
}

TEST(Compute, ComputationCanBeLeftOut)
{
  auto fields = run_compute("-n 1 --no-cpu-simulation", "spin 0.05")[0];
  EXPECT_EQ(number(fields, "simulated"), 0.0);
}

TEST(Compute, ComputeSecondsTakesExactlyThatLong)
{
  EXPECT_EQ(number(run_compute("-n 2 --no-cpu-simulation", "seconds 0.25")[1], "simulated"), 0.25);
}

TEST(Compute, ComputeFlopsRunsAtTheCoreSpeed)
{
  constexpr double kFlops = 1e9, kSpeed = 4e9;
  EXPECT_EQ(number(run_compute("-n 1 --no-cpu-simulation --set node.core_speed=4Gf", "flops 1e9")[0], "simulated"),
            kFlops / kSpeed);
}

TEST(Compute, SampleDelayAndFlopsReplaceTheirBody)
{
  auto delay = run_compute("-n 1 --no-cpu-simulation", "delay 0.125")[0];
  EXPECT_EQ(number(delay, "simulated"), 0.125);
  EXPECT_EQ(number(delay, "bodies"), 0);
  constexpr double kFlops = 2e9, kSpeed = 8e9;
  auto flops = run_compute("-n 1 --no-cpu-simulation --set node.core_speed=8Gf", "sample_flops 2e9")[0];
  EXPECT_EQ(number(flops, "simulated"), kFlops / kSpeed);
  EXPECT_EQ(number(flops, "bodies"), 0);
}

TEST(Compute, SampleLocalMeasuresEachRankThenExtrapolates)
{
  constexpr int kIterations = 100, kMeasures = 5;
  auto fields = run_compute("-n 2", "sample_local " + std::to_string(kIterations) + " " + std::to_string(kMeasures));
  ASSERT_EQ(fields.size(), 2u);
  for (const auto& [rank, values] : fields) {
    EXPECT_EQ(number(values, "bodies"), kMeasures) << "rank " << rank;
    // Measured bodies are simulated as measured, the others at their mean.
    double expected = number(values, "measured") / kMeasures * kIterations;
    EXPECT_GE(number(values, "simulated"), expected * 0.95) << "rank " << rank;
    EXPECT_LE(number(values, "simulated"), expected * 1.2 + 0.002) << "rank " << rank;
  }
}

TEST(Compute, SampleGlobalSharesTheMeasuresBetweenRanks)
{
  constexpr int kMeasures = 5;
  auto fields             = run_compute("-n 4 --no-cpu-simulation", "sample_global 100 " + std::to_string(kMeasures));
  double bodies           = 0;
  for (const auto& [rank, values] : fields) {
    bodies += number(values, "bodies");
    EXPECT_EQ(number(values, "simulated"), 0.0);
  }
  EXPECT_EQ(bodies, kMeasures);
}

TEST(Compute, SharedMallocGivesEveryRankTheSameBlock)
{
  auto result = run_bxisim("run -n 4 " + test_program("compute") + " shared");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 4u);
  for (const auto& [rank, values] : fields)
    EXPECT_EQ(number(values, "shared_same"), 1) << "rank " << rank;
}

// mpirun's --oversubscribe: ranks beyond a node's cores share them, and SimGrid splits a core between the
// computations on it. 7 ranks on 2 nodes of 2 cores: 4 and 3 per node, cores 0, 1, 0, 1 then 0, 1, 0; rank 5 alone.
TEST(Compute, OversubscribedRanksShareTheirCoresSpeed)
{
  std::string options = "--platform single-switch --set platform.nodes=2 --set node.cores=2 --no-cpu-simulation -n 7";
  auto refused        = run_bxisim("run " + options + " " + test_program("compute") + " seconds 0.001");
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_THAT(refused.output, testing::HasSubstr("--oversubscribe for ranks that share cores")) << refused.output;

  std::string trace = temporary_path("oversubscribed-trace");
  std::filesystem::create_directories(trace);
  auto result = run_bxisim("run " + options + " --oversubscribe --trace " + trace + " " + test_program("compute") +
                           " seconds 0.001");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, testing::HasSubstr("(2 of 2 nodes used, up to 4 ranks on 2 cores: cores shared)"));
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 7u) << result.output;
  for (const auto& [rank, values] : fields)
    EXPECT_DOUBLE_EQ(number(values, "simulated"), rank == 5 ? 0.001 : 0.002) << "rank " << rank;
  // The timeline gives each rank its own computation, though the core does not tell them apart.
  std::map<int, double> computing; // microseconds, by rank
  auto timeline = nlohmann::json::parse(std::ifstream(trace + "/trace.json"));
  for (const auto& event : timeline["traceEvents"])
    if (event.value("name", "") == "compute")
      computing[event["tid"].get<int>()] += event["dur"].get<double>();
  ASSERT_EQ(computing.size(), 7u);
  for (const auto& [rank, microseconds] : computing)
    EXPECT_NEAR(microseconds, rank == 5 ? 1000 : 2000, 1e-6) << "rank " << rank;
}
