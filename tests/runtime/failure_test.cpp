// Exit codes, crashes, deadlocks and bad command lines of `bxisim run`.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <unistd.h>
#include <vector>

using namespace bxisim::test;
using testing::HasSubstr;
using testing::Not;

namespace
{
// docs/running.md, "Exit codes".
constexpr int kUsage    = 2;
constexpr int kDeadlock = 3;
constexpr int kCrash    = 4;

CommandResult run_ends(int ranks, const std::string& arguments, const std::string& tmpdir = "")
{
  std::string environment = tmpdir.empty() ? "" : "TMPDIR=" + tmpdir + " ";
  return run_command(environment + "'" BXISIM_BINARY "' run -n " + std::to_string(ranks) + " " + test_program("ends") +
                     " " + arguments);
}
} // namespace

TEST(Ends, ZeroWhenEveryRankReturnsZero)
{
  EXPECT_EQ(run_ends(4, "return all 0").exit_code, 0);
  EXPECT_EQ(run_ends(4, "exit all 0").exit_code, 0);
}

TEST(Ends, AFailingRankIsNamed)
{
  auto result = run_ends(3, "return 1 5");
  EXPECT_EQ(result.exit_code, 5); // the failing rank's, as mpirun's
  EXPECT_THAT(result.output, HasSubstr("1 of 3 rank(s) failed: rank 1 (exit code 5)"));
}

// An automake test that skips exits 77 on every rank, and `make check LOG_COMPILER=bxirun` counts it as skipped only if
// the launcher's code is the ranks' (bxisim ended with 1: ELPA's tests were failures, not skips).
TEST(Ends, TheRunEndsWithTheFirstFailingRanksCodeAsMpirun)
{
  EXPECT_EQ(run_ends(2, "exit all 77").exit_code, 77);
  EXPECT_EQ(run_ends(3, "exit 1 99").exit_code, 99);
}

// At scale a failure is often every rank's: named once per way of failing, as ranges (600 ranks that hit a
// limit were each listed on one line).
TEST(Ends, RanksThatFailAlikeAreNamedTogether)
{
  auto result = run_ends(5, "return all 5");
  EXPECT_EQ(result.exit_code, 5);
  EXPECT_THAT(result.output, HasSubstr("5 of 5 rank(s) failed: ranks 0-4 (exit code 5)\n")) << result.output;
}

TEST(Ends, ExitEndsOnlyTheCallingRank)
{
  auto result = run_ends(3, "exit 2 7");
  EXPECT_EQ(result.exit_code, 7) << result.output;
  EXPECT_THAT(result.output, HasSubstr("[rank 2] exiting with 7"));
  EXPECT_THAT(result.output, Not(HasSubstr("[rank 2] rank 2 done")));
  EXPECT_THAT(result.output, HasSubstr("[rank 0] rank 0 done"));
  EXPECT_THAT(result.output, HasSubstr("[rank 1] rank 1 done"));
  EXPECT_THAT(result.output, HasSubstr("rank 2 (exit code 7)"));
}

TEST(Ends, ACrashNamesTheRankPrintsABacktraceAndLeavesNoFiles)
{
  std::string tmpdir = fresh_folder("tmpdir-segv");
  auto result        = run_ends(3, "segv 1", tmpdir);
  EXPECT_EQ(result.exit_code, kCrash) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 1 crashed (Segmentation fault)"));
  EXPECT_THAT(result.output, HasSubstr("Backtrace"));
  EXPECT_THAT(result.output, HasSubstr("rank-1/ends(main+")); // the rank's copy of the program, in the backtrace
  EXPECT_EQ(entry_count(tmpdir), 0);
}

// The frames in the program's code are named with their function and source line (addr2line on the original program:
// the rank's copy may have given its debugging sections back to the disk). The report named the copy and an offset.
TEST(Ends, ACrashNamesTheProgramsFunctionsAndSourceLines)
{
  auto result =
      run_command(fmt::format("'{}' run -n 2 {} segv 1 2>&1", BXISIM_BINARY, test_program("ends_with_lines")));
  EXPECT_EQ(result.exit_code, kCrash) << result.output;
  std::smatch found;
  ASSERT_TRUE(std::regex_search(result.output, found,
                                std::regex("In the program's code \\(innermost first\\):\n"
                                           "  #2 act at (/[^:]*ends\\.c):([0-9]+)\n"
                                           "  #3 main at [^\n]*ends\\.c:[0-9]+")))
      << result.output;
  // the line of the source that writes through the null pointer
  std::ifstream source(found[1].str());
  std::string line;
  int number = 0, faulting = 0;
  while (faulting == 0 && std::getline(source, line)) {
    ++number;
    if (line.find("*nowhere") != std::string::npos)
      faulting = number;
  }
  ASSERT_GT(faulting, 0) << found[1].str();
  EXPECT_EQ(std::stoi(found[2].str()), faulting) << result.output;
}

