// The runtime's side of MPI: one OpenMPI copy per rank, started by bxisim's hooks (no PMIx server),
// over the simulated Portals at --level message, across nodes (--ppn 1) and inside a node (--ppn 2).
// The program drives its OpenMPI copy directly (programs/openmpi_copy.c), below the middleware.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
CommandResult run_copy(int ranks, int ppn, const std::string& options, const std::string& arguments)
{
  return run_command("'" BXISIM_BINARY "' run -n " + std::to_string(ranks) + " --ppn " + std::to_string(ppn) + " " +
                     options + " " + test_program("openmpi_copy") + " " + arguments + " 2>&1");
}

/** Checks the ring's results on every rank; returns the fields of each rank. */
std::map<int, Fields> check_ring(const CommandResult& result, int ranks, int ppn)
{
  EXPECT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  EXPECT_EQ(static_cast<int>(fields.size()), ranks) << result.output;
  for (int r = 0; r < ranks; ++r) {
    Fields& mine = fields[r];
    EXPECT_EQ(mine["rank"], std::to_string(r)) << result.output;
    EXPECT_EQ(mine["size"], std::to_string(ranks));
    EXPECT_EQ(mine["sum"], std::to_string(ranks * (ranks - 1) / 2));
    EXPECT_EQ(mine["from"], std::to_string((r + ranks - 1) % ranks));
    EXPECT_EQ(mine["data_ok"], "1") << "rank " << r;
    EXPECT_EQ(mine["finalized"], "1");
    // each simulated node has its own hostname, shared by its ranks
    EXPECT_EQ(mine["host"] == fields[0]["host"], r / ppn == 0) << "rank " << r << " on " << mine["host"];
    EXPECT_GT(number(mine, "ring_time"), 0.0);
  }
  return fields;
}

class OpenMpiPaths : public testing::TestWithParam<std::tuple<std::string, int>>
{
};
} // namespace

TEST_P(OpenMpiPaths, RingAndAllreduceAcrossAndInsideNodes)
{
  auto [pml, ppn] = GetParam();
  for (const char* bytes : {"8", "65536"}) {
    auto result = run_copy(4, ppn, "--pml " + pml, std::string("ring ") + bytes);
    check_ring(result, 4, ppn);
  }
}

TEST_P(OpenMpiPaths, SimulatedTimesAreTheSameInTwoRuns)
{
  auto [pml, ppn] = GetParam();
  auto first      = run_copy(4, ppn, "--no-cpu-simulation --pml " + pml, "ring 4096");
  auto second     = run_copy(4, ppn, "--no-cpu-simulation --pml " + pml, "ring 4096");
  auto a = check_ring(first, 4, ppn), b = check_ring(second, 4, ppn);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(a[r]["ring_time"], b[r]["ring_time"]) << "rank " << r;
    EXPECT_EQ(a[r]["end_time"], b[r]["end_time"]) << "rank " << r;
  }
}

// Each rank loads its own copy of OpenMPI (the loader loads a file once), and the kernel keeps each file's pages
// apart: 4.5 MiB per rank, 3 MiB of it the copy's code. The copies' code and constants are mapped from the
// original library instead (os::share_read_only_pages): one set of pages, 1.5 MiB per rank.
TEST(OpenMpiStart, TheCopiesShareTheOriginalsCodePages)
{
  for (int ppn : {1, 2}) {
    auto fields = check_ring(run_copy(4, ppn, "--no-cpu-simulation", "ring_code 64"), 4, ppn);
    std::set<std::string> copies;
    for (int r = 0; r < 4; ++r) {
      Fields& mine = fields[r];
      EXPECT_NE(mine["code_inode"], "0") << "rank " << r;
      EXPECT_EQ(mine["code_inode"], fields[0]["code_inode"]) << "rank " << r; // one file's pages for every rank
      EXPECT_NE(mine["code_inode"], mine["copy_inode"]) << "rank " << r;      // not the copy's own
      copies.insert(mine["copy_inode"]);
    }
    EXPECT_EQ(copies.size(), 4u); // each rank still loaded a copy of its own
  }
}

