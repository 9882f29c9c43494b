// bxicc and bxicxx build programs `bxisim run` can load, pass flags through, and can pretend to be
// the plain compiler.

#include "RunOutput.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <elf.h>
#include <filesystem>
#include <fstream>
#include <vector>

using namespace bxisim::test;
using testing::HasSubstr;

namespace
{
const std::string kBxicc  = std::string(BXISIM_BIN_DIR) + "/bxicc";
const std::string kBxif90 = std::string(BXISIM_BIN_DIR) + "/bxif90";
const std::string kBxicxx = std::string(BXISIM_BIN_DIR) + "/bxicxx";

std::string write_source(const std::string& name, const std::string& text)
{
  std::string path = temporary_path(name);
  std::ofstream(path) << text;
  return path;
}

const char* const kValueProgram = "#include <stdio.h>\nint main(void) { printf(\"value=%d\\n\", VALUE); return 0; }\n";

struct ElfFacts {
  int type;
  bool has_interpreter;
};

ElfFacts read_elf(const std::string& path)
{
  std::ifstream file(path, std::ios::binary);
  Elf64_Ehdr header{};
  file.read(reinterpret_cast<char*>(&header), sizeof(header));
  EXPECT_EQ(std::string(reinterpret_cast<char*>(header.e_ident), 4), "\177ELF");
  bool interpreter = false;
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    file.seekg(static_cast<std::streamoff>(header.e_phoff + static_cast<Elf64_Off>(i) * header.e_phentsize));
    file.read(reinterpret_cast<char*>(&segment), sizeof(segment));
    interpreter = interpreter || segment.p_type == PT_INTERP;
  }
  return {header.e_type, interpreter};
}
} // namespace

TEST(Wrappers, ShowPrintsTheCommandWithoutRunningIt)
{
  std::string output = temporary_path("never-built");
  auto result        = run_command(kBxicc + " -show -O2 hello.c -o " + output);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_THAT(result.output, HasSubstr("-I" BXISIM_SOURCE_DIR "/runtime/include"));
  EXPECT_THAT(result.output, HasSubstr(" -O2 hello.c -o " + output));
  EXPECT_THAT(result.output, HasSubstr("-shared"));
  EXPECT_FALSE(std::filesystem::exists(output));
}