// A buffer that is not the rank's memory faults in its NIC's copy, which runs in the simulator's code: the report
// names the rank whose buffer it is and what to check (it blamed the simulator, "outside any rank's call", when
// PRK's AMR kernel gave MPI_Alltoallv an uninitialized pointer that OpenMPI passed on to a Get).
TEST(Ends, ABufferThatIsNotTheRanksMemoryIsNamedWithItsRank)
{
  for (const char* level : {"message", "cycle"})
    for (int ppn : {1, 2})
      for (auto [mode, rank] : {std::pair{"get", 0}, std::pair{"put", 1}}) {
        auto result = run_command(fmt::format("'{}' run -n 2 --ppn {} --level {} {} {}", BXISIM_BINARY, ppn, level,
                                              test_program("nic_bad_buffer"), mode));
        SCOPED_TRACE(fmt::format("{} at {}, ppn {}", mode, level, ppn));
        EXPECT_EQ(result.exit_code, kCrash) << result.output;
        EXPECT_THAT(result.output,
                    HasSubstr(fmt::format("rank {} crashed (Segmentation fault) at simulated time", rank)));
        EXPECT_THAT(result.output, HasSubstr("its NIC could not write the 4096 bytes at"));
        EXPECT_THAT(result.output, HasSubstr(mode == std::string("get") ? "the reply of a Get" : "the data of a Put"));
        EXPECT_THAT(result.output, Not(HasSubstr("the simulator crashed")));
        EXPECT_THAT(result.output, Not(HasSubstr("event="))) << "no ACK or REPLY: the rank crashed first";
      }
}

TEST(Ends, AStackOverflowIsNamedWithTheSettingThatGivesMore)
{
  auto result = run_ends(2, "deep 1 12"); // 12 MiB of frames on rank 1's stack (SimGrid's default: 8 MiB)
  EXPECT_EQ(result.exit_code, kCrash) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 1 crashed (Segmentation fault)"));
  EXPECT_THAT(result.output, HasSubstr("It ran out of stack: the fault is at the end of its 8192 KiB stack"));
  EXPECT_THAT(result.output, HasSubstr("--cfg contexts/stack-size:KiB"));
  auto given = run_command("'" BXISIM_BINARY "' run -n 2 --cfg contexts/stack-size:32768 " + test_program("ends") +
                           " deep 1 12");
  EXPECT_EQ(given.exit_code, 0) << given.output;
  EXPECT_THAT(given.output, HasSubstr("[rank 1] deep "));
  // another fault is not called an overflow
  EXPECT_THAT(run_ends(2, "segv 1").output, Not(HasSubstr("ran out of stack")));
}

// bxicc links programs as shared objects: a function nothing defines shows when each rank loads its copy. The
// report used to say "Build the program with bxicc or bxicxx", which it was (ompi-tests-public status/, a Fortran
// BIND(C) call without an interface).
TEST(Ends, AnUndefinedSymbolIsNamedWithWhatToLink)
{
  auto result = run_command("'" BXISIM_BINARY "' run -n 2 " + test_program("undefined_symbol"));
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("undefined symbol: bxisim_test_function_nothing_defines"));
  EXPECT_THAT(result.output, HasSubstr("link what defines it"));
  EXPECT_THAT(result.output, Not(HasSubstr("Build the program with")));
}

// A C++ name is given as written in the source too: "_ZTV6Solver" alone did not say it is Solver's vtable.
TEST(Ends, AnUndefinedCppSymbolIsNamedAsInTheSource)
{
  auto result = run_command("'" BXISIM_BINARY "' run -n 2 " + test_program("undefined_vtable"));
  EXPECT_NE(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("undefined symbol: _ZTV6Solver (vtable for Solver)"));
  EXPECT_THAT(result.output, HasSubstr("mpicc's link would have failed"));
}

TEST(Ends, AnAbortIsACrashToo)
{
  std::string tmpdir = fresh_folder("tmpdir-abort");
  auto result        = run_ends(2, "abort 0", tmpdir);
  EXPECT_EQ(result.exit_code, kCrash) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 0 crashed (Aborted)"));
  EXPECT_EQ(entry_count(tmpdir), 0);
}