// Copies that are not kept between runs (beyond mpi.copy_cache) were all made at start, the library's size each
// (6 MB; 24 GB of TMPDIR at 4096 ranks). Each is made as its rank loads it, and once its read-only pages are mapped
// from the original, the copy gives back their disk space: it holds its writable data only.
TEST(OpenMpiStart, CopiesMadeForOneRunHoldOnlyTheirWritableData)
{
  for (int ppn : {1, 2}) {
    auto fields = check_ring(run_copy(4, ppn, "--no-cpu-simulation --set mpi.copy_cache=0", "ring_code 64"), 4, ppn);
    for (int r = 0; r < 4; ++r) {
      double size = number(fields[r], "copy_size"), allocated = number(fields[r], "copy_allocated");
      EXPECT_GT(size, 1e6) << "rank " << r;
      EXPECT_LT(allocated, size / 4) << "rank " << r;
    }
  }
}

// Those copies are made as the ranks start: one that does not fit (a full disk, shown by a limit on the size of the
// files bxisim writes, SIGXFSZ ignored) ends its rank with the fix, and the run with the ranks' failure.
TEST(OpenMpiStart, ACopyThatDoesNotFitAtLoadNamesTheTemporaryFolder)
{
  for (int ppn : {1, 2}) {
    auto result =
        run_command("trap '' XFSZ; ulimit -f 2048; '" BXISIM_BINARY "' run -n 2 --ppn " + std::to_string(ppn) +
                    " --no-cpu-simulation --set mpi.copy_cache=0 " + test_program("openmpi_copy") + " ring 8 2>&1");
    EXPECT_NE(result.exit_code, 0) << result.output;
    for (const char* rank : {"rank 0 cannot copy", "rank 1 cannot copy"})
      EXPECT_THAT(result.output, HasSubstr(rank)) << result.output;
    EXPECT_THAT(result.output, HasSubstr("Free space in the temporary folder or set TMPDIR to another one"));
    EXPECT_THAT(result.output, HasSubstr("2 of 2 rank(s) failed"));
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, OpenMpiPaths, testing::Combine(testing::Values("ob1", "cm"), testing::Values(1, 2)),
                         [](const auto& param_info) {
                           return std::get<0>(param_info.param) + "_ppn" +
                                  std::to_string(std::get<1>(param_info.param));
                         });

TEST(OpenMpiMca, ParametersPassThrough)
{
  // an MCA parameter OpenMPI checks: a BTL list without portals4 cannot reach the other node
  auto result = run_copy(2, 1, "--mca btl self", "ring 8");
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("leaves out portals4"));
}

TEST(OpenMpiMca, AnMpiIoComponentTheBuildLacksIsRefusedBeforeTheRun)
{
  // ROMIO is not built: OpenMPI would only print that it is missing, and the first file call would crash
  auto result = run_copy(2, 1, "--mca io romio321", "ring 8");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr("--mca io romio321: bxisim's OpenMPI has no MPI-IO component 'romio321'"));
  EXPECT_THAT(result.output, Not(HasSubstr("ring")));
  auto ompio = run_copy(2, 1, "--mca io ompio", "ring 8");
  EXPECT_EQ(ompio.exit_code, 0) << ompio.output;
}

TEST(OpenMpiEnd, AbortEndsTheJobWithItsCodeAndNamesTheRank)
{
  for (int ppn : {1, 2}) {
    auto result = run_copy(4, ppn, "", "abort 2");
    EXPECT_EQ(result.exit_code, 42) << result.output;
    EXPECT_THAT(result.output, HasSubstr("bxisim: rank 2 called MPI_Abort with error code 42"));
    EXPECT_THAT(result.output, Not(HasSubstr("passed the barrier")));
    EXPECT_THAT(result.output, Not(HasSubstr("MPI_Abort returned")));
  }
}

TEST(OpenMpiEnd, ARankThatSkipsFinalizeIsAClearDeadlock)
{
  auto result = run_copy(3, 1, "", "no-finalize 1");
  EXPECT_EQ(result.exit_code, 3) << result.output; // kDeadlockExitCode
  EXPECT_THAT(result.output, HasSubstr("rank 0 waits for the fence of MPI_Init or MPI_Finalize (2 of 3 ranks arrived"));
}

