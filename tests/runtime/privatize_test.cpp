// --privatize-lib gives each rank its own copy of shared libraries, relinked to each other.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

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
    for (int ppn : {1, 2}) {
      auto result = run_bxisim("run -n 4 --ppn " + std::to_string(ppn) + " --level " + level + " -q " +
                               test_program("own_libraries"));
      ASSERT_EQ(result.exit_code, 0) << result.output;
      auto fields = fields_by_rank(result.output);
      ASSERT_EQ(fields.size(), 4u) << result.output;
      for (const auto& [rank, values] : fields) {
        EXPECT_EQ(number(values, "registrations"), 1) << level << " ppn " << ppn << " rank " << rank;
        EXPECT_EQ(number(values, "owner"), rank) << level << " ppn " << ppn;
      }
    }
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