TEST(Ends, ADeadlockNamesTheKeyARankWaitsFor)
{
  std::string tmpdir = fresh_folder("tmpdir-deadlock");
  auto result        = run_ends(3, "kv_never 1", tmpdir);
  EXPECT_EQ(result.exit_code, kDeadlock) << result.output;
  EXPECT_THAT(result.output, HasSubstr("deadlock"));
  EXPECT_THAT(result.output, HasSubstr("rank 1 waits for bxisim_kv_get of key 'never-put'"));
  EXPECT_THAT(result.output, Not(HasSubstr("rank 0 waits")));
  EXPECT_EQ(entry_count(tmpdir), 0);
}

TEST(Ends, ADeadlockNamesTheBarrierRanksWaitIn)
{
  auto result = run_ends(3, "barrier_skip 0");
  EXPECT_EQ(result.exit_code, kDeadlock) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 1 waits for bxisim_barrier (2 of 3 ranks arrived)"));
  EXPECT_THAT(result.output, HasSubstr("rank 2 waits for bxisim_barrier (2 of 3 ranks arrived)"));
}

namespace
{
/** portals_wait.c: rank 1 blocks in a Portals wait; the report names the call, its handle and test. */
void expect_portals_deadlock(const std::string& how, const std::string& placement, const std::string& call)
{
  auto result =
      run_bxisim("run -n 2 " + placement + " --no-cpu-simulation " + test_program("portals_wait") + " " + how + " 1 3");
  EXPECT_EQ(result.exit_code, kDeadlock) << result.output;
  auto handle = fields_by_rank(result.output)[1]["handle"];
  ASSERT_FALSE(handle.empty()) << result.output;
  EXPECT_THAT(result.output, HasSubstr("rank 1 waits for " + call + "(" + (how == "eq" ? "eq_handle=" : "ct_handle=") +
                                       handle + (how == "eq" ? ")" : ", test=3)")));
}
} // namespace

TEST(Ends, ADeadlockNamesThePortalsWaitAndItsEventQueue)
{
  expect_portals_deadlock("eq", "--ppn 1", "PtlEQWait");
  expect_portals_deadlock("eq", "--ppn 2", "PtlEQWait");
}

TEST(Ends, ADeadlockNamesThePortalsWaitAndItsCountingEvent)
{
  expect_portals_deadlock("ct", "--ppn 1", "PtlCTWait");
  expect_portals_deadlock("ct", "--ppn 2", "PtlCTWait");
}

TEST(Ends, AnUncaughtExceptionOfAnyTypeIsACrashOfTheRank)
{
  for (const auto& [how, what] : {std::pair<std::string, std::string>{"std", "std::runtime_error: nothing went right"},
                                  {"int", "int"},
                                  {"custom", "Custom"}}) {
    std::string tmpdir = fresh_folder("tmpdir-throw-" + how);
    auto result        = run_command("TMPDIR=" + tmpdir + " '" BXISIM_BINARY "' run -n 3 --no-cpu-simulation " +
                                     test_program("throws") + " " + how + " 1");
    EXPECT_EQ(result.exit_code, kCrash) << result.output;
    EXPECT_THAT(result.output, HasSubstr("rank 1 crashed (uncaught C++ exception " + what +
                                         ") on node0 at simulated "
                                         "time 0.000010000 s; the other ranks are stopped."));
    EXPECT_THAT(result.output, Not(HasSubstr("done")));
    EXPECT_EQ(entry_count(tmpdir), 0);
  }
}

TEST(BadRunCommandLine, NoProgram)
{
  auto result = run_bxisim("run -n 2");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("give the program to run"));
}

TEST(RunCommandLine, AcceptsMpirunsNpBeforeTheProgramOnly)
{
  // mpirun's and smpirun's -np N; CLI11 alone read it as "-n p". After the program it is the program's.
  auto result = run_bxisim("run -np 3 --ppn 1 --mca btl_base_verbose 0 -q --no-summary --no-cpu-simulation " +
                           test_program("options") + " -m -np");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 3U) << result.output;
  for (const auto& [rank, values] : fields)
    EXPECT_EQ(values.at("sizes"), "-np") << "rank " << rank;
}