TEST(OpenMpiStart, FunneledSerializedAndMultipleAreProvided)
{
  // MPI_THREAD_MULTIPLE too: the copy's Portals BTL takes part (bxisim sets btl_base_thread_multiple_override).
  for (int level : {1, 2, 3}) {
    auto result = run_copy(2, 1, "", "thread " + std::to_string(level));
    EXPECT_EQ(result.exit_code, 0) << result.output;
    auto fields = fields_by_rank(result.output);
    EXPECT_EQ(fields[0]["rc"], "0");
    EXPECT_EQ(fields[1]["provided"], std::to_string(level));
  }
}

TEST(OpenMpiStart, SpawnIsRefusedClearly)
{
  auto result = run_copy(2, 1, "", "spawn");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_THAT(result.output, HasSubstr("MPI_Comm_spawn is not supported"));
  EXPECT_THAT(result.output, Not(HasSubstr("MPI_Comm_spawn returned")));
}

TEST(OpenMpiStart, TheCopyBindsItsOwnSymbolsWhenLinked)
{
  // -Bsymbolic (DT_FLAGS SYMBOLIC): OpenMPI's references to its own functions and data never bind to a
  // symbol of the same name in the bxisim executable or its libraries (SMPI's MPI_*, libc's globals),
  // and a copy loads without looking its own symbols up through every library of the process.
  auto flags = run_command("readelf -d '" BXISIM_OPENMPI_PREFIX "/lib/libbxisim-openmpi.so' 2>&1");
  ASSERT_EQ(flags.exit_code, 0) << flags.output;
  EXPECT_THAT(flags.output, testing::ContainsRegex(R"(\(FLAGS\) +.*SYMBOLIC)")) << flags.output;
  auto relocations = run_command("readelf -rW '" BXISIM_OPENMPI_PREFIX "/lib/libbxisim-openmpi.so' | grep -c "
                                 "-e R_X86_64_GLOB_DAT -e 'R_X86_64_64 '");
  EXPECT_LT(std::stoi(relocations.output), 100) << "symbol lookups left for the loader: " << relocations.output;
}

TEST(OpenMpiStart, CopiesAreKeptBetweenRunsUpToTheCacheLimit)
{
  namespace fs           = std::filesystem;
  const std::string root = temporary_path("copy-cache");
  fs::remove_all(root);
  const auto library_size = fs::file_size(BXISIM_OPENMPI_PREFIX "/lib/libbxisim-openmpi.so");
  auto kept               = [&root] {
    std::map<std::string, fs::path> copies; // file name -> path
    if (fs::exists(root + "/library-copies"))
      for (const auto& entry : fs::recursive_directory_iterator(root + "/library-copies"))
        if (entry.is_regular_file() && entry.path().filename() != "source")
          copies[entry.path().filename().string()] = entry.path();
    return copies;
  };
  auto ring = [&root](const std::string& options, int ppn) {
    return run_command("BXISIM_CACHE_DIR='" + root + "' '" BXISIM_BINARY "' run -n 4 --ppn " + std::to_string(ppn) +
                       " " + options + " " + test_program("openmpi_copy") + " ring 4096 2>&1");
  };
  for (int ppn : {1, 2}) {
    check_ring(ring("--set mpi.copy_cache=3", ppn), 4, ppn); // 3 ranks use kept copies, the 4th its own
    auto copies = kept();
    ASSERT_EQ(copies.size(), 3u);
    for (const char* name : {"copy-0.so", "copy-1.so", "copy-2.so"}) {
      ASSERT_EQ(copies.count(name), 1u) << name;
      EXPECT_EQ(fs::file_size(copies[name]), library_size) << name;
    }
  }
  // Kept copies are used as they are; an incomplete one (a run killed while copying) is made again.
  auto copies   = kept();
  auto modified = fs::last_write_time(copies["copy-0.so"]);
  fs::resize_file(copies["copy-1.so"], 4096);
  check_ring(ring("--set mpi.copy_cache=3", 2), 4, 2);
  EXPECT_EQ(fs::last_write_time(copies["copy-0.so"]), modified);
  EXPECT_EQ(fs::file_size(copies["copy-1.so"]), library_size);
  // 0 keeps none; a cache folder that cannot be written leaves every copy in the run's folder.
  fs::remove_all(root);
  check_ring(ring("--set mpi.copy_cache=0", 1), 4, 1);
  EXPECT_TRUE(kept().empty());
  auto unwritable = run_command("BXISIM_CACHE_DIR=/proc/bxisim-cannot-write '" BXISIM_BINARY "' run -n 4 --ppn 2 " +
                                test_program("openmpi_copy") + " ring 4096 2>&1");
  check_ring(unwritable, 4, 2);
}

