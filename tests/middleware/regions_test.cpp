// Regions (bxisim/region.h) at --level smpi (level switching itself: level_switch_test.cpp): nesting, --region
// re-mapping, BXISIM_LEVEL, the summary table and JSON, ranks crossing different boundaries, misnesting, and the
// header's no-ops under another MPI (SimGrid's smpicc). The program sleeps known simulated times in each phase, so the
// region times follow from them and from one barrier's time, the same in every phase.

#include "tests/runtime/RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
const std::string kPrograms = BXISIM_MW_TEST_PROGRAMS;

struct Row {
  std::string asked, level;
  long entries     = 0;
  double simulated = 0;
};

/** The rows of the regions table bxisim prints. */
std::map<std::string, Row> table(const std::string& output)
{
  std::map<std::string, Row> rows;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string name;
    Row row;
    double wall = 0;
    if (words >> name >> row.asked >> row.level >> row.entries >> row.simulated >> wall)
      rows[name] = row;
  }
  return rows;
}

/** `environment` before the command, `arguments`: bxisim run's options, then the program's mode. */
CommandResult run_regions(const std::string& environment, const std::string& arguments, int ppn = 1)
{
  auto last_space   = arguments.rfind(' ');
  std::string flags = last_space == std::string::npos ? "" : arguments.substr(0, last_space);
  std::string mode  = last_space == std::string::npos ? arguments : arguments.substr(last_space + 1);
  return run_command(environment + " '" BXISIM_BINARY "' run --no-cpu-simulation -n 2 --ppn " + std::to_string(ppn) +
                     " " + flags + " " + kPrograms + "/regions " + mode + " 2>&1");
}
} // namespace

TEST(Regions, NestedRegionsAreTimedAndReMappedWithoutRecompiling)
{
  for (int ppn : {1, 2}) {
    std::string json = temporary_path("regions.json");
    auto result      = run_regions("", "--level smpi --region solve=smpi --regions-json " + json + " nested", ppn);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    auto rows = table(result.output);
    ASSERT_EQ(rows.count("setup") + rows.count("exchange") + rows.count("solve"), 3u) << result.output;
    EXPECT_EQ(rows["setup"].asked, "smpi");    // BXISIM_LEVEL_DEFAULT outside any region: the run's level
    EXPECT_EQ(rows["exchange"].asked, "smpi"); // BXISIM_LEVEL_SMPI
    EXPECT_EQ(rows["solve"].asked, "smpi");    // BXISIM_LEVEL_CYCLE, re-mapped by --region
    EXPECT_EQ(rows["solve"].entries, 2);
    double barrier = rows["exchange"].simulated - 0.002; // exchange: a 2 ms sleep, then a barrier
    EXPECT_GT(barrier, 0.0);
    EXPECT_NEAR(rows["setup"].simulated - rows["exchange"].simulated, 0.001, 1e-9); // setup adds a 1 ms sleep
    EXPECT_NEAR(rows["solve"].simulated, 2 * (0.005 + barrier), 2e-9); // three times read at 1 ns resolution
    std::ifstream file(json);
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_THAT(text.str(), HasSubstr("\"name\": \"solve\", \"asked\": \"smpi\", \"level\": \"smpi\", \"entries\": 2"));
  }
}

TEST(Regions, ARunThatNeverEntersSmpiSaysNothingOfSmpiRanks)
{
  // Every region re-mapped to message: no rank ever initializes SMPI, nor finalizes there.
  for (int ppn : {1, 2}) {
    auto result = run_regions("", "--level message --region exchange=message --region solve=message nested", ppn);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(table(result.output)["solve"].level, "message") << result.output;
    EXPECT_THAT(result.output, Not(HasSubstr("Stalling SMPI instance"))) << result.output;
    EXPECT_THAT(result.output, Not(HasSubstr("MPI_Finalize"))) << result.output;
  }
}

TEST(Regions, TheCodesLevelsAndTheEnvironmentsDefault)
{
  // BXISIM_LEVEL stands for --level when it is not given; a region asking for another level than the
  // run's switches to it (the program uses MPI and regions: both back ends are there), and back.
  auto result = run_regions("BXISIM_LEVEL=smpi", "nested");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto rows = table(result.output);
  EXPECT_EQ(rows["setup"].level, "smpi");
  EXPECT_EQ(rows["solve"].asked, "cycle");
  EXPECT_EQ(rows["solve"].level, "cycle");
  EXPECT_THAT(result.output, HasSubstr("levels (4 switches"));
}

TEST(Regions, RanksCrossingDifferentBoundariesAreReported)
{
  auto result = run_regions("", "--level smpi unbalanced");
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 1 crossed other region boundaries than rank 0"));
}

TEST(Regions, RegionsEndInTheReverseOrder)
{
  auto result = run_regions("", "--level smpi misnested");
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("bxisim_region_end(\"outer\"): the innermost open region is 'inner'"));
}

TEST(Regions, BadRegionSettingsAreRefused)
{
  auto result = run_regions("", "--level smpi --region solve=fast nested");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.output, HasSubstr("unknown level 'fast'"));
}

TEST(Regions, AnUnknownLevelInTheEnvironmentIsNamedAsSuch)
{
  auto result = run_regions("BXISIM_LEVEL=fast", "nested");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr("BXISIM_LEVEL=fast (from the environment): unknown level"));
}

TEST(Regions, ARemappedRegionNoRankEnteredIsNamedWithTheRegionsEntered)
{
  // A misspelt --region would otherwise leave the run at other levels than its user believes.
  auto result = run_regions("", "--level smpi --region solv=cycle --region solve=smpi nested");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("--region solv=cycle re-mapped a region no rank entered; the regions entered "
                                       "were 'exchange', 'setup', 'solve'"));
  EXPECT_THAT(result.output, Not(HasSubstr("--region solve=smpi re-mapped")));
}

TEST(Regions, TheHeaderIsANoOpUnderAnotherMpi)
{
  std::string program = temporary_path("regions_smpi");
  auto built          = run_command("'" BXISIM_SMPICC "' -I'" BXISIM_SOURCE_DIR "/runtime/include' '" BXISIM_SOURCE_DIR
                                    "/tests/middleware/programs/regions.c' -o " +
                                    program + " 2>&1");
  ASSERT_EQ(built.exit_code, 0) << built.output;
  auto ran = run_command("'" BXISIM_SMPIRUN "' -np 2 -platform '" BXISIM_PARITY_DIR
                         "/cluster16.xml' -hostfile '" BXISIM_PARITY_DIR "/cluster16.hosts' " +
                         program + " nested 2>&1");
  EXPECT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("done=1"));
}