// mpirun's spellings of the rank count and of ranks per node, after flags too (a flag took -np's value before).
TEST(RunCommandLine, AcceptsMpirunsRanksPerNodeSpellings)
{
  for (const char* spelling : {"-q -np 4 -N 2", "--n=4 --npernode 2", "-n4 -N2", "-np 4 -npernode=2",
                               "-n 4 --map-by ppr:2:node", "-n 4 --map-by=ppr:2:node", "--np 4 --ppn 2 --map-by slot",
                               "--timeout 600 -np 4 -N 2", "-np 4 -ppn 2 -mca btl_base_verbose 0"}) {
    auto result = run_bxisim(std::string("run --no-cpu-simulation ") + spelling + " " + test_program("identity"));
    ASSERT_EQ(result.exit_code, 0) << spelling << "\n" << result.output;
    auto fields = fields_by_rank(result.output);
    ASSERT_EQ(fields.size(), 4U) << spelling << "\n" << result.output;
    for (const auto& [rank, values] : fields)
      EXPECT_EQ(values.at("host"), "node" + std::to_string(rank / 2)) << spelling << ", rank " << rank;
  }
}

// Scripts pass mpirun --allow-run-as-root --bind-to ... out of habit (containers run as root): bxirun takes them, and
// they change nothing.
TEST(RunCommandLine, AcceptsMpirunsOptionsThatHaveNothingToDoInASimulation)
{
  std::string program = test_program("identity");
  auto plain          = run_bxisim("run --no-cpu-simulation -q --no-summary -n 3 " + program);
  // one dash too, as mpirun takes them
  auto habits = run_bxisim("run --allow-run-as-root --bind-to core --report-bindings --use-hwthread-cpus "
                           "--no-cpu-simulation -q --no-summary -n 3 --bind-to=none -oversubscribe -bind-to none " +
                           program);
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  ASSERT_EQ(habits.exit_code, 0) << habits.output;
  EXPECT_EQ(fields_by_rank(habits.output), fields_by_rank(plain.output));
  auto help = run_bxisim("run --help");
  EXPECT_THAT(help.output, HasSubstr("mpirun's options that change nothing here"));
}

// mpirun's -wdir DIR: the run goes there first, as after a cd (the program's relative path, its files), also when
// bxisim starts itself again (16 copies of the OpenMP runtime need more static TLS than glibc keeps by default).
TEST(RunCommandLine, WdirRunsInThatFolderAsMpirunDoes)
{
  std::filesystem::path programs = std::filesystem::path(test_program("identity")).parent_path();
  std::string from_parent        = "cd '" + programs.parent_path().string() + "' && '" BXISIM_BINARY "' run ";
  auto identity = run_command(from_parent + "--wd=" + programs.filename().string() + " -n 2 -q --no-summary " +
                              "--no-cpu-simulation ./identity 2>&1");
  ASSERT_EQ(identity.exit_code, 0) << identity.output;
  auto fields = fields_by_rank(identity.output);
  ASSERT_EQ(fields.size(), 2u) << identity.output;
  EXPECT_EQ(fields[1].at("exe"), test_program("identity"));
  auto started_again = run_command(from_parent + "-wdir " + programs.filename().string() +
                                   " -n 16 -q --no-summary --no-cpu-simulation ./openmp_regions 2>&1");
  ASSERT_EQ(started_again.exit_code, 0) << started_again.output;
  EXPECT_EQ(fields_by_rank(started_again.output).size(), 16u) << started_again.output;
  auto nowhere = run_bxisim("run -wdir /nonexistent/folder -n 1 ./identity");
  EXPECT_EQ(nowhere.exit_code, kUsage);
  EXPECT_THAT(nowhere.output, HasSubstr("--wdir /nonexistent/folder: cannot go there"));
}

// mpirun's -x VAR=VALUE sets a variable for the ranks (-x VAR passes one on: here it is there already).
TEST(RunCommandLine, AcceptsMpirunsExportedVariables)
{
  auto result = run_command("'" BXISIM_BINARY "' run -x OPTIONS_TO_CUT='-a -b' -x HOME -n 2 "
                            "--no-cpu-simulation -q " +
                            test_program("launcher_variables") + " 2>&1");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto fields = fields_by_rank(result.output);
  ASSERT_EQ(fields.size(), 2U) << result.output;
  for (const auto& [rank, values] : fields)
    EXPECT_EQ(number(values, "options"), 2) << "rank " << rank;
  auto bad = run_bxisim("run -x =1 -n 1 " + test_program("ends"));
  EXPECT_EQ(bad.exit_code, kUsage);
  EXPECT_THAT(bad.output, HasSubstr("-x =1: give VAR=VALUE (or VAR)."));
}