TEST(Wrappers, AFortranSourceIsSentToBxif90)
{
  std::string source = write_source("ring.f90", "program ring\n  use mpi\nend program ring\n");
  for (const auto& wrapper : {kBxicc, kBxicxx}) {
    auto result = run_command(wrapper + " -O2 " + source + " -o " + temporary_path("ring"));
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_THAT(result.output, HasSubstr(source + " is a Fortran source: build Fortran programs with bxif90"));
  }
  auto result = run_command(kBxif90 + " -O2 " + source + " -o " + temporary_path("ring"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
}

TEST(Wrappers, TheMpiF08ModuleIsRefusedWithTheReason)
{
  std::string source = write_source("f08.f90", "program f08\n  use mpi_f08\n  call MPI_Init()\nend program f08\n");
  auto result        = run_command(kBxif90 + " " + source + " -o " + temporary_path("f08"));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_THAT(result.output, HasSubstr("uses the module mpi_f08, which bxisim does not offer: use 'use mpi'"));
}

TEST(Wrappers, LinkingGivesASharedObjectThatRunsAsRanks)
{
  std::string program = temporary_path("value");
  auto build = run_command(kBxicc + " -DVALUE=42 " + write_source("value.c", kValueProgram) + " -o " + program);
  ASSERT_EQ(build.exit_code, 0) << build.output;
  ElfFacts facts = read_elf(program);
  EXPECT_EQ(facts.type, ET_DYN);
  EXPECT_FALSE(facts.has_interpreter); // a shared object, not a (position-independent) executable
  auto run = run_bxisim("run -n 2 " + program);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("[rank 1] value=42"));
}

// CMake compiles an executable's objects with -fPIE when CMAKE_POSITION_INDEPENDENT_CODE is on (BLT's projects: Kripke,
// RAJA): it came after the wrapper's -fPIC and won, and the link failed ("relocation R_X86_64_PC32 against
// `_ZSt4cout' ... recompile with -fPIC"). Compiled apart and linked with -pie, or built in one step.
TEST(Wrappers, ObjectsCompiledWithFpieGoIntoTheProgram)
{
  std::string source = write_source("pie.cpp", "#include <iostream>\nint main() { std::cout << \"value=\" << 7 << "
                                               "std::endl; return 0; }\n");
  std::string object = temporary_path("pie.o"), apart = temporary_path("pie-apart"), once = temporary_path("pie-once");
  for (const auto& command :
       {kBxicxx + " -O2 -fPIE -c " + source + " -o " + object, kBxicxx + " -fPIE -pie " + object + " -o " + apart,
        kBxicxx + " -O2 -fpie " + source + " -o " + once}) {
    auto build = run_command(command);
    ASSERT_EQ(build.exit_code, 0) << command << "\n" << build.output;
  }
  for (const auto& program : {apart, once}) {
    EXPECT_FALSE(read_elf(program).has_interpreter) << program;
    auto run = run_bxisim("run -n 2 " + program);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_THAT(run.output, HasSubstr("[rank 1] value=7"));
  }
}

TEST(Wrappers, AProgramStartedDirectlySaysToUseBxisimRun)
{
  // Such a program has no dynamic loader to start it: it used to crash (SIGSEGV) when started as ./program.
  for (const auto& [wrapper, source] :
       {std::pair{kBxicc, std::string("value.c")}, {kBxicxx, std::string("value.cpp")}}) {
    std::string program = temporary_path("direct-" + source);
    auto build          = run_command(wrapper + " -DVALUE=1 " + write_source(source, kValueProgram) + " -o " + program);
    ASSERT_EQ(build.exit_code, 0) << build.output;
    auto run = run_command(program + " an-argument");
    EXPECT_EQ(run.exit_code, 127) << run.output;
    EXPECT_THAT(run.output, HasSubstr("Start it with `bxisim run -n RANKS ./program [arguments]`"));
    EXPECT_THAT(run.output, HasSubstr("A configure script that runs its test programs needs BXISIM_PRETEND_CC=1"));
    EXPECT_EQ(run_bxisim("run -n 1 " + program).exit_code, 0); // and it still runs as ranks
  }
}

TEST(Wrappers, CompileOnlyThenLinkSeparately)
{
  std::string object  = temporary_path("value.o");
  std::string program = temporary_path("value-linked");
  auto compile = run_command(kBxicxx + " -std=c++17 -DVALUE=7 -x c++ -c " + write_source("value.cc", kValueProgram) +
                             " -o " + object);
  ASSERT_EQ(compile.exit_code, 0) << compile.output;
  EXPECT_EQ(read_elf(object).type, ET_REL);
  auto link = run_command(kBxicxx + " " + object + " -o " + program);
  ASSERT_EQ(link.exit_code, 0) << link.output;
  auto run = run_bxisim("run -n 1 " + program);
  EXPECT_THAT(run.output, HasSubstr("[rank 0] value=7"));
}

// Sandia OpenSHMEM's build compiles everything, its tests' mains included, with -fvisibility=hidden: a hidden main is
// not exported, and bxisim refused the programs ("exports no main function").
TEST(Wrappers, AMainCompiledHiddenRunsAsRanks)
{
  for (const auto& [wrapper, source] :
       {std::pair{kBxicc, std::string("hidden.c")}, {kBxicxx, std::string("hidden.cpp")}}) {
    std::string program = temporary_path("hidden-main-" + source);
    auto build = run_command(wrapper + " -fvisibility=hidden -DVALUE=11 " + write_source(source, kValueProgram) +
                             " -o " + program + " && nm -D --defined-only " + program);
    ASSERT_EQ(build.exit_code, 0) << build.output;
    EXPECT_THAT(build.output, Not(HasSubstr(" main\n"))) << "main is hidden here";
    auto run = run_bxisim("run -n 2 " + program);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_THAT(run.output, HasSubstr("[rank 1] value=11"));
  }
}

// The way into a hidden main refers to main: in a link without one, main stays undefined, and would have bound to the
// simulator's own main (the ranks printed bxisim's usage).
TEST(Wrappers, AProgramWithoutMainIsRefused)
{
  std::string program = temporary_path("no-main-program");
  auto build =
      run_command(kBxicc + " " + write_source("no-main.c", "int helper(void) { return 1; }\n") + " -o " + program);
  ASSERT_EQ(build.exit_code, 0) << build.output;
  auto run = run_bxisim("run -n 2 " + program);
  EXPECT_NE(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("exports no main function")) << run.output;
}

// HPCC links `bxicc ... -o hpcc libhpl.a`, its main inside the archive: a shared object's link takes nothing
// from an archive that nothing refers to, and the program was built empty (no main; bxisim refused it).
TEST(Wrappers, AMainInAnArchiveIsLinkedIn)
{
  std::string object  = temporary_path("main-in-archive.o");
  std::string archive = temporary_path("libmain-in-archive.a");
  std::string program = temporary_path("main-in-archive");
  auto compile        = run_command(kBxicc + " -DVALUE=9 -x c -c " + write_source("main-in-archive.c", kValueProgram) +
                                    " -o " + object + " && rm -f " + archive + " && ar rcs " + archive + " " + object);
  ASSERT_EQ(compile.exit_code, 0) << compile.output;
  auto link = run_command(kBxicc + " -o " + program + " " + archive);
  ASSERT_EQ(link.exit_code, 0) << link.output;
  EXPECT_THAT(run_bxisim("run -n 1 " + program).output, HasSubstr("[rank 0] value=9"));
  // a library built with -shared does not ask for a main
  std::string library = temporary_path("libno-main.so");
  auto shared         = run_command(kBxicc + " -shared -o " + library + " " +
                                    write_source("no-main.c", "int helper(void) { return 1; }\n") + " && nm -D " + library);
  ASSERT_EQ(shared.exit_code, 0) << shared.output;
  EXPECT_THAT(shared.output, Not(HasSubstr(" main"))) << shared.output;
}

TEST(Wrappers, PretendCcBuildsAPlainExecutable)
{
  std::string program = temporary_path("value-plain");
  auto build = run_command("BXISIM_PRETEND_CC=1 " + kBxicc + " -DVALUE=5 " + write_source("plain.c", kValueProgram) +
                           " -o " + program);
  ASSERT_EQ(build.exit_code, 0) << build.output;
  EXPECT_TRUE(read_elf(program).has_interpreter);
  auto run = run_command(program);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.output, "value=5\n");
}

