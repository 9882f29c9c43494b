// --privatize-lib gives each rank its own copy of shared libraries, relinked to each other.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
constexpr int kRanks = 4;

std::map<int, Fields> run_privatize(const std::string& options)
{
  auto result = run_bxisim("run -n " + std::to_string(kRanks) + " " + options + " " + test_program("privatize"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return fields_by_rank(result.output);
}
/** Runs test program `program` on `ranks` ranks, `ppn` per node, at `level` (the default when empty): it ended well;
 *  each rank's fields. */
std::map<int, Fields> run_placed(const std::string& program, int ranks, int ppn, const std::string& level = "")
{
  auto result = run_bxisim("run -n " + std::to_string(ranks) + " --ppn " + std::to_string(ppn) +
                           (level.empty() ? "" : " --level " + level) + " -q " + test_program(program));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  EXPECT_EQ(fields.size(), static_cast<size_t>(ranks)) << result.output;
  return fields;
}
} // namespace

TEST(PrivatizeLib, WithoutItRanksShareTheLibrariesGlobals)
{
  auto fields = run_privatize("");
  ASSERT_EQ(static_cast<int>(fields.size()), kRanks);
  for (const auto& [rank, values] : fields)
    EXPECT_EQ(number(values, "b_value"), kRanks) << "rank " << rank; // every rank bumped the one counter
}

TEST(PrivatizeLib, EachRanksCopyOfACallsItsOwnCopyOfB)
{
  // By name (found through the program's RUNPATH) and by path.
  auto fields = run_privatize("--privatize-lib libshared_a.so --privatize-lib " + test_program("libshared_b.so"));
  ASSERT_EQ(static_cast<int>(fields.size()), kRanks);
  for (const auto& [rank, values] : fields)
    EXPECT_EQ(number(values, "b_value"), 1) << "rank " << rank;
}

TEST(PrivatizeLib, ShortNameFindsLibFooSo)
{
  auto fields = run_privatize("--privatize-lib shared_a --privatize-lib shared_b");
  for (const auto& [rank, values] : fields)
    EXPECT_EQ(number(values, "b_value"), 1) << "rank " << rank;
}

// A project's own shared libraries built with bxicc (libtool's default; p4est over libsc): each rank gets its own copy
// of the one that calls MPI and of the one between it and the program, without --privatize-lib. Shared, the second
// rank's registration found the first's (libsc aborted: "Package libsc is already registered").
TEST(PrivatizeLib, LibrariesBuiltForBxisimAreEachRanksOwnWithoutBeingNamed)
{
  for (const std::string level : {"smpi", "message"})
    for (int ppn : {1, 2})
      for (const auto& [rank, values] : run_placed("own_libraries", 4, ppn, level)) {
        EXPECT_EQ(number(values, "registrations"), 1) << level << " ppn " << ppn << " rank " << rank;
        EXPECT_EQ(number(values, "owner"), rank) << level << " ppn " << ppn;
      }
}

// A library without a soname linked by its path (hand-written Makefiles: `cc main.c /path/libfoo.so`) is needed by that
// path: its copies were made, but the program's copy still needed the original, shared by all ranks (counts 1, 2, 3).
TEST(PrivatizeLib, ALibraryNeededByItsPathIsEachRanksOwn)
{
  for (int ppn : {1, 2})
    for (const auto& [rank, values] : run_placed("path_needed", 3, ppn))
      EXPECT_EQ(number(values, "count"), 1) << "ppn " << ppn << " rank " << rank;
}

// The same library linked by `-L<folder> -lname` (no soname): the linker writes its file name, which the loader looks
// up in the program's RUNPATH. That entry named none of the rank's copies (neither soname nor path): every rank shared
// the original, even with --privatize-lib.
TEST(PrivatizeLib, ALibraryWithoutASonameNeededByItsFileNameIsEachRanksOwn)
{
  for (const std::string level : {"smpi", "message"})
    for (int ppn : {1, 2})
      for (const auto& [rank, values] : run_placed("file_name_needed", 3, ppn, level))
        EXPECT_EQ(number(values, "count"), 1) << level << " ppn " << ppn << " rank " << rank;
}

// Two libraries of one file name from two folders, needed by their paths (no soname): their copies in a rank's folder
// overwrote each other (one of them was loaded twice, the other not at all), and the first library was taken for both.
TEST(PrivatizeLib, TwoLibrariesOfOneFileNameAreEachRanksOwnBoth)
{
  for (int ppn : {1, 3}) {
    auto result = run_bxisim("run -n 3 --ppn " + std::to_string(ppn) + " -q " + test_program("same_name_libraries"));
    ASSERT_EQ(result.exit_code, 0) << result.output;
    auto fields = fields_by_rank(result.output);
    ASSERT_EQ(fields.size(), 3u) << result.output;
    for (const auto& [rank, values] : fields) {
      EXPECT_EQ(number(values, "first"), 1) << "ppn " << ppn << " rank " << rank;
      EXPECT_EQ(number(values, "second"), 1) << "ppn " << ppn << " rank " << rank;
      EXPECT_EQ(number(values, "total"), 3) << "ppn " << ppn << " rank " << rank;
    }
  }
}

// A project's own library whose thread calls MPI (PT-Scotch's libptscotch with SCOTCH_PTHREAD_MPI): its threads are the
// rank's, as the program's. They were taken for threads of a system library (an OpenMP team's), whose MPI calls are
// refused: "rank 0 called an MPI function from thread ..., a thread that a library created". Linked and opened with
// dlopen; at the NIC levels, where a rank's threads may call MPI (at smpi only its main thread may).
TEST(PrivatizeLib, ThreadsOfTheProjectsOwnLibrariesAreTheRanks)
{
  for (const std::string level : {"message", "cycle"})
    for (int ppn : {1, 2})
      for (const std::string how : {"", "opened"}) {
        auto result = run_bxisim("run -n 3 --ppn " + std::to_string(ppn) + " --level " + level + " -q " +
                                 test_program("threaded_library") + " " + how);
        ASSERT_EQ(result.exit_code, 0) << result.output;
        auto fields = fields_by_rank(result.output);
        ASSERT_EQ(fields.size(), 3u) << result.output;
        for (const auto& [rank, values] : fields)
          EXPECT_EQ(number(values, "sum"), 3) << level << " ppn " << ppn << " " << how << " rank " << rank;
      }
}

// Libraries opened with dlopen, as plugins: under mpirun each process loads its own; here the loader loads a file once,
// so the ranks shared one instance, and a plugin needing one of the program's own libraries got the shared original of
// it (registrations 2, 4, 6 instead of 2 each). Each rank now opens its own copy (runtime/os/DlopenInterposition.cpp),
// and dlopen(NULL) gives its own program (it gave bxisim's handle, where dlsym found none of the program's symbols),
// as dlsym(RTLD_DEFAULT) searches it first, from a library every rank shares too (which found none of its symbols).
TEST(PrivatizeLib, LibrariesOpenedWithDlopenAreEachRanksOwn)
{
  for (const std::string level : {"smpi", "message", "cycle"})
    for (int ppn : {1, 3}) {
      auto result = run_bxisim("run -n 3 --ppn " + std::to_string(ppn) + " --level " + level + " -q " +
                               test_program("opened_plugins"));
      ASSERT_EQ(result.exit_code, 0) << result.output;
      auto fields = fields_by_rank(result.output);
      ASSERT_EQ(fields.size(), 3u) << result.output;
      for (const auto& [rank, values] : fields) {
        std::string where = level + " ppn " + std::to_string(ppn) + " rank " + std::to_string(rank);
        EXPECT_EQ(number(values, "registrations"), 2) << where;
        EXPECT_EQ(number(values, "owner"), rank) << where;
        EXPECT_EQ(number(values, "total"), 6) << where;
        EXPECT_EQ(number(values, "same_handle"), 1) << where;
        EXPECT_EQ(number(values, "plugin_count"), 1) << where;
        EXPECT_EQ(number(values, "main_program"), rank) << where; // dlopen(NULL): bxisim's handle gave nothing
        EXPECT_EQ(number(values, "default_program"), 1) << where; // dlsym(RTLD_DEFAULT, "main") gave bxisim's
        EXPECT_EQ(number(values, "default_library"), 1) << where;
        EXPECT_EQ(number(values, "next_libc"), 1) << where;
        EXPECT_EQ(number(values, "default_missing"), 1) << where;
        EXPECT_EQ(number(values, "shared_lookup"), 1) << where; // a shared library's lookup found nothing
      }
    }
}

namespace
{
/** What libtool writes in place of a program linked to its project's uninstalled libraries, reduced to what it does:
 *  sourced with libtool's magic variable it sets its variables only, run it starts the program. */
std::string libtool_wrapper(const std::string& program, const std::string& library_folder)
{
  std::filesystem::path path = std::filesystem::path(program).filename();
  return "#! /bin/sh\n\n# " + path.string() + " - temporary wrapper script for .libs/" + path.string() +
         "\n# Generated by libtool (GNU libtool) 2.4.7 Debian-2.4.7-7~deb12u1\n"
         "if test \"$libtool_execute_magic\" != \"%%%MAGIC variable%%%\"; then\n  file=\"$0\"\n"
         "  ECHO=\"printf %s\\\\n\"\nfi\n"
         "program='" +
         path.string() + "'\nprogdir='" + std::filesystem::path(program).parent_path().string() +
         "'\n"
         "if test -f \"$progdir/$program\"; then\n"
         "  LD_LIBRARY_PATH=\"" +
         library_folder +
         ":$LD_LIBRARY_PATH\"\n"
         "  LD_LIBRARY_PATH=`$ECHO \"$LD_LIBRARY_PATH\" | sed 's/::*$//'`\n  export LD_LIBRARY_PATH\n"
         "  if test \"$libtool_execute_magic\" != \"%%%MAGIC variable%%%\"; then\n"
         "    exec \"$progdir/$program\" ${1+\"$@\"}\n  fi\n"
         "else\n  $ECHO \"$0: error: '$progdir/$program' does not exist\" 1>&2\n  exit 1\nfi\n";
}
} // namespace

// mpirun runs libtool's wrapper script in every process, which starts the program with LD_LIBRARY_PATH set for its
// project's libraries (`make check` of an autotools project hands it to mpiexec): bxisim runs that program so too.
TEST(PrivatizeLib, ALibtoolWrapperScriptRunsItsProgramWithItsLibraryPath)
{
  std::string folder = temporary_path("libtool-project");
  std::filesystem::create_directories(folder);
  std::string script = folder + "/own_libraries_uninstalled";
  std::ofstream(script) << libtool_wrapper(test_program("own_libraries_uninstalled"), BXISIM_TEST_PROGRAMS);
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  for (int ppn : {1, 2}) {
    auto result = run_bxisim("run -n 4 --ppn " + std::to_string(ppn) + " -q " + script);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    auto fields = fields_by_rank(result.output);
    ASSERT_EQ(fields.size(), 4u) << result.output;
    for (const auto& [rank, values] : fields)
      EXPECT_EQ(number(values, "registrations"), 1) << "ppn " << ppn << " rank " << rank;
  }
  // The program alone does not load: its libraries are found through the script's LD_LIBRARY_PATH only.
  auto alone = run_bxisim("run -n 1 " + test_program("own_libraries_uninstalled"));
  EXPECT_NE(alone.exit_code, 0) << alone.output;
  EXPECT_THAT(alone.output, HasSubstr("libregistry_user.so: cannot open shared object file"));
}

namespace
{
// OpenMP's runtime keeps its state per OS thread, which all ranks share: with one libgomp for all, a
// rank's region begun while another rank was inside its own was taken for a nested region and ran on
// a team of one thread. Each rank gets its own libgomp without being asked (or when asked by short name).
void expect_every_rank_to_run_full_teams(int ppn, const std::string& options, int ranks = 2)
{
  auto result = run_bxisim("run -n " + std::to_string(ranks) + " --ppn " + std::to_string(ppn) +
                           " --no-cpu-simulation " + options + " " + test_program("openmp_regions") + " 3");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), static_cast<size_t>(ranks)) << result.output;
  for (const auto& [rank, values] : fields) {
    EXPECT_EQ(number(values, "team"), 2) << "rank " << rank << "\n" << result.output;
    EXPECT_EQ(number(values, "regions"), 3) << "rank " << rank;
    EXPECT_EQ(number(values, "passive"), 1) << "rank " << rank; // idle threads sleep unless asked otherwise
  }
}
} // namespace