// Folders of copies of a library that is gone or changed (a removed build tree, a rebuild), or of an older
// bxisim (no `source`), are removed by the next run: the cache had grown to 157 folders, 4.1 GB.
TEST(OpenMpiStart, CopiesOfLibrariesThatAreGoneAreRemoved)
{
  namespace fs           = std::filesystem;
  const std::string root = temporary_path("copy-cache-stale");
  fs::remove_all(root);
  const fs::path copies = root + "/library-copies";
  auto make_folder      = [&copies](const std::string& name, const std::string& source) {
    fs::create_directories(copies / name);
    std::ofstream(copies / name / "copy-0.so") << "a copy";
    if (not source.empty())
      std::ofstream(copies / name / "source") << source;
  };
  const std::string gone_library = root + "/gone/libbxisim-openmpi.so";
  make_folder("libbxisim-openmpi-gone", gone_library + "\n6000000\n1\n");
  make_folder("libbxisim-openmpi-older-bxisim", "");
  // a library that exists but changed since its copies were made (other size and time)
  fs::create_directories(root + "/changed");
  std::ofstream(root + "/changed/libx.so") << "rebuilt";
  make_folder("libx-changed", fs::canonical(root + "/changed/libx.so").string() + "\n3\n1\n");
  auto result = run_command("BXISIM_CACHE_DIR='" + root + "' '" BXISIM_BINARY "' run -n 2 --ppn 1 " +
                            test_program("openmpi_copy") + " ring 64 2>&1");
  check_ring(result, 2, 1);
  EXPECT_FALSE(fs::exists(copies / "libbxisim-openmpi-gone"));
  EXPECT_FALSE(fs::exists(copies / "libbxisim-openmpi-older-bxisim"));
  EXPECT_FALSE(fs::exists(copies / "libx-changed"));
  // the run's own folder stays, and names its library
  size_t kept_folders = 0;
  for (const auto& entry : fs::directory_iterator(copies)) {
    ++kept_folders;
    std::ifstream source(entry.path() / "source");
    std::string path;
    std::getline(source, path);
    EXPECT_EQ(path, fs::canonical(BXISIM_OPENMPI_PREFIX "/lib/libbxisim-openmpi.so").string());
  }
  EXPECT_EQ(kept_folders, 1u);
  // a second run keeps it
  check_ring(run_command("BXISIM_CACHE_DIR='" + root + "' '" BXISIM_BINARY "' run -n 2 --ppn 1 " +
                         test_program("openmpi_copy") + " ring 64 2>&1"),
             2, 1);
  EXPECT_EQ(std::distance(fs::directory_iterator(copies), fs::directory_iterator()), 1);
}

TEST(OpenMpiStart, MissingBuildIsNamed)
{
  auto result = run_command("BXISIM_OPENMPI_PREFIX=/nonexistent '" BXISIM_BINARY "' run -n 2 " +
                            test_program("openmpi_copy") + " ring 8 2>&1");
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr("bxisim's OpenMPI build is not at /nonexistent"));
  EXPECT_THAT(result.output, HasSubstr("mpi_patches/build"));
}

// Each MPI rank at message maps its copy of OpenMPI and what that copy allocates, about 26 memory mappings
// in all against 4 for the program and its stack: the pre-start check counted only those 4, so a run of a few
// thousand MPI ranks passed it and failed half-way. Now refused at once, naming the limit.
TEST(OpenMpiStart, MoreMpiRanksThanTheSystemsMemoryMappingsAllowAreRefused)
{
  long limit = 0;
  std::ifstream("/proc/sys/vm/max_map_count") >> limit;
  ASSERT_GT(limit, 0);
  constexpr int kCores = 16;
  int ranks            = static_cast<int>(limit / 20); // 4 mappings each fit, 26 do not
  auto result =
      run_command(fmt::format("'" BXISIM_BINARY "' run -n {} --platform single-switch --set platform.nodes={} "
                              "--set node.cores={} {} ring 8 2>&1",
                              ranks, (ranks + kCores - 1) / kCores, kCores, test_program("openmpi_copy")));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr(fmt::format("more than this system allows (vm.max_map_count = {})", limit)))
      << result.output;
}

