// mpi.h for programs: every MPI and PMPI call of a program built with bxicc becomes a call of a
// bxisim_ entry point, and `bxisim run` can tell a program built against another MPI's mpi.h.

#include "middleware/ProgramCheck.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

using namespace bxisim::test;
using testing::HasSubstr;

namespace
{
const std::string kPrograms = BXISIM_MW_TEST_PROGRAMS;

std::vector<std::string> undefined_symbols(const std::string& object)
{
  auto result = run_command("nm -u " + object);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  std::vector<std::string> names;
  std::istringstream lines(result.output);
  std::string kind;
  std::string name;
  while (lines >> kind >> name)
    names.push_back(name);
  return names;
}
} // namespace

TEST(MpiHeader, ProgramsReferenceOnlyBxisimEntryPoints)
{
  for (const char* object : {"api_use_c.o", "api_use_cpp.o"}) {
    auto names = undefined_symbols(kPrograms + "/" + object);
    int bxisim = 0;
    for (const auto& name : names) {
      EXPECT_NE(name.rfind("MPI_", 0), 0u) << object << " references " << name;
      EXPECT_NE(name.rfind("PMPI_", 0), 0u) << object << " references " << name;
      bxisim += name.rfind("bxisim_MPI_", 0) == 0 || name.rfind("bxisim_PMPI_", 0) == 0;
    }
    EXPECT_GE(bxisim, 30) << object;
  }
}

TEST(MpiHeader, AProfilingLayerDefinesMpiAndCallsPmpi)
{
  auto names = undefined_symbols(kPrograms + "/api_use_c.o");
  EXPECT_THAT(names, testing::Contains("bxisim_PMPI_Send"));
  auto defined = run_command("nm --defined-only " + kPrograms + "/api_use_c.o");
  EXPECT_THAT(defined.output, HasSubstr("T bxisim_MPI_Send"));
}

TEST(ProgramCheck, TellsBxisimProgramsFromForeignOnes)
{
  auto ours = bxisim::mw::program_mpi_use(kPrograms + "/api_use_c.so");
  EXPECT_TRUE(ours.bxisim_mpi);
  EXPECT_TRUE(ours.foreign_symbols.empty());

  auto foreign = bxisim::mw::program_mpi_use(kPrograms + "/foreign_mpi.so");
  EXPECT_FALSE(foreign.bxisim_mpi);
  EXPECT_THAT(foreign.foreign_symbols, testing::Contains("MPI_Init"));
  EXPECT_THAT(bxisim::mw::foreign_mpi_message("prog", foreign), HasSubstr("Rebuild it with bxicc/bxicxx"));

  // Built with bxisim's mpi.h, calling an MPI-1 function MPI-3.0 removed: not "another MPI's mpi.h".
  auto removed = bxisim::mw::program_mpi_use(kPrograms + "/removed_mpi1.so");
  EXPECT_TRUE(removed.bxisim_mpi);
  EXPECT_EQ(removed.foreign_symbols.size(), 2u);
  EXPECT_THAT(removed.foreign_symbols, testing::Contains("MPI_Type_struct"));
  EXPECT_THAT(removed.foreign_symbols, testing::Contains("MPI_Address"));
  removed.foreign_symbols = {"MPI_Type_struct"};
  auto removed_message    = bxisim::mw::foreign_mpi_message("prog", removed);
  EXPECT_THAT(removed_message, HasSubstr("calls MPI_Type_struct, which bxisim's mpi.h does not declare (the compiler "
                                         "took it for an implicitly declared function)"));
  EXPECT_THAT(removed_message, HasSubstr("removed from MPI in MPI-3.0"));
  EXPECT_THAT(removed_message, HasSubstr("use MPI_Type_create_struct instead"));
  EXPECT_THAT(removed_message, testing::Not(HasSubstr("another MPI")));

  // Other names: the profiling form of a removed function, an extension, an MPI-4.0 function.
  bxisim::mw::ProgramMpiUse mixed{true, {"PMPI_Errhandler_create"}, {}};
  EXPECT_THAT(bxisim::mw::foreign_mpi_message("prog", mixed), HasSubstr("use MPI_Comm_create_errhandler instead"));
  mixed.foreign_symbols = {"MPIX_Comm_revoke"};
  EXPECT_THAT(bxisim::mw::foreign_mpi_message("prog", mixed), HasSubstr("extension of one MPI library"));
  mixed.foreign_symbols = {"MPI_Isendrecv"};
  EXPECT_THAT(bxisim::mw::foreign_mpi_message("prog", mixed),
              HasSubstr("bxisim provides the MPI-3.1 functions (middleware/mpi_api.list lists them); MPI_Isendrecv is "
                        "not one of them"));
  // Several functions bxisim does not offer (MPI-4.0's partitioned communication): one sentence names them all.
  mixed.foreign_symbols = {"MPI_Psend_init", "PMPI_Pready", "MPI_Pready", "MPI_Precv_init"};
  auto partitioned      = bxisim::mw::foreign_mpi_message("prog", mixed);
  EXPECT_THAT(partitioned, HasSubstr("; MPI_Psend_init, MPI_Pready and MPI_Precv_init are not among them (MPI-4.0"));
  EXPECT_EQ(partitioned.find("bxisim provides"), partitioned.rfind("bxisim provides")) << partitioned;

  auto none = bxisim::mw::program_mpi_use(kPrograms + "/no_mpi.so");
  EXPECT_FALSE(none.bxisim_mpi);
  EXPECT_TRUE(none.foreign_symbols.empty());
}

TEST(ProgramCheck, BxisimRunRefusesAProgramBuiltAgainstAnotherMpi)
{
  for (const char* ppn : {"1", "2"}) {
    auto result = run_bxisim(std::string("run -n 2 --ppn ") + ppn + " " + kPrograms + "/foreign_mpi.so 2>&1");
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_THAT(result.output, HasSubstr("built against another MPI's mpi.h"));
    EXPECT_THAT(result.output, HasSubstr("Rebuild it with bxicc/bxicxx"));
  }
}

// A routine of the program's own library named like a binding (mpi_my_helper_) is the program's business.
TEST(ProgramCheck, AFortranProgramsOwnRoutineNamedLikeMpiRuns)
{
  auto result = run_bxisim("run -n 2 --level smpi " + kPrograms + "/own_mpi_routine 2>&1");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_THAT(result.output, HasSubstr("helper=called")) << result.output;
}

TEST(ProgramCheck, BxisimRunNamesAnMpi1FunctionRemovedByMpi3)
{
  for (const char* ppn : {"1", "2"}) {
    auto result = run_bxisim(std::string("run -n 2 --ppn ") + ppn + " " + kPrograms + "/removed_mpi1.so 2>&1");
    EXPECT_EQ(result.exit_code, 2) << result.output;
    // both named at once (one rebuild fixes both; HPL calls the two)
    EXPECT_THAT(result.output, testing::ContainsRegex("calls MPI_(Type_struct|Address) and MPI_(Type_struct|Address), "
                                                      "which bxisim's mpi.h does not declare"));
    EXPECT_THAT(result.output, HasSubstr("use MPI_Type_create_struct instead"));
    EXPECT_THAT(result.output, HasSubstr("use MPI_Get_address instead"));
  }
}
