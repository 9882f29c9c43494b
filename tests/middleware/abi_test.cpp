// The OpenMPI back end's conversions between bxisim's ABI (the standard ABI of mpi.h) and OpenMPI
// 4.1.4's, without OpenMPI: the "library" is a table of addresses the test owns. OpenMPI's values
// below are facts of its mpi.h (4.1.4), written here as the test's independent reference.

#include "middleware/OpenMpiAbi.hpp"
#include "middleware/RankMpi.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <map>
#include <memory>
#include <set>
#include <string>

using bxisim::mw::OpenMpiAbi;
using testing::HasSubstr;

namespace
{
/** A fake library: every name gets an address of its own, except the missing ones. */
struct FakeLibrary {
  std::map<std::string, std::unique_ptr<char>> objects;
  std::set<std::string> missing;

  void* resolve(const char* name)
  {
    if (missing.count(name) != 0)
      return nullptr;
    auto& object = objects[name];
    if (!object)
      object = std::make_unique<char>();
    return object.get();
  }
  void* address(const std::string& name) { return resolve(name.c_str()); }
};

struct AbiTest : testing::Test {
  FakeLibrary library;
  std::unique_ptr<OpenMpiAbi> abi;
  void SetUp() override
  {
    library.missing = {"ompi_mpi_real2_does_not_exist"};
    abi             = std::make_unique<OpenMpiAbi>([this](const char* name) { return library.resolve(name); });
  }
};

template <class H>
H abi_handle(uintptr_t value)
{
  return reinterpret_cast<H>(value);
}
} // namespace

TEST_F(AbiTest, PredefinedHandlesMapToOpenMpiObjectsBothWays)
{
  EXPECT_EQ(abi->to_be_comm(MPI_COMM_WORLD), library.address("ompi_mpi_comm_world"));
  EXPECT_EQ(abi->to_be_comm(MPI_COMM_SELF), library.address("ompi_mpi_comm_self"));
  EXPECT_EQ(abi->to_be_comm(MPI_COMM_NULL), library.address("ompi_mpi_comm_null"));
  EXPECT_EQ(abi->to_be_datatype(MPI_DOUBLE), library.address("ompi_mpi_double"));
  EXPECT_EQ(abi->to_be_datatype(MPI_LONG_LONG_INT), library.address("ompi_mpi_long_long_int"));
  // bxisim's OpenMPI has no Fortran types of its own (built without Fortran): a Fortran type is its C twin
  EXPECT_EQ(abi->to_be_datatype(MPI_DOUBLE_PRECISION), library.address("ompi_mpi_double"));
  EXPECT_EQ(abi->to_be_datatype(MPI_INTEGER), library.address("ompi_mpi_int"));
  EXPECT_EQ(abi->to_be_op(MPI_MAXLOC), library.address("ompi_mpi_op_maxloc"));
  EXPECT_EQ(abi->to_be_request(MPI_REQUEST_NULL), library.address("ompi_request_null"));
  EXPECT_EQ(abi->to_be_errhandler(MPI_ERRORS_RETURN), library.address("ompi_mpi_errors_return"));
  EXPECT_EQ(abi->to_be_message(MPI_MESSAGE_NO_PROC), library.address("ompi_message_no_proc"));
  EXPECT_EQ(abi->to_be_info(MPI_INFO_ENV), library.address("ompi_mpi_info_env"));
  EXPECT_EQ(abi->to_be_group(MPI_GROUP_EMPTY), library.address("ompi_mpi_group_empty"));
  EXPECT_EQ(abi->to_be_win(MPI_WIN_NULL), library.address("ompi_mpi_win_null"));

  EXPECT_EQ(abi->from_be_comm(library.address("ompi_mpi_comm_world")), MPI_COMM_WORLD);
  EXPECT_EQ(abi->from_be_datatype(library.address("ompi_mpi_int")), MPI_INT);
  EXPECT_EQ(abi->from_be_datatype(library.address("ompi_mpi_long_long_int")), MPI_LONG_LONG);
  EXPECT_EQ(abi->from_be_op(library.address("ompi_mpi_op_sum")), MPI_SUM);
  EXPECT_EQ(abi->from_be_request(library.address("ompi_request_null")), MPI_REQUEST_NULL);
  EXPECT_EQ(abi->from_be_errhandler(library.address("ompi_mpi_errors_are_fatal")), MPI_ERRORS_ARE_FATAL);
}

