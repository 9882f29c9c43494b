// cmake --install into a temporary prefix: bxisim, bxicc, the headers, the OpenMPI build, the docs, a
// CMake package config and a pkg-config file land there and work from there. An MPI program built
// with the installed bxicc runs under the installed bxisim, across nodes and inside a node, and its
// result (a sum over the ranks) is the one MPI defines.

#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using bxisim::test::run_command;
using bxisim::test::temporary_path;
using testing::HasSubstr;

namespace
{
constexpr int kRanks = 4;

/** Installs the build once per test process. */
const std::string& installed_prefix()
{
  static const std::string prefix = [] {
    std::string folder = temporary_path("prefix");
    auto install       = run_command("'" CMAKE_COMMAND "' --install '" BXISIM_BUILD_DIR "' --prefix " + folder);
    EXPECT_EQ(install.exit_code, 0) << install.output;
    return folder;
  }();
  return prefix;
}

std::string write_file(const std::string& name, const std::string& text)
{
  std::string path = temporary_path(name);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
  return path;
}

const char* kSumProgram = R"(#include <mpi.h>
#include <stdio.h>
int main(int argc, char** argv)
{
  int rank, size, sum = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("size=%d sum=%d\n", size, sum);
  MPI_Finalize();
  return 0;
}
)";

std::string run_installed_mpi_program(const std::string& placement, const std::string& options = "")
{
  const std::string& prefix = installed_prefix();
  std::string program       = temporary_path("sum");
  auto build = run_command(prefix + "/bin/bxicc -O1 " + write_file("sum.c", kSumProgram) + " -o " + program);
  EXPECT_EQ(build.exit_code, 0) << build.output;
  if (build.exit_code != 0)
    return build.output;
  // From a folder outside the build, with no BXISIM_OPENMPI_PREFIX: bxisim looks in the prefix first.
  auto run = run_command("cd " + std::filesystem::path(program).parent_path().string() +
                         " && env -u BXISIM_OPENMPI_PREFIX " + prefix + "/bin/bxisim run -n " + std::to_string(kRanks) +
                         " " + placement + " --no-cpu-simulation -q --no-summary " + options + " " + program + " 2>&1");
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("[rank 0] size=" + std::to_string(kRanks) +
                                    " sum=" + std::to_string(kRanks * (kRanks - 1) / 2)));
  return run.output;
}

void run_installed_at_cycle(const std::string& placement)
{
  // The installed bxisim loads the installed cycle NIC plugin, not the build tree's.
  auto output = run_installed_mpi_program(placement, "--level cycle --log=bxisim_launch.thres:verbose");
  EXPECT_THAT(output,
              HasSubstr("cycle NIC model loaded from " + std::filesystem::canonical(installed_prefix()).string() +
                        "/lib/bxisim/libbxisim-nic-cycle.so"));
}
} // namespace

TEST(Install, MpiProgramRunsFromThePrefixAcrossNodes)
{
  run_installed_mpi_program("--ppn 1");
}

TEST(Install, MpiProgramRunsFromThePrefixInsideANode)
{
  run_installed_mpi_program("--ppn " + std::to_string(kRanks));
}

TEST(Install, CycleLevelRunsWithThePrefixsPluginAcrossNodes)
{
  run_installed_at_cycle("--ppn 1");
}

TEST(Install, CycleLevelRunsWithThePrefixsPluginInsideANode)
{
  run_installed_at_cycle("--ppn " + std::to_string(kRanks));
}

TEST(Install, PrefixHoldsHeadersDocsScriptsAndOpenMpi)
{
  const std::string& prefix = installed_prefix();
  for (const char* file :
       {"bin/bxisim", "bin/bxicc", "bin/bxicxx", "include/portals4.h", "include/mpi.h", "include/bxisim/rank.h",
        "share/doc/bxisim/summary.schema.json", "share/doc/bxisim/running.md", "share/bxisim/render_timeline.py",
        "share/bxisim/plot_csv.py", "lib/bxisim/openmpi/complete", "lib/bxisim/libbxisim-nic-cycle.so",
        "lib/cmake/bxisim/bxisimConfig.cmake", "lib/pkgconfig/bxisim.pc"})
    EXPECT_TRUE(std::filesystem::exists(prefix + "/" + file)) << file;
  // The installed bxisim finds its drawing scripts in the prefix.
  auto help = run_command(prefix + "/bin/bxisim plot " + prefix + "/share/doc/bxisim/results/flow-control.csv -o " +
                          temporary_path("plots"));
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_THAT(help.output, HasSubstr("flow-control.png"));
}

TEST(Install, PkgConfigAndCMakeFindTheHeaders)
{
  const std::string& prefix = installed_prefix();
  auto cflags               = run_command("PKG_CONFIG_PATH=" + prefix + "/lib/pkgconfig pkg-config --cflags bxisim");
  ASSERT_EQ(cflags.exit_code, 0) << cflags.output;
  auto include = run_command("PKG_CONFIG_PATH=" + prefix + "/lib/pkgconfig pkg-config --variable=includedir bxisim");
  EXPECT_EQ(std::filesystem::canonical(include.output.substr(0, include.output.size() - 1)),
            std::filesystem::canonical(prefix + "/include"));

  // A project of its own: find_package(bxisim), a C file compiled against portals4.h and mpi.h.
  std::string project = temporary_path("consumer");
  write_file("consumer/CMakeLists.txt", "cmake_minimum_required(VERSION 3.25)\nproject(consumer C)\n"
                                        "find_package(bxisim 0.1 REQUIRED)\n"
                                        "add_library(uses OBJECT uses.c)\n"
                                        "target_link_libraries(uses PRIVATE bxisim::headers)\n"
                                        "message(STATUS \"bxicc=${BXISIM_CC}\")\n");
  write_file("consumer/uses.c", "#include <portals4.h>\n#include <mpi.h>\n#include <bxisim/rank.h>\n"
                                "int uses(void) { return PTL_OK + MPI_SUCCESS; }\n");
  auto configure =
      run_command("'" CMAKE_COMMAND "' -S " + project + " -B " + project + "/build -DCMAKE_PREFIX_PATH=" + prefix +
                  " && '" CMAKE_COMMAND "' --build " + project + "/build");
  ASSERT_EQ(configure.exit_code, 0) << configure.output;
  EXPECT_THAT(configure.output, HasSubstr("bxicc=" + prefix + "/bin/bxicc"));
}