// MPI from a thread the program creates: a simulated thread of the rank, over its OpenMPI copy, across nodes and
// inside a node; at smpi (SMPI runs one actor per rank) the call ends the run with a message.
TEST(OpenMpiThreads, AThreadTheProgramCreatesCallsMpi)
{
  for (int ppn : {1, 2}) {
    auto result = run_command("'" BXISIM_BINARY "' run -n 2 --ppn " + std::to_string(ppn) +
                              " --level message --no-cpu-simulation " + test_program("mpi_threads") + " 2>&1");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    auto ranks = fields_by_rank(result.output);
    EXPECT_EQ(ranks[0]["received"], "1") << result.output;
    EXPECT_EQ(ranks[1]["received"], "0") << result.output;
    EXPECT_GT(number(ranks[0], "took_ns"), 0);
  }
}

// MPI_THREAD_MULTIPLE at the OpenMPI levels: threads of a rank in MPI calls at once (a blocking receive, a polling
// one and a send; two allreduces on two communicators; two ping-pongs), each getting its message when it comes.
TEST(OpenMpiThreads, ThreadsOfARankCallMpiAtTheSameTime)
{
  for (const char* level : {"message", "cycle"})
    for (int ppn : {1, 2}) {
      std::string where = std::string(level) + " ppn " + std::to_string(ppn);
      auto result = run_command("'" BXISIM_BINARY "' run -n 2 --ppn " + std::to_string(ppn) + " --level " + level +
                                " --no-cpu-simulation " + test_program("mpi_thread_multiple") + " 2>&1");
      ASSERT_EQ(result.exit_code, 0) << where << "\n" << result.output;
      // The retries of the communicator of higher id were counted as OpenMPI's progress (mpi_patches/0007): the
      // waiting loop went round in no simulated time until bxisim's clock-read guard moved it on.
      EXPECT_THAT(result.output, Not(HasSubstr("times at simulated time"))) << where;
      auto ranks = fields_by_rank(result.output);
      for (int rank : {0, 1}) {
        auto& mine = ranks[rank];
        EXPECT_EQ(mine["multiple"], "1") << where;
        EXPECT_EQ(mine["queried"], "1") << where;
        EXPECT_EQ(mine["blocked"], std::to_string(30 + 1 - rank)) << where;
        EXPECT_EQ(mine["polled"], std::to_string(20 + 1 - rank)) << where;
        // Sent at 200 and 400 us: the blocked receiver has its message one latency later, the polling one within
        // its 1 us polls of that.
        EXPECT_GT(number(mine, "blocked_us"), 200.0) << where;
        EXPECT_LT(number(mine, "blocked_us"), 205.0) << where;
        EXPECT_GT(number(mine, "polled_us"), 400.0) << where;
        EXPECT_LT(number(mine, "polled_us"), 406.0) << where;
        EXPECT_EQ(mine["sum0"], "3") << where;
        EXPECT_EQ(mine["sum1"], "30") << where;
        EXPECT_EQ(mine["trips0"], "50") << where;
        EXPECT_EQ(mine["trips1"], "50") << where;
        // Ended by another thread's call, not by the network: at the date of that call.
        EXPECT_EQ(mine["generalized_us"], "300.000") << where;
        EXPECT_EQ(mine["from_self"], std::to_string(70 + rank)) << where;
        EXPECT_NEAR(number(mine, "from_self_us"), 100.0, 0.5) << where;
        // A communicator of MPI_COMM_SELF made while another thread's progress loop waits for the network: done
        // at once (it waited for the 500 us message before), and the message comes when sent.
        EXPECT_NEAR(number(mine, "self_dup_us"), 100.0, 1.0) << where;
        EXPECT_EQ(mine["late"], std::to_string(90 + 1 - rank)) << where;
        EXPECT_NEAR(number(mine, "late_us"), 500.0, 3.0) << where; // the ranks' starts differ by the barrier's skew
        EXPECT_EQ(mine["duplicated0"], "3") << where;
        EXPECT_EQ(mine["duplicated1"], "3") << where;
      }
      if (std::string(level) == "message" && ppn == 1) { // the same simulated times in a second run
        auto again = run_command("'" BXISIM_BINARY "' run -n 2 --ppn 1 --level message --no-cpu-simulation " +
                                 test_program("mpi_thread_multiple") + " 2>&1");
        auto twice = fields_by_rank(again.output);
        for (int rank : {0, 1}) {
          EXPECT_EQ(twice[rank]["blocked_us"], ranks[rank]["blocked_us"]);
          EXPECT_EQ(twice[rank]["polled_us"], ranks[rank]["polled_us"]);
        }
      }
    }
}