// HDF5's helper put --set after the program once: the run went on with the defaults. As with mpirun the word is the
// program's (it still gets it), and bxisim says it looks like its own option.
TEST(RunCommandLine, AnOptionOfBxisimAfterTheProgramIsNotedAndLeftToTheProgram)
{
  auto result =
      run_bxisim("run -n 1 -q --no-summary --no-cpu-simulation " + test_program("options") + " --level cycle");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("note: --level comes after the program"));
  EXPECT_THAT(result.output, HasSubstr("put bxisim's options before the program"));
  auto unrelated = run_bxisim("run -n 1 -q --no-summary --no-cpu-simulation " + test_program("options") + " --sizes");
  EXPECT_THAT(unrelated.output, Not(HasSubstr("note:"))) << unrelated.output;
}

TEST(BadRunCommandLine, AnMpirunOptionIsNamedWithBxisimsWay)
{
  struct Case {
    std::string option;
    std::string hint;
  };
  for (const auto& [option, hint] :
       std::vector<Case>{{"--hostfile hosts", "--platform"},
                         {"-c 2", "a rank runs on one simulated core"},
                         {"--levl cycle", "Did you mean '--level'?"},
                         {"--output-filename out", "--output-dir DIR"},
                         {"--timestamp-output", "--tag-output prefixes each with its rank"},
                         {"-trace", "smpirun's -trace is --trace DIR here"}}) {
    auto result = run_bxisim("run -n 2 " + option + " " + test_program("ends") + " return all 0");
    EXPECT_EQ(result.exit_code, kUsage) << result.output;
    std::string name = option.substr(0, option.find(' '));
    EXPECT_THAT(result.output, HasSubstr(name + ": not an option of bxisim run; its options come before the program"));
    EXPECT_THAT(result.output, HasSubstr(hint)) << option;
    EXPECT_THAT(result.output, Not(HasSubstr("no such program")));
  }
}

// Portals numbers a node's processes below PTL_PID_MAX: more ranks on one node (oversubscribed, or --set node.cores)
// cannot run at the NIC levels, and are refused before anything starts.
TEST(BadRunCommandLine, MoreRanksOnANodeThanPortalsNumbersAtTheNicLevels)
{
  auto result = run_bxisim("run --platform single-switch --set platform.nodes=1 --oversubscribe -n 1024 " +
                           test_program("identity"));
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr("1024 ranks on one node: Portals 4 numbers a node's processes below "
                                       "PTL_PID_MAX (1024), so at most 1023 ranks per node run at --level message"));
}

// Before -n too: CLI11 said only that -n was missing.
TEST(BadRunCommandLine, AnUnknownOptionBeforeTheRankCountIsNamed)
{
  auto result = run_bxisim("run --hostfile hosts -n 2 " + test_program("ends") + " return all 0");
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr("--hostfile: not an option of bxisim run"));
  EXPECT_THAT(result.output, Not(HasSubstr("--ranks is required")));
  result = run_bxisim("run -n 2 --map-by ppr:2:socket " + test_program("ends") + " return all 0");
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr("--map-by ppr:2:socket: bxisim maps ranks by core"));
  EXPECT_THAT(result.output, HasSubstr("give --ppn P (mpirun's ppr:P:node)"));
}

TEST(BadRunCommandLine, MissingProgramFile)
{
  auto result = run_bxisim("run -n 2 ./no-such-program");
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("./no-such-program: no such program"));
}

TEST(BadRunCommandLine, ADirectoryAsTheProgram)
{
  auto result = run_bxisim("run -n 2 " + fresh_folder("a-folder"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("a-folder: is a directory"));
}

TEST(BadRunCommandLine, ATruncatedProgram)
{
  std::string truncated = temporary_path("truncated");
  std::ifstream original(test_program("ends"), std::ios::binary);
  std::string image((std::istreambuf_iterator<char>(original)), std::istreambuf_iterator<char>());
  std::ofstream(truncated, std::ios::binary) << image.substr(0, image.size() / 2);
  auto result = run_bxisim("run -n 2 " + truncated);
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr("is truncated or damaged"));
}

TEST(BadRunCommandLine, ALibtoolWrapperScriptOfAMissingProgramSaysHowToRunIt)
{
  // libtool's wrapper script (PrivatizeLib.ALibtoolWrapperScriptRunsItsProgramWithItsLibraryPath), its program not
  // built.
  std::string folder = temporary_path("libtool-project");
  std::filesystem::create_directories(folder);
  std::ofstream(folder + "/solver") << "#! /bin/sh\n\n# solver - temporary wrapper script for .libs/solver\n"
                                       "# Generated by libtool (GNU libtool) 2.4.7 Debian-2.4.7-7~deb12u1\n"
                                       "program=solver\nprogdir=\"" +
                                           folder + "/.libs\"\n";
  auto result = run_bxisim("run -n 2 " + folder + "/solver 3");
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr(folder + "/solver is libtool's wrapper script"));
  EXPECT_THAT(result.output, HasSubstr("it names " + folder + "/.libs/solver, which does not exist: build it (make)"));
  EXPECT_THAT(result.output, HasSubstr("`libtool --mode=execute bxisim run [options] " + folder + "/solver"));

  std::ofstream(folder + "/job.sh") << "#!/bin/sh\nmpirun -n 4 ./a.out\n";
  result = run_bxisim("run -n 2 " + folder + "/job.sh");
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr(folder + "/job.sh is a script, not a program"));
}