TEST(PrivatizeLib, OpenMpRanksRunFullTeamsAcrossNodes)
{
  setenv("OMP_NUM_THREADS", "2", 1);
  unsetenv("OMP_WAIT_POLICY");
  expect_every_rank_to_run_full_teams(1, "");
}

TEST(PrivatizeLib, OpenMpRanksRunFullTeamsInsideANode)
{
  setenv("OMP_NUM_THREADS", "2", 1);
  unsetenv("OMP_WAIT_POLICY");
  expect_every_rank_to_run_full_teams(2, "");
}

// Each rank's libgomp copy takes static TLS (initial-exec), of which glibc keeps 512 bytes for loaded libraries: from
// 12 ranks on the copies did not load ("cannot allocate memory in static TLS block"). bxisim starts again with room.
TEST(PrivatizeLib, ManyOpenMpRanksLoadTheirRuntimeCopies)
{
  setenv("OMP_NUM_THREADS", "2", 1);
  unsetenv("OMP_WAIT_POLICY");
  unsetenv("GLIBC_TUNABLES");
  expect_every_rank_to_run_full_teams(1, "--platform single-switch --set platform.nodes=40", 40);
  expect_every_rank_to_run_full_teams(8, "", 40);
}

// A GLIBC_TUNABLES of the user's that leaves too little room: the ranks past it cannot load; the error says why and
// what to change, and the ranks that did load are stopped rather than reported as a deadlock of the program.
TEST(PrivatizeLib, RanksThatCannotLoadTheirCopiesStopTheJobWithTheReason)
{
  auto result = run_command("OMP_NUM_THREADS=1 GLIBC_TUNABLES=glibc.rtld.optional_static_tls=600 '" BXISIM_BINARY
                            "' run -n 16 --no-cpu-simulation " +
                            test_program("openmp_regions") + " 1 2>&1");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr("cannot allocate memory in static TLS block"));
  EXPECT_THAT(result.output, HasSubstr("unless GLIBC_TUNABLES sets glibc.rtld.optional_static_tls, as it does here"));
  EXPECT_THAT(result.output, HasSubstr("could not load the program (the errors above); the other ranks waited"));
  EXPECT_THAT(result.output, Not(HasSubstr("deadlock at simulated time")));
}

TEST(PrivatizeLib, OpenMpWaitPolicyOfTheUserIsKept)
{
  auto result =
      run_command("OMP_NUM_THREADS=2 OMP_WAIT_POLICY=active '" BXISIM_BINARY "' run -n 2 --no-cpu-simulation " +
                  test_program("openmp_regions") + " 1");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const auto& [rank, values] : fields_by_rank(result.output))
    EXPECT_EQ(number(values, "passive"), 0) << "rank " << rank;
}

TEST(PrivatizeLib, ShortNameFindsTheVersionedLibraryTheProgramNeeds)
{
  setenv("OMP_NUM_THREADS", "2", 1);
  unsetenv("OMP_WAIT_POLICY");
  expect_every_rank_to_run_full_teams(2, "--privatize-lib gomp"); // libgomp.so.1: no libgomp.so in system folders
}