// MPICH's threads tests (MTest_thread_barrier): threads of a rank spinning on memory until the others arrive. A
// thread paused in its spin while another waited for a lock slept a busy-wait step that nothing counted, so the next
// paused thread saw nothing under way and only yielded: the clock never reached the step's end (livelock, the wall
// limit ended the run). Busy-wait steps are timed work now. Wall-clock preemption: only completion is asserted.
TEST(OpenMpiThreads, ThreadsWaitingForEachOtherOnMemoryGoOn)
{
  for (const char* level : {"message", "cycle"})
    for (int ppn : {1, 2}) {
      std::string where = std::string(level) + " ppn " + std::to_string(ppn);
      auto result =
          run_command("'" BXISIM_BINARY "' run -n 2 --ppn " + std::to_string(ppn) + " --level " + level +
                      " --no-cpu-simulation --wall-limit 60 " + test_program("mpi_spinning_threads") + " 2>&1");
      ASSERT_EQ(result.exit_code, 0) << where << "\n" << result.output;
      auto ranks = fields_by_rank(result.output);
      EXPECT_EQ(ranks[0]["rounds"], "3") << where;
      EXPECT_EQ(ranks[1]["rounds"], "3") << where;
    }
}

// C++'s threads (std::thread, std::async) calling MPI at once under MPI_THREAD_MULTIPLE: simulated threads, as
// pthread_create's. They were real threads: their MPI calls were taken for calls outside any run ("no MPI library",
// exit 1), and at smpi the simulator crashed.
TEST(OpenMpiThreads, CppThreadsCallMpi)
{
  for (const char* level : {"message", "cycle"})
    for (int ppn : {1, 2}) {
      std::string where = std::string(level) + " ppn " + std::to_string(ppn);
      auto result = run_command("'" BXISIM_BINARY "' run -n 2 --ppn " + std::to_string(ppn) + " --level " + level +
                                " --no-cpu-simulation " + test_program("mpi_std_threads") + " 2>&1");
      ASSERT_EQ(result.exit_code, 0) << where << "\n" << result.output;
      auto ranks = fields_by_rank(result.output);
      for (int rank : {0, 1}) {
        EXPECT_EQ(ranks[rank]["multiple"], "1") << where;
        int peer = 1 - rank;
        EXPECT_EQ(ranks[rank]["got"], std::to_string(peer * 10) + "," + std::to_string(peer * 10 + 1)) << where;
        EXPECT_GT(number(ranks[rank], "took_ns"), 0) << where;
        EXPECT_EQ(ranks[rank]["sum"], "10") << where; // 0 + 10
      }
    }
  auto smpi = run_command("'" BXISIM_BINARY "' run -n 2 --level smpi --no-cpu-simulation " +
                          test_program("mpi_std_threads") + " 2>&1");
  EXPECT_EQ(smpi.exit_code, 6) << smpi.output;
  EXPECT_THAT(smpi.output, HasSubstr("called an MPI function from a thread it created"));
}