TEST(BadRunCommandLine, ASharedLibraryWithoutMain)
{
  auto result = run_bxisim("run -n 2 " + test_program("libshared_a.so"));
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr("exports no main function"));
}

TEST(BadRunCommandLine, ZeroRanksPerNode)
{
  auto result = run_bxisim("run -n 2 --ppn 0 " + test_program("ends") + " return all");
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr("--ppn 0: give at least one rank per node"));
}

TEST(BadRunCommandLine, TheNs3NetworkModel)
{
  auto result = run_bxisim("run -n 2 --cfg network/model:ns-3 " + test_program("ends") + " return all");
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr("--cfg network/model:ns-3: SimGrid's ns-3 network model"));
}

TEST(BadRunCommandLine, ABadTemporaryFolder)
{
  std::string file = temporary_path("a-file");
  std::ofstream(file) << "not a folder";
  std::string unwritable = fresh_folder("unwritable");
  std::filesystem::permissions(unwritable, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  for (const auto& [tmpdir, message] :
       {std::pair<std::string, std::string>{"/nonexistent/folder", "(TMPDIR=/nonexistent/folder) cannot be used"},
        {file, "cannot be used"},
        {unwritable, "cannot create a temporary folder"}}) {
    if (tmpdir == unwritable && geteuid() == 0)
      continue; // root writes anywhere
    auto result =
        run_command("TMPDIR=" + tmpdir + " '" BXISIM_BINARY "' run -n 2 " + test_program("ends") + " return all");
    EXPECT_EQ(result.exit_code, kUsage) << result.output;
    EXPECT_THAT(result.output, HasSubstr(message)) << tmpdir;
    EXPECT_THAT(result.output, HasSubstr("TMPDIR to a writable folder")) << tmpdir;
  }
}

// A full temporary folder, shown by a limit on the size of the files bxisim writes (SIGXFSZ ignored, so a write
// beyond it fails with an error as on a full disk): the copy of the program fails before any rank starts.
TEST(BadRunCommandLine, AProgramCopyThatDoesNotFitNamesTheTemporaryFolder)
{
  auto result = run_command("trap '' XFSZ; ulimit -f 8; '" BXISIM_BINARY "' run -n 2 " + test_program("ends") +
                            " return all 2>&1");
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr("cannot copy")) << result.output;
  EXPECT_THAT(result.output, HasSubstr("Free space in the temporary folder or set TMPDIR to another one"));
}

TEST(BadRunCommandLine, MoreRanksThanTheSystemsMemoryMappingsAllow)
{
  long limit = 0;
  std::ifstream("/proc/sys/vm/max_map_count") >> limit;
  ASSERT_GT(limit, 0);
  constexpr int kCores = 16;
  // A copy of a program built by bxicc is 2 mappings; more ranks than that allows fail even without
  // the stacks' guard pages (which bxisim leaves out when only they are in the way).
  int ranks           = static_cast<int>(limit / 2) + 1000;
  std::string command = fmt::format("run -n {} --platform single-switch --set platform.nodes={} --set node.cores={} {} "
                                    "return all",
                                    ranks, (ranks + kCores - 1) / kCores, kCores, test_program("ends"));
  auto result         = run_bxisim(command);
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr(fmt::format("more than this system allows (vm.max_map_count = {})", limit)));
  EXPECT_THAT(result.output, HasSubstr("sysctl -w vm.max_map_count="));
  EXPECT_EQ(run_bxisim(command).exit_code, kUsage); // always the same
}

TEST(BadRunCommandLine, ADroppedFrameThatIsNeverSent)
{
  // `ends` makes no Portals call: the run sends no wire frame at all.
  auto result = run_bxisim("run -n 2 --set nic.drop_frames=2,5 " + test_program("ends") + " return all");
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr("nic.drop_frames: frame(s) 2,5 were never sent (the run sent 0 wire frames)"));
}