// configure reads what a compiler links by itself from its verbose link line (libtool's postdeps, autoconf's FLIBS for
// Fortran) and adds each -l and -L of it to the project's real links: PnetCDF's library then needed
// libbxisim-pretend.so, which no rank could load. The pretend library is linked by path, which those readers skip.
TEST(Wrappers, PretendCcLinksItsLibraryWhereConfiguresLinkLineReadersDoNotLook)
{
  for (const std::string& wrapper : {kBxicc, kBxif90}) {
    std::string program = temporary_path(wrapper == kBxicc ? "verbose-c" : "verbose-fortran");
    std::string source  = wrapper == kBxicc ? write_source("verbose.c", "int main(void) { return 0; }\n")
                                            : write_source("verbose.f90", "program p\nend program p\n");
    auto build          = run_command("BXISIM_PRETEND_CC=1 " + wrapper + " -v " + source + " -o " + program);
    ASSERT_EQ(build.exit_code, 0) << build.output;
    EXPECT_THAT(build.output, HasSubstr("/libbxisim-pretend.so")) << wrapper;
    EXPECT_THAT(build.output, Not(HasSubstr("-lbxisim-pretend"))) << wrapper;
    std::string library_dir = (std::filesystem::path(BXISIM_BIN_DIR).parent_path() / "lib").string();
    EXPECT_THAT(build.output, Not(HasSubstr("-L" + library_dir))) << wrapper;
    EXPECT_EQ(run_command(program).exit_code, 0) << wrapper;
  }
}

// What autoconf's AC_CHECK_FUNC([MPI_Init]) compiles: the function declared by hand, no mpi.h.
std::string function_check_source(const std::string& function)
{
  return write_source("check-" + function + ".c",
                      "char " + function + " (void);\nint main (void) { return " + function + " (); }\n");
}