TEST_F(AbiTest, EveryPredefinedDatatypeOfBothRoundTrips)
{
  // Every standard-ABI datatype value in 0x200..0x2ff either maps to an object that maps back to the
  // same value (or to its alias's value), or to MPI_DATATYPE_NULL's object.
  void* null_object = abi->to_be_datatype(MPI_DATATYPE_NULL);
  int mapped        = 0;
  for (uintptr_t value = 0x201; value < 0x300; ++value) {
    auto handle  = abi_handle<MPI_Datatype>(value);
    void* object = abi->to_be_datatype(handle);
    if (object == null_object)
      continue;
    ++mapped;
    EXPECT_EQ(abi->to_be_datatype(abi->from_be_datatype(object)), object) << std::hex << value;
  }
  EXPECT_EQ(mapped, 67); // the datatypes of mpi.h that OpenMPI 4.1.4 has (all but REAL2, COMPLEX4, LOGICAL16)
}

TEST_F(AbiTest, UserHandlesAreOpenMpiPointers)
{
  int object = 0;
  auto* comm = reinterpret_cast<MPI_Comm>(&object);
  EXPECT_EQ(abi->to_be_comm(comm), &object);
  EXPECT_EQ(abi->from_be_comm(&object), comm);
  auto* request = reinterpret_cast<MPI_Request>(&object);
  EXPECT_EQ(abi->from_be_request(abi->to_be_request(request)), request);
}

TEST_F(AbiTest, HandlesOpenMpiLacksBecomeTheirKindsNull)
{
  EXPECT_EQ(abi->to_be_datatype(MPI_REAL2), library.address("ompi_mpi_datatype_null"));
  EXPECT_EQ(abi->to_be_datatype(MPI_LOGICAL16), library.address("ompi_mpi_datatype_null"));
  // MPI_ERRORS_ABORT (MPI-4) behaves as MPI_ERRORS_ARE_FATAL, which is what comes back.
  EXPECT_EQ(abi->to_be_errhandler(MPI_ERRORS_ABORT), library.address("ompi_mpi_errors_are_fatal"));
  EXPECT_EQ(abi->from_be_errhandler(abi->to_be_errhandler(MPI_ERRORS_ABORT)), MPI_ERRORS_ARE_FATAL);
}

TEST_F(AbiTest, StatusesConvertSpecialRanksTagsErrorsAndLargeCounts)
{
  OpenMpiAbi::be_status be{};
  be.source    = -2; // OpenMPI's MPI_PROC_NULL
  be.tag       = -1; // OpenMPI's MPI_ANY_TAG
  be.error     = 15; // OpenMPI's MPI_ERR_TRUNCATE
  be.cancelled = 1;
  be.ucount    = (size_t{1} << 33) + 7; // above 32 bits: kept whole
  MPI_Status out{};
  abi->from_be_status(be, &out);
  EXPECT_EQ(out.MPI_SOURCE, MPI_PROC_NULL);
  EXPECT_EQ(out.MPI_TAG, MPI_ANY_TAG);
  EXPECT_EQ(out.MPI_ERROR, MPI_ERR_TRUNCATE);
  OpenMpiAbi::be_status back = abi->to_be_status(&out);
  EXPECT_EQ(back.source, -2);
  EXPECT_EQ(back.tag, -1);
  EXPECT_EQ(back.error, 15);
  EXPECT_EQ(back.cancelled, 1);
  EXPECT_EQ(back.ucount, be.ucount);

  be.source = 5;
  be.tag    = 77;
  abi->from_be_status(be, &out);
  EXPECT_EQ(out.MPI_SOURCE, 5);
  EXPECT_EQ(out.MPI_TAG, 77);
}