// mpirun starts any program, and projects' test scripts start their serial tools through it (PnetCDF's ncvalidator):
// bxisim runs an ordinary executable so too, as processes of this machine, outside the simulation, and says so. A bare
// name is looked for in PATH.
TEST(RunCommandLine, AnOrdinaryExecutableRunsOutsideTheSimulationAsUnderMpirun)
{
  auto result = run_bxisim("run -n 3 -q echo from-every-process");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  size_t lines = 0;
  for (size_t at = result.output.find("from-every-process\n"); at != std::string::npos;
       at        = result.output.find("from-every-process\n", at + 1))
    ++lines;
  EXPECT_EQ(lines, 3u) << result.output;
  EXPECT_THAT(result.output, HasSubstr("/echo is not a program built with bxicc, bxicxx or bxif90 (an ordinary "
                                       "executable that uses no MPI): running 3 processes of it on this machine, "
                                       "outside the simulation"));
  // The exit code of the first process that failed, as mpirun's.
  EXPECT_EQ(run_bxisim("run -n 2 /bin/sh -c 'exit 3'").exit_code, 3);
}

// bxirun is `bxisim run` under one name, for the tools that take an MPI launcher's path (CMake's MPIEXEC_EXECUTABLE),
// with mpiexec's -np; its output to a file too (bxisim then starts itself again, with the same arguments).
// bxirun stands where tools expect mpirun, whose harnesses compare the ranks' output with saved files or count
// anything on stderr as a failure (hypre's runtest.sh): as mpirun, it prints the ranks' output only and leaves no
// file. --tag-output and --summary FILE bring bxisim run's prefix and summary back.
TEST(RunCommandLine, BxirunIsBxisimRunWithMpirunsManners)
{
  std::string bxirun = (std::filesystem::path(BXISIM_BINARY).parent_path() / "bxirun").string();
  std::string folder = temporary_path("bxirun");
  std::filesystem::create_directories(folder);
  auto plain =
      run_command("cd " + folder + " && " + bxirun + " -np 3 -N 1 " + test_program("own_libraries") + " > out 2> err");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_EQ(file_text(folder + "/err"), "");
  std::string out = file_text(folder + "/out");
  for (int rank = 0; rank < 3; ++rank)
    EXPECT_THAT(out, testing::ContainsRegex("(^|\n)rank=" + std::to_string(rank) + " registrations=1 ")) << out;
  EXPECT_EQ(entry_count(folder), 2) << "out, err and nothing else";

  // Inside a node this time (the first across nodes: mpirun's -N 1)
  auto tagged = run_command("cd " + folder + " && " + bxirun + " -np 3 --tag-output --summary run.json " +
                            test_program("own_libraries"));
  ASSERT_EQ(tagged.exit_code, 0) << tagged.output;
  auto fields = fields_by_rank(tagged.output);
  ASSERT_EQ(fields.size(), 3u) << tagged.output;
  for (const auto& [rank, values] : fields)
    EXPECT_EQ(number(values, "registrations"), 1) << "rank " << rank;
  EXPECT_TRUE(std::filesystem::is_regular_file(folder + "/run.json"));

  auto version = run_command(bxirun + " --version"); // as CMake's FindMPI asks its MPIEXEC_EXECUTABLE
  EXPECT_EQ(version.exit_code, 0) << version.output;
  EXPECT_THAT(version.output, testing::StartsWith("bxisim "));
  auto usage = run_command(bxirun + " " + test_program("own_libraries"));
  EXPECT_EQ(usage.exit_code, kUsage) << usage.output;
  EXPECT_THAT(usage.output, HasSubstr("Run `bxirun --help` for the usage."));
}

namespace
{
/** A folder named `name` holding mpi.c, another MPI reduced to its MPI_Init, and program.c, which calls it. */
std::string another_mpi_and_its_program(const std::string& name)
{
  std::string folder = temporary_path(name);
  std::filesystem::create_directories(folder);
  std::ofstream(folder + "/mpi.c") << "int MPI_Init(int* c, char*** v) { (void)c; (void)v; return 0; }\n";
  std::ofstream(folder + "/program.c") << "int MPI_Init(int*, char***);\n"
                                          "int main(int c, char** v) { return MPI_Init(&c, &v); }\n";
  return folder;
}
} // namespace

// An executable built with another MPI (mpicc's, or cc with -lmpi) cannot be one of bxisim's ranks.
TEST(BadRunCommandLine, AnExecutableOfAnotherMpi)
{
  std::string folder  = another_mpi_and_its_program("other-mpi");
  std::string program = folder + "/program";
  auto build = run_command("cd " + folder + " && cc -shared -fPIC mpi.c -o libmpi.so && cc program.c -o " + program +
                           " -L. -lmpi -Wl,-rpath," + folder);
  ASSERT_EQ(build.exit_code, 0) << build.output;
  auto result = run_bxisim("run -n 2 " + program);
  EXPECT_EQ(result.exit_code, kUsage) << result.output;
  EXPECT_THAT(result.output, HasSubstr("calls MPI_Init directly: it was built against another MPI's mpi.h"));
}