// netCDF's configure checks for H5DSis_scale in libhdf5_hl, which needs libhdf5, whose functions call MPI: the
// libraries built with bxicc need no MPI library (bxisim gives the functions), and the linker did not count the pretend
// library's definitions for them ("libhdf5.so: undefined reference to bxisim_MPI_Comm_rank": "Can't find or link to the
// hdf5 library").
TEST(Wrappers, PretendCcLinksOverAChainOfLibrariesBuiltForBxisim)
{
  std::string folder = temporary_path("pretend-chain");
  std::string inner  = write_source("chain-inner.c", "#include <mpi.h>\nint inner_rank(void) { int rank = 0; "
                                                      "MPI_Comm_rank(MPI_COMM_WORLD, &rank); return rank; }\n");
  std::string outer =
      write_source("chain-outer.c", "int inner_rank(void);\nint outer_rank(void) { return inner_rank(); }\n");
  auto libraries = run_command("mkdir -p " + folder + " && " + kBxicc + " -shared -fPIC " + inner + " -o " + folder +
                               "/libinner.so && " + kBxicc + " -shared -fPIC " + outer + " -o " + folder +
                               "/libouter.so -L" + folder + " -linner");
  ASSERT_EQ(libraries.exit_code, 0) << libraries.output;
  auto check = run_command("BXISIM_PRETEND_CC=1 " + kBxicc + " " + function_check_source("outer_rank") + " -o " +
                           folder + "/check -L" + folder + " -louter -linner");
  EXPECT_EQ(check.exit_code, 0) << check.output;
  // A function no library defines still fails the check.
  auto missing = run_command("BXISIM_PRETEND_CC=1 " + kBxicc + " " + function_check_source("outer_missing") + " -o " +
                             folder + "/missing -L" + folder + " -louter -linner");
  EXPECT_NE(missing.exit_code, 0) << missing.output;
}

TEST(Wrappers, PretendCcLinksTheFunctionsBxisimOffersAndOnlyThose)
{
  for (const std::string function : {"MPI_Init", "PMPI_Accumulate", "MPI_Get_accumulate", "MPI_Ineighbor_alltoallw",
                                     "PtlLEAppend", "PtlTriggeredCTInc", "PMI_KVS_Get_my_name", "bxisim_rank"}) {
    std::string program = temporary_path("check-" + function);
    auto build =
        run_command("BXISIM_PRETEND_CC=1 " + kBxicc + " " + function_check_source(function) + " -o " + program);
    EXPECT_EQ(build.exit_code, 0) << function << ": " << build.output;
  }
  // Functions mpi.h does not declare stay undefined, so configure scripts see what bxisim offers.
  for (const std::string function : {"MPI_Session_init", "shmem_barrier_all", "upc_memput", "PtlNIStatusBogus",
                                     "PMI2_Init", "bxisim_started_directly", "bxisim_pretend_called"}) {
    auto build = run_command("BXISIM_PRETEND_CC=1 " + kBxicc + " " + function_check_source(function) + " -o " +
                             temporary_path("check-" + function));
    EXPECT_NE(build.exit_code, 0) << function;
    EXPECT_THAT(build.output, HasSubstr(function)) << function;
  }
}

// What autoconf's AC_CHECK_LIB([portals], [PtlLEAppend]) links (SOS, Sandia's OpenSHMEM, checks it so):
// bxicc drops -lportals and -lpmi, the pretend library has the functions.
TEST(Wrappers, PretendCcFindsPortalsAndPmiInTheirLibraries)
{
  std::string program = temporary_path("check-lib-portals");
  auto build          = run_command("BXISIM_PRETEND_CC=1 " + kBxicc + " " + function_check_source("PtlLEAppend") +
                                    " -lportals -lpmi -o " + program);
  ASSERT_EQ(build.exit_code, 0) << build.output;
  auto run = run_command(program);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.output, HasSubstr("PtlLEAppend called in a program built with BXISIM_PRETEND_CC=1"));
}

