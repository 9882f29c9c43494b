// The summary's NIC counters of an MPI run at both NIC levels agree with its traffic, however the run ends.

#include "tests/support/CommandRunner.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <fstream>

using bxisim::test::run_bxisim;
using bxisim::test::run_command;
using bxisim::test::temporary_path;

// The ranks end right after a barrier, its last frames still on the link: the cycle NIC counted a frame once its last
// chunk had gone (6 of the 8 the traffic line counted), the message NIC when it went out.
TEST(RunSummary, FramesStillOnTheLinkAtTheEndAreCountedAsSentAtBothLevels)
{
  std::string source = temporary_path("barrier.c");
  std::ofstream(source) << "#include <mpi.h>\nint main(int argc, char** argv) {\n  MPI_Init(&argc, &argv);\n"
                           "  MPI_Barrier(MPI_COMM_WORLD);\n  return MPI_Finalize();\n}\n";
  std::string program = temporary_path("barrier");
  auto build          = run_command(BXISIM_BIN_DIR "/bxicc " + source + " -o " + program);
  ASSERT_EQ(build.exit_code, 0) << build.output;
  for (const char* level : {"message", "cycle"})
    for (int ppn : {1, 2}) {
      std::string summary = temporary_path(std::string("barrier-") + level + std::to_string(ppn) + ".json");
      auto result         = run_bxisim(std::string("run -n 2 -q --no-cpu-simulation --level ") + level + " --ppn " +
                                       std::to_string(ppn) + " --summary " + summary + " " + program);
      ASSERT_EQ(result.exit_code, 0) << result.output;
      auto s      = nlohmann::json::parse(std::ifstream(summary));
      auto frames = s["traffic"]["wire"]["messages"].get<double>() + s["traffic"]["loopback"]["messages"].get<double>();
      EXPECT_GT(frames, 0);
      EXPECT_EQ(s["nic"][level]["frames_sent"].get<double>(), frames) << level << ", ppn " << ppn;
    }
}