// A job ending (MPI_Abort, a deadlock) while ranks hold a joinable std::thread: the kill unwinds their frames, and
// std::thread's destructor calls std::terminate, which aborted the simulator ("the simulator crashed", exit code 4).
// The job ends with its own report now.
TEST(OpenMpiThreads, AJobEndingWhileRanksHoldAJoinableCppThreadEndsWithItsOwnReport)
{
  for (int ppn : {1, 2}) {
    std::string where = "ppn " + std::to_string(ppn);
    auto abort        = run_command("'" BXISIM_BINARY "' run -n 2 --ppn " + std::to_string(ppn) +
                                    " --level message --no-cpu-simulation " + test_program("mpi_job_end_with_cpp_thread") +
                                    " abort 2>&1");
    EXPECT_EQ(abort.exit_code, 7) << where << "\n" << abort.output;
    EXPECT_THAT(abort.output, HasSubstr("rank 1 called MPI_Abort with error code 7")) << where;
    EXPECT_THAT(abort.output, Not(HasSubstr("crashed"))) << where;
    auto deadlock = run_command("'" BXISIM_BINARY "' run -n 2 --ppn " + std::to_string(ppn) +
                                " --level message --no-cpu-simulation " + test_program("mpi_job_end_with_cpp_thread") +
                                " deadlock 2>&1");
    EXPECT_EQ(deadlock.exit_code, 3) << where << "\n" << deadlock.output;
    EXPECT_THAT(deadlock.output, HasSubstr("no rank can progress anymore")) << where;
    EXPECT_THAT(deadlock.output, Not(HasSubstr("crashed"))) << where;
  }
}

// An MPI call from a thread a library created (OpenMP's team) runs outside the simulation: refused with the rank's
// name at every level. Before, it was taken for a call outside any run (exit 1) and crashed the simulator at smpi.
TEST(OpenMpiThreads, AnMpiCallFromALibrarysThreadIsRefusedClearly)
{
  for (const char* level : {"smpi", "message"})
    for (int ppn : {1, 2}) {
      std::string where = std::string(level) + " ppn " + std::to_string(ppn);
      auto result = run_command("'" BXISIM_BINARY "' run -n 2 --ppn " + std::to_string(ppn) + " --level " + level +
                                " --no-cpu-simulation " + test_program("mpi_library_thread") + " 2>&1");
      EXPECT_EQ(result.exit_code, 6) << where << "\n" << result.output;
      EXPECT_THAT(result.output, testing::ContainsRegex("rank [01] \\(node [^)]*\\) called an MPI function from "
                                                        "thread [0-9]+, a thread that a library created for it"))
          << where;
    }
}

TEST(OpenMpiThreads, AThreadsMpiCallAtSmpiIsRefusedClearly)
{
  auto result = run_command("'" BXISIM_BINARY "' run -n 2 --level smpi --no-cpu-simulation " +
                            test_program("mpi_threads") + " 2>&1");
  EXPECT_EQ(result.exit_code, 6) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 0 called an MPI function from a thread it created"));
  EXPECT_THAT(result.output, HasSubstr("Run at --level message or cycle"));
}

// OpenMPI 4.1.4's btl/portals4 receives into 8 blocks of 256 KiB without flow control: a flood of Puts (ARMCI-MPI's
// ring flood, its test_mpi_accs) uses them up, the NIC drops and NACKs what follows, and the btl takes the NACK for
// success. The ranks then wait for ever; bxisim says why and what to give (they run with it, across nodes and
// inside a node).
TEST(OpenMpiDrops, AFloodThatUsesUpTheReceiveBuffersIsExplained)
{
  for (int ppn : {1, 2}) {
    std::string run = "run -n 2 --ppn " + std::to_string(ppn) + " --no-cpu-simulation -q --sim-time-limit 0.05 ";
    auto stuck      = run_bxisim(run + test_program("put_flood") + " 4096 1024");
    EXPECT_EQ(stuck.exit_code, 5) << stuck.output;
    EXPECT_THAT(stuck.output, HasSubstr("OpenMPI 4.1.4's btl/portals4 takes this NACK for success")) << ppn;
    EXPECT_THAT(stuck.output, HasSubstr("--mca btl_portals4_recv_md_num 64")) << ppn;
    auto given = run_bxisim(run + "--mca btl_portals4_recv_md_num 64 " + test_program("put_flood") + " 4096 1024");
    ASSERT_EQ(given.exit_code, 0) << given.output;
    auto fields = fields_by_rank(given.output);
    ASSERT_EQ(fields.size(), 2u) << given.output;
    for (const auto& [rank, values] : fields)
      EXPECT_EQ(number(values, "errors"), 0) << "ppn " << ppn << " rank " << rank;
    EXPECT_THAT(given.output, Not(HasSubstr("NACK"))) << ppn;
  }
}