TEST_F(AbiTest, RanksAndTags)
{
  EXPECT_EQ(OpenMpiAbi::to_be_rank(MPI_ANY_SOURCE), -1);
  EXPECT_EQ(OpenMpiAbi::to_be_rank(MPI_PROC_NULL), -2);
  EXPECT_EQ(OpenMpiAbi::to_be_rank(MPI_ROOT), -4);
  EXPECT_EQ(OpenMpiAbi::to_be_rank(3), 3);
  EXPECT_EQ(OpenMpiAbi::from_be_rank(-2), MPI_PROC_NULL);
  EXPECT_EQ(OpenMpiAbi::from_be_rank(-32766), MPI_UNDEFINED);
  EXPECT_EQ(OpenMpiAbi::to_be_tag(MPI_ANY_TAG), -1);
  EXPECT_EQ(OpenMpiAbi::to_be_tag(12), 12);
  EXPECT_EQ(OpenMpiAbi::from_be_tag(-1), MPI_ANY_TAG);
}

TEST_F(AbiTest, ErrorClassesFollowEachNumbering)
{
  // OpenMPI numbers MPI_ERR_IN_STATUS 18 and MPI_ERR_PENDING 19; the standard ABI the other way round.
  EXPECT_EQ(OpenMpiAbi::from_be_errcode(18), MPI_ERR_IN_STATUS);
  EXPECT_EQ(OpenMpiAbi::from_be_errcode(19), MPI_ERR_PENDING);
  EXPECT_EQ(OpenMpiAbi::from_be_errcode(46), MPI_ERR_RMA_CONFLICT);
  EXPECT_EQ(OpenMpiAbi::from_be_errcode(53), MPI_ERR_WIN);
  EXPECT_EQ(OpenMpiAbi::from_be_errcode(69), MPI_ERR_RMA_ATTACH);
  EXPECT_EQ(OpenMpiAbi::from_be_errcode(56), MPI_T_ERR_CANNOT_INIT);
  // Every class OpenMPI has comes back to itself; the program's codes follow each numbering's last predefined
  // code (OpenMPI's 92, the standard ABI's MPI_ERR_LASTCODE), so they are above MPI_ERR_LASTCODE for the
  // program, as MPI requires of MPI_LASTUSEDCODE (MPICH's attr/baseattr2 checks it).
  for (int code = 0; code <= 73; ++code)
    EXPECT_EQ(OpenMpiAbi::to_be_errcode(OpenMpiAbi::from_be_errcode(code)), code) << code;
  EXPECT_EQ(OpenMpiAbi::from_be_errcode(93), MPI_ERR_LASTCODE + 1);
  EXPECT_EQ(OpenMpiAbi::to_be_errcode(MPI_ERR_LASTCODE + 1), 93);
  for (int code = 93; code < 200; ++code)
    EXPECT_EQ(OpenMpiAbi::to_be_errcode(OpenMpiAbi::from_be_errcode(code)), code) << code;
  // A value between the ABI's last class and MPI_ERR_LASTCODE is no code: OpenMPI must not take it for one of
  // the program's.
  EXPECT_EQ(OpenMpiAbi::to_be_errcode(93), -1);
  // MPI-4 classes OpenMPI 4.1 lacks become MPI_ERR_OTHER (16 in both).
  EXPECT_EQ(OpenMpiAbi::to_be_errcode(MPI_ERR_SESSION), 16);
}