// Linked with another MPI's static library, nothing is left undefined to tell: its symbol table is read, for a
// program of the system's libc and for a static one. Run natively, every process would be a job of one rank.
TEST(BadRunCommandLine, AnExecutableLinkedStaticallyWithAnotherMpi)
{
  std::string folder = another_mpi_and_its_program("static-mpi");
  auto build         = run_command("cd " + folder + " && cc -c mpi.c && ar rcs libmpi.a mpi.o && " +
                                   "cc program.c -o dynamic_libc -L. -lmpi && cc -static program.c -o static -L. -lmpi");
  ASSERT_EQ(build.exit_code, 0) << build.output;
  for (const std::string program : {"dynamic_libc", "static"}) {
    auto result = run_bxisim("run -n 2 " + folder + "/" + program);
    EXPECT_EQ(result.exit_code, kUsage) << result.output;
    EXPECT_THAT(result.output, HasSubstr("holds an MPI library of its own (MPI_Init is defined inside it")) << program;
    EXPECT_THAT(result.output, Not(HasSubstr("outside the simulation"))) << program;
  }
}

TEST(BadRunCommandLine, RankCount)
{
  EXPECT_EQ(run_bxisim("run " + test_program("ends")).exit_code, kUsage);
  auto result = run_bxisim("run -n 0 " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("-n"));
}

TEST(BadRunCommandLine, MoreRanksPerNodeThanCores)
{
  auto result = run_bxisim("run --set node.cores=8 -n 4 --ppn 9 " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("--ppn 9: the nodes of this platform have 8 core(s)"));
}

TEST(BadRunCommandLine, MoreRanksThanTheMachineHolds)
{
  auto result =
      run_bxisim("run --platform single-switch --set platform.nodes=2 --set node.cores=4 -n 9 " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("needs 3 nodes"));
  EXPECT_THAT(result.output, HasSubstr("platform.nodes=3"));
}

// The way to a larger platform is the one of its own topology, and it works.
TEST(BadRunCommandLine, TheLargerPlatformSuggestedIsOfTheSameTopologyAndHoldsTheRanks)
{
  auto two_switches = run_bxisim("run --platform two-switches --set node.cores=1 -n 9 " + test_program("ends"));
  EXPECT_EQ(two_switches.exit_code, kUsage);
  EXPECT_THAT(two_switches.output, HasSubstr("needs 9 nodes"));
  EXPECT_THAT(two_switches.output, HasSubstr("(--set platform.nodes_per_switch=5)"));
  auto fat_tree = run_bxisim("run --set node.cores=1 -n 20 " + test_program("ends") + " return all 0");
  EXPECT_EQ(fat_tree.exit_code, kUsage);
  EXPECT_THAT(fat_tree.output, HasSubstr("(--set 'platform.fat_tree=2;4,5;1,2;1,2', or --platform single-switch "
                                         "--set platform.nodes=20)"));
  auto larger = run_bxisim("run --set 'platform.fat_tree=2;4,5;1,2;1,2' --set node.cores=1 -n 20 -q " +
                           test_program("ends") + " return all 0");
  EXPECT_EQ(larger.exit_code, 0) << larger.output;
}

TEST(BadRunCommandLine, UnknownMapping)
{
  auto result = run_bxisim("run -n 2 --map-by socket " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("--map-by"));
}

TEST(BadRunCommandLine, BadCpuFactor)
{
  auto result = run_bxisim("run -n 2 --cpu-factor -1 " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("cpu.factor"));
}

TEST(BadRunCommandLine, UnknownLibraryToPrivatize)
{
  auto result = run_bxisim("run -n 2 --privatize-lib libnothing.so " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("--privatize-lib libnothing.so: no such library"));
}

TEST(BadRunCommandLine, OutputDirThatCannotBeMade)
{
  std::string file = fresh_folder("output-dir-under-a-file") + "/a-file";
  std::ofstream(file) << "not a folder\n";
  auto result = run_bxisim("run -n 2 --output-dir " + file + "/outputs " + test_program("ends"));
  EXPECT_EQ(result.exit_code, kUsage);
  EXPECT_THAT(result.output, HasSubstr("--output-dir: cannot make the folder " + file + "/outputs"));
  EXPECT_THAT(result.output, HasSubstr("name a folder bxisim may write in"));
}