// PETSc's configure compiles `call mpi_init(ierr)` with bxif90, then links the object alone: the Fortran bindings
// bxisim offers (mpi_x_, pmpi_x_, MPI_Init's and MPI-1's removed ones written by hand too) are in the pretend
// library, and calling one says what to do.
TEST(Wrappers, PretendFortranLinksTheBindingsBxisimOffers)
{
  std::string source  = write_source("pretend-f.F90", "      program main\n#include \"mpif.h\"\n       integer ierr\n"
                                                       "       call mpi_init(ierr)\n       call mpi_address(ierr, ierr, "
                                                       "ierr)\n       call pmpi_type_free(ierr, ierr)\n      end\n");
  std::string object  = temporary_path("pretend-f.o");
  std::string program = temporary_path("pretend-f");
  auto build          = run_command("BXISIM_PRETEND_CC=1 " + kBxif90 + " -c " + source + " -o " + object + " && " +
                                    "BXISIM_PRETEND_CC=1 " + kBxif90 + " " + object + " -o " + program);
  ASSERT_EQ(build.exit_code, 0) << build.output;
  auto run = run_command(program);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.output, HasSubstr("mpi_init_ called in a program built with BXISIM_PRETEND_CC=1"));
  // Not an MPI-3.1 binding: left undefined, so that configure sees what bxisim offers.
  std::string other = write_source("pretend-f08.F90", "      program main\n       integer ierr\n"
                                                      "       call mpi_session_init(ierr)\n      end\n");
  auto refused = run_command("BXISIM_PRETEND_CC=1 " + kBxif90 + " " + other + " -o " + temporary_path("pretend-f08"));
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_THAT(refused.output, HasSubstr("mpi_session_init_"));
}

TEST(Wrappers, PretendCcProgramThatCallsMpiSaysHowToRunIt)
{
  std::string program = temporary_path("pretend-mpi");
  auto build          = run_command("BXISIM_PRETEND_CC=1 " + kBxicc + " " +
                                    write_source("pretend-mpi.c", "#include <mpi.h>\nint main(int argc, char** argv) { "
                                                                           "MPI_Init(&argc, &argv); return MPI_Finalize(); }\n") +
                                    " -o " + program);
  ASSERT_EQ(build.exit_code, 0) << build.output;
  auto run = run_command(program);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.output, HasSubstr("bxisim_MPI_Init called in a program built with BXISIM_PRETEND_CC=1"));
  EXPECT_THAT(run.output, HasSubstr("bxisim run -n N ./program"));
}

TEST(Wrappers, CompilerErrorsComeThrough)
{
  auto result = run_command(kBxicc + " -c " + write_source("broken.c", "int main(void) { return missing; }\n") +
                            " -o " + temporary_path("broken.o"));
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.output, HasSubstr("missing"));
}

TEST(Wrappers, InstalledWrappersUseTheInstalledHeaders)
{
  std::string prefix = fresh_folder("install");
  auto install       = run_command("'" CMAKE_COMMAND "' --install '" BXISIM_BUILD_DIR "' --prefix " + prefix);
  ASSERT_EQ(install.exit_code, 0) << install.output;
  auto show = run_command(prefix + "/bin/bxicc -show x.c");
  EXPECT_THAT(show.output, HasSubstr("-I" + prefix + "/bin/../include "));
  EXPECT_THAT(show.output, testing::Not(HasSubstr(BXISIM_SOURCE_DIR)));
  std::string program = prefix + "/identity";
  auto build = run_command(prefix + "/bin/bxicc " BXISIM_SOURCE_DIR "/tests/runtime/programs/identity.c -o " + program);
  ASSERT_EQ(build.exit_code, 0) << build.output;
  auto run = run_command(prefix + "/bin/bxisim run -n 2 " + program);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("[rank 1] rank=1 size=2"));
}