TEST_F(AbiTest, EnumeratedValues)
{
  EXPECT_EQ(OpenMpiAbi::to_be_thread_level(MPI_THREAD_FUNNELED), 1);
  EXPECT_EQ(OpenMpiAbi::from_be_thread_level(2), MPI_THREAD_SERIALIZED);
  EXPECT_EQ(OpenMpiAbi::from_be_compare(0), MPI_IDENT);
  EXPECT_EQ(OpenMpiAbi::from_be_compare(3), MPI_UNEQUAL);
  EXPECT_EQ(OpenMpiAbi::from_be_topology(1), MPI_CART);
  EXPECT_EQ(OpenMpiAbi::from_be_topology(-32766), MPI_UNDEFINED);
  EXPECT_EQ(OpenMpiAbi::to_be_lock_type(MPI_LOCK_SHARED), 2);
  EXPECT_EQ(OpenMpiAbi::to_be_win_assert(MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED), 2 | 16);
  EXPECT_EQ(OpenMpiAbi::to_be_win_assert(0), 0);
  EXPECT_EQ(OpenMpiAbi::to_be_file_amode(MPI_MODE_CREATE | MPI_MODE_WRONLY), 1 | 4);
  EXPECT_EQ(OpenMpiAbi::from_be_file_amode(1 | 4), MPI_MODE_CREATE | MPI_MODE_WRONLY);
  EXPECT_EQ(OpenMpiAbi::to_be_whence(MPI_SEEK_END), 604);
  EXPECT_EQ(OpenMpiAbi::to_be_order(MPI_ORDER_FORTRAN), 1);
  EXPECT_EQ(OpenMpiAbi::to_be_distribute(MPI_DISTRIBUTE_NONE), 2);
  EXPECT_EQ(OpenMpiAbi::to_be_darg(MPI_DISTRIBUTE_DFLT_DARG), -1);
  EXPECT_EQ(OpenMpiAbi::to_be_darg(4), 4);
  EXPECT_EQ(OpenMpiAbi::from_be_combiner(11), MPI_COMBINER_STRUCT);
  EXPECT_EQ(OpenMpiAbi::from_be_combiner(18), MPI_COMBINER_HINDEXED_BLOCK);
  EXPECT_EQ(OpenMpiAbi::to_be_typeclass(MPI_TYPECLASS_REAL), 2);
  EXPECT_EQ(OpenMpiAbi::to_be_split_type(MPI_COMM_TYPE_SHARED), 0);
  EXPECT_EQ(OpenMpiAbi::to_be_weights_in(MPI_UNWEIGHTED), reinterpret_cast<const int*>(2));
  EXPECT_EQ(OpenMpiAbi::to_be_weights_in(MPI_WEIGHTS_EMPTY), reinterpret_cast<const int*>(3));
  // Unknown values stay invalid for OpenMPI (it then reports an error) rather than meaning something else.
  EXPECT_LT(OpenMpiAbi::to_be_lock_type(1), 0);
}

TEST_F(AbiTest, AttributeKeys)
{
  EXPECT_EQ(OpenMpiAbi::to_be_keyval(MPI_KEYVAL_INVALID), -1);
  EXPECT_EQ(OpenMpiAbi::to_be_keyval(MPI_TAG_UB), 0);
  EXPECT_EQ(OpenMpiAbi::to_be_keyval(MPI_WIN_MODEL), 11);
  EXPECT_EQ(OpenMpiAbi::from_be_keyval(3), MPI_WTIME_IS_GLOBAL);
  EXPECT_EQ(OpenMpiAbi::from_be_keyval(-1), MPI_KEYVAL_INVALID);
  // a keyval the program created: shifted above the standard ABI's predefined keys (501-606)
  EXPECT_EQ(OpenMpiAbi::from_be_keyval(40), 40 + OpenMpiAbi::kUserKeyvalOffset);
  EXPECT_EQ(OpenMpiAbi::to_be_keyval(40 + OpenMpiAbi::kUserKeyvalOffset), 40);
  EXPECT_EQ(OpenMpiAbi::from_be_keyval(501), 501 + OpenMpiAbi::kUserKeyvalOffset); // not MPI_TAG_UB
  EXPECT_EQ(OpenMpiAbi::to_be_keyval(40), -1); // no keyval has that number: OpenMPI refuses it
}

TEST(OpenMpiRankTest, ALibraryThatIsNotOpenMpiIsRefusedNamingTheFirstMissingSymbol)
{
  void* self = dlopen(nullptr, RTLD_NOW);
  try {
    bxisim::mw::make_openmpi_rank(self, 0);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("no symbol ompi_mpi_comm_null"));
  }
}

TEST(OpenMpiRankTest, AMissingRequiredObjectIsNamed)
{
  FakeLibrary library;
  library.missing = {"ompi_mpi_comm_world"};
  try {
    OpenMpiAbi abi([&library](const char* name) { return library.resolve(name); });
    FAIL() << "expected an error";
  } catch (const std::runtime_error& error) {
    EXPECT_THAT(error.what(), HasSubstr("no symbol ompi_mpi_comm_world"));
  }
}