// CMake projects configured with the wrappers as their compilers find MPI in them (find_package(MPI), CMake's
// FindMPI: MPI_C_WORKS with no flag of its own) and build programs `bxisim run` runs, C and Fortran. Their link checks
// find what bxisim and the libraries offer, not every name (SUNDIALS and SuperLU_DIST's FindBLAS said "implicitly
// linked" and their programs stopped at load: "undefined symbol: dgemm_").
TEST(Wrappers, CmakeFindMpiFindsTheWrappersMpi)
{
  std::string project = temporary_path("findmpi");
  std::filesystem::create_directories(project);
  std::ofstream(project + "/CMakeLists.txt")
      << "cmake_minimum_required(VERSION 3.16)\nproject(findmpi C Fortran)\nfind_package(MPI 3.0 REQUIRED)\n"
         "include(CheckFunctionExists)\ncheck_function_exists(MPI_Init HAVE_MPI_INIT)\n"
         "check_function_exists(bxisim_test_no_such_function HAVE_NO_SUCH)\n"
         "message(STATUS \"checks: MPI_Init=${HAVE_MPI_INIT} none=${HAVE_NO_SUCH}.\")\n"
         "add_executable(sum sum.c)\ntarget_link_libraries(sum MPI::MPI_C)\n"
         "add_executable(rank rank.f90)\ntarget_link_libraries(rank MPI::MPI_Fortran)\n";
  std::ofstream(project + "/sum.c")
      << "#include <mpi.h>\n#include <stdio.h>\nint main(int argc, char** argv) {\n  MPI_Init(&argc, &argv);\n"
         "  int rank, sum;\n  MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
         "  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);\n  printf(\"sum=%d\\n\", sum);\n"
         "  return MPI_Finalize();\n}\n";
  std::ofstream(project + "/rank.f90")
      << "program rank\n  use mpi\n  integer :: ierr, me\n  call MPI_Init(ierr)\n"
         "  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)\n  print '(a,i0)', 'me=', me\n"
         "  call MPI_Finalize(ierr)\nend program\n";
  auto configure = run_command("cd " + project + " && CC=" + kBxicc + " FC=" + kBxif90 +
                               " cmake -S . -B build > configure.log 2>&1; status=$?; cat configure.log; exit $status");
  ASSERT_EQ(configure.exit_code, 0) << configure.output;
  EXPECT_THAT(configure.output, HasSubstr("Found MPI_C: " + kBxicc + " (found suitable version \"3.1\""));
  EXPECT_THAT(configure.output, HasSubstr("checks: MPI_Init=1 none=."));
  EXPECT_THAT(configure.output, Not(HasSubstr("warning"))); // bxif90 gave gfortran a Fortran flag for CMake's C check
  auto build = run_command("cmake --build " + project + "/build 2>&1");
  ASSERT_EQ(build.exit_code, 0) << build.output;
  for (int ppn : {1, 2}) {
    auto sum =
        run_bxisim("run -q --no-cpu-simulation -n 2 --ppn " + std::to_string(ppn) + " " + project + "/build/sum");
    EXPECT_EQ(sum.exit_code, 0) << sum.output;
    EXPECT_THAT(sum.output, HasSubstr("[rank 1] sum=1"));
    auto rank =
        run_bxisim("run -q --no-cpu-simulation -n 2 --ppn " + std::to_string(ppn) + " " + project + "/build/rank");
    EXPECT_EQ(rank.exit_code, 0) << rank.output;
    EXPECT_THAT(rank.output, HasSubstr("[rank 1] me=1"));
  }
}

// Makefiles that compile with the plain compiler and ask the wrapper for its flags, as Open MPI's and MPICH's wrappers
// answer (--showme:compile and --showme:link, -compile-info, ...): the program so built runs.
TEST(Wrappers, ShowmeQueriesGiveFlagsThatBuildAProgram)
{
  std::string source =
      write_source("showme.c", "#include <mpi.h>\n#include <stdio.h>\nint main(int argc, char** argv) {\n"
                               "  MPI_Init(&argc, &argv);\n  int rank;\n"
                               "  MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
                               "  fprintf(stderr, \"rank=%d\\n\", rank);\n  return MPI_Finalize();\n}\n");
  std::string object  = temporary_path("showme.o");
  std::string program = temporary_path("showme");
  auto build = run_command("cc $(" + kBxicc + " --showme:compile) -c " + source + " -o " + object + " && cc " + object +
                           " $(" + kBxicc + " --showme:link) -o " + program + " 2>&1");
  ASSERT_EQ(build.exit_code, 0) << build.output;
  for (int ppn : {1, 2}) {
    auto run = run_bxisim("run -q --no-cpu-simulation -n 2 --ppn " + std::to_string(ppn) + " " + program);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_THAT(run.output, HasSubstr("[rank 1] rank=1"));
  }
  auto incdirs = run_command(kBxicc + " --showme:incdirs");
  EXPECT_THAT(incdirs.output, HasSubstr("/middleware/include"));
  EXPECT_THAT(run_command(kBxicc + " -compile-info").output, HasSubstr("-fPIC"));
  auto unknown = run_command(kBxicc + " --showme:everything");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.output, HasSubstr("--showme:everything: not a query this wrapper answers"));
}
