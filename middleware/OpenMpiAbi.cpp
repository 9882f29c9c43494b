#include "OpenMpiAbi.hpp"

#include "FortranPairReductions.hpp"

#include <xbt/log.h>

#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <stdexcept>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_mpi_openmpi, bxisim_mpi, "MPI middleware: the OpenMPI back end");

namespace bxisim::mw
{
namespace
{
// OpenMPI 4.1.4's error classes in its numbering (index) -> the standard ABI's.
constexpr int kErrorClasses[]  = {MPI_SUCCESS,
                                  MPI_ERR_BUFFER,
                                  MPI_ERR_COUNT,
                                  MPI_ERR_TYPE,
                                  MPI_ERR_TAG,
                                  MPI_ERR_COMM,
                                  MPI_ERR_RANK,
                                  MPI_ERR_REQUEST,
                                  MPI_ERR_ROOT,
                                  MPI_ERR_GROUP,
                                  MPI_ERR_OP,
                                  MPI_ERR_TOPOLOGY,
                                  MPI_ERR_DIMS,
                                  MPI_ERR_ARG,
                                  MPI_ERR_UNKNOWN,
                                  MPI_ERR_TRUNCATE,
                                  MPI_ERR_OTHER,
                                  MPI_ERR_INTERN,
                                  MPI_ERR_IN_STATUS,
                                  MPI_ERR_PENDING,
                                  MPI_ERR_ACCESS,
                                  MPI_ERR_AMODE,
                                  MPI_ERR_ASSERT,
                                  MPI_ERR_BAD_FILE,
                                  MPI_ERR_BASE,
                                  MPI_ERR_CONVERSION,
                                  MPI_ERR_DISP,
                                  MPI_ERR_DUP_DATAREP,
                                  MPI_ERR_FILE_EXISTS,
                                  MPI_ERR_FILE_IN_USE,
                                  MPI_ERR_FILE,
                                  MPI_ERR_INFO_KEY,
                                  MPI_ERR_INFO_NOKEY,
                                  MPI_ERR_INFO_VALUE,
                                  MPI_ERR_INFO,
                                  MPI_ERR_IO,
                                  MPI_ERR_KEYVAL,
                                  MPI_ERR_LOCKTYPE,
                                  MPI_ERR_NAME,
                                  MPI_ERR_NO_MEM,
                                  MPI_ERR_NOT_SAME,
                                  MPI_ERR_NO_SPACE,
                                  MPI_ERR_NO_SUCH_FILE,
                                  MPI_ERR_PORT,
                                  MPI_ERR_QUOTA,
                                  MPI_ERR_READ_ONLY,
                                  MPI_ERR_RMA_CONFLICT,
                                  MPI_ERR_RMA_SYNC,
                                  MPI_ERR_SERVICE,
                                  MPI_ERR_SIZE,
                                  MPI_ERR_SPAWN,
                                  MPI_ERR_UNSUPPORTED_DATAREP,
                                  MPI_ERR_UNSUPPORTED_OPERATION,
                                  MPI_ERR_WIN,
                                  MPI_T_ERR_MEMORY,
                                  MPI_T_ERR_NOT_INITIALIZED,
                                  MPI_T_ERR_CANNOT_INIT,
                                  MPI_T_ERR_INVALID_INDEX,
                                  MPI_T_ERR_INVALID_ITEM,
                                  MPI_T_ERR_INVALID_HANDLE,
                                  MPI_T_ERR_OUT_OF_HANDLES,
                                  MPI_T_ERR_OUT_OF_SESSIONS,
                                  MPI_T_ERR_INVALID_SESSION,
                                  MPI_T_ERR_CVAR_SET_NOT_NOW,
                                  MPI_T_ERR_CVAR_SET_NEVER,
                                  MPI_T_ERR_PVAR_NO_STARTSTOP,
                                  MPI_T_ERR_PVAR_NO_WRITE,
                                  MPI_T_ERR_PVAR_NO_ATOMIC,
                                  MPI_ERR_RMA_RANGE,
                                  MPI_ERR_RMA_ATTACH,
                                  MPI_ERR_RMA_FLAVOR,
                                  MPI_ERR_RMA_SHARED,
                                  MPI_T_ERR_INVALID,
                                  MPI_T_ERR_INVALID_NAME};
constexpr int kErrorClassCount = static_cast<int>(sizeof(kErrorClasses) / sizeof(kErrorClasses[0]));

// Bit masks: standard ABI bit -> OpenMPI bit, in the same order.
constexpr int kAbiAmodeBits[]   = {MPI_MODE_APPEND,     MPI_MODE_CREATE,      MPI_MODE_DELETE_ON_CLOSE,
                                   MPI_MODE_EXCL,       MPI_MODE_RDONLY,      MPI_MODE_RDWR,
                                   MPI_MODE_SEQUENTIAL, MPI_MODE_UNIQUE_OPEN, MPI_MODE_WRONLY};
constexpr int kOmpiAmodeBits[]  = {128, 1, 16, 64, 2, 8, 256, 32, 4};
constexpr int kAbiAssertBits[]  = {MPI_MODE_NOCHECK, MPI_MODE_NOPRECEDE, MPI_MODE_NOPUT, MPI_MODE_NOSTORE,
                                   MPI_MODE_NOSUCCEED};
constexpr int kOmpiAssertBits[] = {1, 2, 4, 8, 16};

template <size_t N>
int map_bits(int value, const int (&from)[N], const int (&to)[N])
{
  int result = 0;
  for (size_t i = 0; i < N; ++i)
    if (value & from[i]) {
      result |= to[i];
      value &= ~from[i];
    }
  return result | (value != 0 ? (1 << 30) : 0); // unknown bits stay visible as an invalid value
}

// Predefined attribute keys: standard ABI value at OpenMPI's value (its enum, from MPI_TAG_UB = 0).
constexpr int kKeyvals[]   = {MPI_TAG_UB,
                              MPI_HOST,
                              MPI_IO,
                              MPI_WTIME_IS_GLOBAL,
                              MPI_APPNUM,
                              MPI_LASTUSEDCODE,
                              MPI_UNIVERSE_SIZE,
                              MPI_WIN_BASE,
                              MPI_WIN_SIZE,
                              MPI_WIN_DISP_UNIT,
                              MPI_WIN_CREATE_FLAVOR,
                              MPI_WIN_MODEL};
constexpr int kKeyvalCount = static_cast<int>(sizeof(kKeyvals) / sizeof(kKeyvals[0]));

// Combiners: OpenMPI's enum (index) -> standard ABI (the *_INTEGER ones were removed in MPI-3).
constexpr int kCombiners[] = {
    MPI_COMBINER_NAMED,       MPI_COMBINER_DUP,           MPI_COMBINER_CONTIGUOUS,    MPI_COMBINER_VECTOR,
    MPI_COMBINER_HVECTOR,     MPI_COMBINER_HVECTOR,       MPI_COMBINER_INDEXED,       MPI_COMBINER_HINDEXED,
    MPI_COMBINER_HINDEXED,    MPI_COMBINER_INDEXED_BLOCK, MPI_COMBINER_STRUCT,        MPI_COMBINER_STRUCT,
    MPI_COMBINER_SUBARRAY,    MPI_COMBINER_DARRAY,        MPI_COMBINER_F90_REAL,      MPI_COMBINER_F90_COMPLEX,
    MPI_COMBINER_F90_INTEGER, MPI_COMBINER_RESIZED,       MPI_COMBINER_HINDEXED_BLOCK};

int invalid_value(int value)
{
  // A value the back end does not know: an out-of-range value it rejects with an error.
  return value < 0 ? value : -1000000 - value;
}
} // namespace

OpenMpiAbi::OpenMpiAbi(void* library)
    : OpenMpiAbi(std::function<void*(const char*)>([library](const char* name) { return dlsym(library, name); }))
{
}

OpenMpiAbi::OpenMpiAbi(std::function<void*(const char*)> resolve) : resolve_(std::move(resolve))
{
  resolve_predefined();
  comm_test_inter_  = reinterpret_cast<decltype(comm_test_inter_)>(symbol("PMPI_Comm_test_inter", false));
  comm_size_        = reinterpret_cast<decltype(comm_size_)>(symbol("PMPI_Comm_size", false));
  comm_remote_size_ = reinterpret_cast<decltype(comm_remote_size_)>(symbol("PMPI_Comm_remote_size", false));
  topo_test_        = reinterpret_cast<decltype(topo_test_)>(symbol("PMPI_Topo_test", false));
  dist_graph_neighbors_count_ =
      reinterpret_cast<decltype(dist_graph_neighbors_count_)>(symbol("PMPI_Dist_graph_neighbors_count", false));
  graph_neighbors_count_ =
      reinterpret_cast<decltype(graph_neighbors_count_)>(symbol("PMPI_Graph_neighbors_count", false));
  cartdim_get_             = reinterpret_cast<decltype(cartdim_get_)>(symbol("PMPI_Cartdim_get", false));
  comm_rank_               = reinterpret_cast<decltype(comm_rank_)>(symbol("PMPI_Comm_rank", false));
  op_create_               = reinterpret_cast<decltype(op_create_)>(symbol("PMPI_Op_create", false));
  ompi_comm_null_copy_fn   = symbol("OMPI_C_MPI_COMM_NULL_COPY_FN", false);
  ompi_comm_dup_fn         = symbol("OMPI_C_MPI_COMM_DUP_FN", false);
  ompi_comm_null_delete_fn = symbol("OMPI_C_MPI_COMM_NULL_DELETE_FN", false);
  ompi_type_null_copy_fn   = symbol("OMPI_C_MPI_TYPE_NULL_COPY_FN", false);
  ompi_type_dup_fn         = symbol("OMPI_C_MPI_TYPE_DUP_FN", false);
  ompi_type_null_delete_fn = symbol("OMPI_C_MPI_TYPE_NULL_DELETE_FN", false);
  ompi_win_null_copy_fn    = symbol("OMPI_C_MPI_WIN_NULL_COPY_FN", false);
  ompi_win_dup_fn          = symbol("OMPI_C_MPI_WIN_DUP_FN", false);
  ompi_win_null_delete_fn  = symbol("OMPI_C_MPI_WIN_NULL_DELETE_FN", false);
}

OpenMpiAbi::be_op OpenMpiAbi::to_be_reduction_op(MPI_Op h, MPI_Datatype type) const
{
  bool maxloc  = h == MPI_MAXLOC;
  bool doubles = type == MPI_2DOUBLE_PRECISION;
  if ((not maxloc && h != MPI_MINLOC) || (not doubles && type != MPI_2REAL))
    return to_be_op(h);
  be_op& made = fortran_pair_ops_[(maxloc ? 2 : 0) + (doubles ? 1 : 0)];
  if (made == nullptr &&
      op_create_(reinterpret_cast<void*>(fortran_pair_reduction(maxloc, doubles)), 1, &made) != kOmpiSuccess)
    made = nullptr; // OpenMPI's own answer then: MPI_ERR_OP
  return made != nullptr ? made : to_be_op(h);
}

void* OpenMpiAbi::symbol(const char* name, bool optional) const
{
  void* address = resolve_(name);
  if (address == nullptr && not optional)
    throw std::runtime_error(std::string("the OpenMPI library has no symbol ") + name +
                             ": it is not the OpenMPI 4.1.4 build bxisim expects (mpi_patches/build makes it)");
  return address;
}

int OpenMpiAbi::missing(const char* function) const
{
  std::fprintf(stderr, "bxisim: %s is not in this OpenMPI build (built without it); the call fails.\n", function);
  return MPI_ERR_UNSUPPORTED_OPERATION;
}

void OpenMpiAbi::predefined(uintptr_t abi, const char* object)
{
  void* address = resolve_(object);
  if (address == nullptr) {
    XBT_DEBUG("OpenMPI has no %s: the standard ABI's handle 0x%zx maps to its kind's null handle", object,
              static_cast<size_t>(abi));
    return;
  }
  predefined_[abi] = address;
  abi_of_.emplace(address, abi); // the first ABI value of an object is the one handed back
}

void OpenMpiAbi::alias(uintptr_t abi, uintptr_t same_as)
{
  predefined_[abi] = predefined_[same_as];
}

void OpenMpiAbi::resolve_predefined()
{
  auto value = [](auto handle) { return reinterpret_cast<uintptr_t>(handle); };
  struct Required {
    uintptr_t abi;
    const char* object;
  };
  for (const Required& r : {Required{value(MPI_COMM_NULL), "ompi_mpi_comm_null"},
                            {value(MPI_COMM_WORLD), "ompi_mpi_comm_world"},
                            {value(MPI_COMM_SELF), "ompi_mpi_comm_self"},
                            {value(MPI_GROUP_NULL), "ompi_mpi_group_null"},
                            {value(MPI_GROUP_EMPTY), "ompi_mpi_group_empty"},
                            {value(MPI_WIN_NULL), "ompi_mpi_win_null"},
                            {value(MPI_MESSAGE_NULL), "ompi_message_null"},
                            {value(MPI_MESSAGE_NO_PROC), "ompi_message_no_proc"},
                            {value(MPI_INFO_NULL), "ompi_mpi_info_null"},
                            {value(MPI_INFO_ENV), "ompi_mpi_info_env"},
                            {value(MPI_ERRHANDLER_NULL), "ompi_mpi_errhandler_null"},
                            {value(MPI_ERRORS_ARE_FATAL), "ompi_mpi_errors_are_fatal"},
                            {value(MPI_ERRORS_RETURN), "ompi_mpi_errors_return"},
                            {value(MPI_REQUEST_NULL), "ompi_request_null"},
                            {value(MPI_DATATYPE_NULL), "ompi_mpi_datatype_null"},
                            {value(MPI_OP_NULL), "ompi_mpi_op_null"}}) {
    symbol(r.object, false);
    predefined(r.abi, r.object);
  }
  predefined(value(MPI_FILE_NULL), "ompi_mpi_file_null");
  // MPI_ERRORS_ABORT (MPI-4) does not exist in OpenMPI 4.1: in a single job it means the same as fatal.
  alias(value(MPI_ERRORS_ABORT), value(MPI_ERRORS_ARE_FATAL));

  static const std::pair<MPI_Op, const char*> ops[] = {
      {MPI_SUM, "ompi_mpi_op_sum"},         {MPI_MIN, "ompi_mpi_op_min"},       {MPI_MAX, "ompi_mpi_op_max"},
      {MPI_PROD, "ompi_mpi_op_prod"},       {MPI_BAND, "ompi_mpi_op_band"},     {MPI_BOR, "ompi_mpi_op_bor"},
      {MPI_BXOR, "ompi_mpi_op_bxor"},       {MPI_LAND, "ompi_mpi_op_land"},     {MPI_LOR, "ompi_mpi_op_lor"},
      {MPI_LXOR, "ompi_mpi_op_lxor"},       {MPI_MINLOC, "ompi_mpi_op_minloc"}, {MPI_MAXLOC, "ompi_mpi_op_maxloc"},
      {MPI_REPLACE, "ompi_mpi_op_replace"}, {MPI_NO_OP, "ompi_mpi_op_no_op"}};
  for (const auto& [op, object] : ops)
    predefined(value(op), object);

  static const std::pair<MPI_Datatype, const char*> datatypes[] = {
      {MPI_AINT, "ompi_mpi_aint"},
      {MPI_COUNT, "ompi_mpi_count"},
      {MPI_OFFSET, "ompi_mpi_offset"},
      {MPI_PACKED, "ompi_mpi_packed"},
      {MPI_SHORT, "ompi_mpi_short"},
      {MPI_INT, "ompi_mpi_int"},
      {MPI_LONG, "ompi_mpi_long"},
      {MPI_LONG_LONG, "ompi_mpi_long_long_int"},
      {MPI_UNSIGNED_SHORT, "ompi_mpi_unsigned_short"},
      {MPI_UNSIGNED, "ompi_mpi_unsigned"},
      {MPI_UNSIGNED_LONG, "ompi_mpi_unsigned_long"},
      {MPI_UNSIGNED_LONG_LONG, "ompi_mpi_unsigned_long_long"},
      {MPI_FLOAT, "ompi_mpi_float"},
      {MPI_C_FLOAT_COMPLEX, "ompi_mpi_c_float_complex"},
      {MPI_CXX_FLOAT_COMPLEX, "ompi_mpi_cxx_cplex"},
      {MPI_DOUBLE, "ompi_mpi_double"},
      {MPI_C_DOUBLE_COMPLEX, "ompi_mpi_c_double_complex"},
      {MPI_CXX_DOUBLE_COMPLEX, "ompi_mpi_cxx_dblcplex"},
      {MPI_LOGICAL, "ompi_mpi_logical"},
      {MPI_INTEGER, "ompi_mpi_integer"},
      {MPI_REAL, "ompi_mpi_real"},
      {MPI_COMPLEX, "ompi_mpi_cplex"},
      {MPI_DOUBLE_PRECISION, "ompi_mpi_dblprec"},
      {MPI_DOUBLE_COMPLEX, "ompi_mpi_dblcplex"},
      {MPI_CHARACTER, "ompi_mpi_character"},
      {MPI_LONG_DOUBLE, "ompi_mpi_long_double"},
      {MPI_C_LONG_DOUBLE_COMPLEX, "ompi_mpi_c_long_double_complex"},
      {MPI_CXX_LONG_DOUBLE_COMPLEX, "ompi_mpi_cxx_ldblcplex"},
      {MPI_FLOAT_INT, "ompi_mpi_float_int"},
      {MPI_DOUBLE_INT, "ompi_mpi_double_int"},
      {MPI_LONG_INT, "ompi_mpi_long_int"},
      {MPI_2INT, "ompi_mpi_2int"},
      {MPI_SHORT_INT, "ompi_mpi_short_int"},
      {MPI_LONG_DOUBLE_INT, "ompi_mpi_longdbl_int"},
      {MPI_2REAL, "ompi_mpi_2real"},
      {MPI_2DOUBLE_PRECISION, "ompi_mpi_2dblprec"},
      {MPI_2INTEGER, "ompi_mpi_2integer"},
      {MPI_C_BOOL, "ompi_mpi_c_bool"},
      {MPI_CXX_BOOL, "ompi_mpi_cxx_bool"},
      {MPI_WCHAR, "ompi_mpi_wchar"},
      {MPI_INT8_T, "ompi_mpi_int8_t"},
      {MPI_UINT8_T, "ompi_mpi_uint8_t"},
      {MPI_CHAR, "ompi_mpi_char"},
      {MPI_SIGNED_CHAR, "ompi_mpi_signed_char"},
      {MPI_UNSIGNED_CHAR, "ompi_mpi_unsigned_char"},
      {MPI_BYTE, "ompi_mpi_byte"},
      {MPI_INT16_T, "ompi_mpi_int16_t"},
      {MPI_UINT16_T, "ompi_mpi_uint16_t"},
      {MPI_INT32_T, "ompi_mpi_int32_t"},
      {MPI_UINT32_T, "ompi_mpi_uint32_t"},
      {MPI_INT64_T, "ompi_mpi_int64_t"},
      {MPI_UINT64_T, "ompi_mpi_uint64_t"},
      {MPI_LOGICAL1, "ompi_mpi_logical1"},
      {MPI_INTEGER1, "ompi_mpi_integer1"},
      {MPI_LOGICAL2, "ompi_mpi_logical2"},
      {MPI_INTEGER2, "ompi_mpi_integer2"},
      {MPI_LOGICAL4, "ompi_mpi_logical4"},
      {MPI_INTEGER4, "ompi_mpi_integer4"},
      {MPI_REAL4, "ompi_mpi_real4"},
      {MPI_LOGICAL8, "ompi_mpi_logical8"},
      {MPI_INTEGER8, "ompi_mpi_integer8"},
      {MPI_REAL8, "ompi_mpi_real8"},
      {MPI_COMPLEX8, "ompi_mpi_complex8"},
      {MPI_INTEGER16, "ompi_mpi_integer16"},
      {MPI_REAL16, "ompi_mpi_real16"},
      {MPI_COMPLEX16, "ompi_mpi_complex16"},
      {MPI_COMPLEX32, "ompi_mpi_complex32"}};
  for (const auto& [datatype, object] : datatypes)
    predefined(value(datatype), object);
  // bxisim's OpenMPI is built without Fortran: most of its Fortran types are unavailable (MPI_ERR_TYPE). Each one
  // whose gfortran layout is a C type's is that type, as SMPI does (Fortran programs, bxif90). OpenMPI builds
  // MPI_2REAL and MPI_2DOUBLE_PRECISION from C's float and double, without their MAXLOC and MINLOC
  // (to_be_reduction_op); the 16-byte ones stay unavailable, and OpenMPI reports them.
  static const std::pair<MPI_Datatype, MPI_Datatype> fortran_types[] = {{MPI_INTEGER, MPI_INT},
                                                                        {MPI_REAL, MPI_FLOAT},
                                                                        {MPI_DOUBLE_PRECISION, MPI_DOUBLE},
                                                                        {MPI_COMPLEX, MPI_C_FLOAT_COMPLEX},
                                                                        {MPI_DOUBLE_COMPLEX, MPI_C_DOUBLE_COMPLEX},
                                                                        {MPI_LOGICAL, MPI_INT},
                                                                        {MPI_CHARACTER, MPI_CHAR},
                                                                        {MPI_2INTEGER, MPI_2INT},
                                                                        {MPI_INTEGER1, MPI_INT8_T},
                                                                        {MPI_INTEGER2, MPI_INT16_T},
                                                                        {MPI_INTEGER4, MPI_INT32_T},
                                                                        {MPI_INTEGER8, MPI_INT64_T},
                                                                        {MPI_REAL4, MPI_FLOAT},
                                                                        {MPI_REAL8, MPI_DOUBLE},
                                                                        {MPI_COMPLEX8, MPI_C_FLOAT_COMPLEX},
                                                                        {MPI_COMPLEX16, MPI_C_DOUBLE_COMPLEX},
                                                                        {MPI_LOGICAL4, MPI_INT32_T},
                                                                        {MPI_LOGICAL8, MPI_INT64_T}};
  for (const auto& [fortran, c] : fortran_types)
    alias(value(fortran), value(c));
}

OpenMpiAbi::be_status OpenMpiAbi::to_be_status(const MPI_Status* status) const
{
  be_status result{};
  result.source    = to_be_rank(status->MPI_SOURCE);
  result.tag       = to_be_tag(status->MPI_TAG);
  result.error     = to_be_errcode(status->MPI_ERROR);
  result.cancelled = status->MPI_internal[0];
  uint64_t count   = 0;
  std::memcpy(&count, &status->MPI_internal[1], sizeof count);
  result.ucount = static_cast<size_t>(count);
  return result;
}

void OpenMpiAbi::from_be_status(const be_status& status, MPI_Status* out) const
{
  out->MPI_SOURCE      = from_be_rank(status.source);
  out->MPI_TAG         = from_be_tag(status.tag);
  out->MPI_ERROR       = from_be_errcode(status.error);
  out->MPI_internal[0] = status.cancelled;
  uint64_t count       = status.ucount;
  std::memcpy(&out->MPI_internal[1], &count, sizeof count);
  out->MPI_internal[3] = 0;
  out->MPI_internal[4] = 0;
}

int OpenMpiAbi::to_be_rank(int rank)
{
  switch (rank) {
  case MPI_ANY_SOURCE:
    return kOmpiAnySource;
  case MPI_PROC_NULL:
    return kOmpiProcNull;
  case MPI_ROOT:
    return kOmpiRoot;
  default:
    return rank;
  }
}

int OpenMpiAbi::from_be_rank(int rank)
{
  switch (rank) {
  case kOmpiAnySource:
    return MPI_ANY_SOURCE;
  case kOmpiProcNull:
    return MPI_PROC_NULL;
  case kOmpiRoot:
    return MPI_ROOT;
  default:
    return rank;
  }
}

int OpenMpiAbi::to_be_split_type(int split_type)
{
  if (split_type == MPI_COMM_TYPE_SHARED)
    return 0; // OpenMPI's MPI_COMM_TYPE_SHARED
  if (split_type == MPI_UNDEFINED)
    return split_type;
  return invalid_value(split_type); // MPI-4 hardware split types: OpenMPI 4.1 has none
}

int OpenMpiAbi::to_be_thread_level(int level)
{
  switch (level) {
  case MPI_THREAD_SINGLE:
    return 0;
  case MPI_THREAD_FUNNELED:
    return 1;
  case MPI_THREAD_SERIALIZED:
    return 2;
  case MPI_THREAD_MULTIPLE:
    return 3;
  default:
    return invalid_value(level);
  }
}

int OpenMpiAbi::from_be_thread_level(int level)
{
  static constexpr int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE};
  return level >= 0 && level < 4 ? levels[level] : level;
}

int OpenMpiAbi::from_be_compare(int result)
{
  static constexpr int results[] = {MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR, MPI_UNEQUAL};
  return result >= 0 && result < 4 ? results[result] : result;
}

int OpenMpiAbi::from_be_topology(int topology)
{
  switch (topology) {
  case 1:
    return MPI_CART;
  case 2:
    return MPI_GRAPH;
  case 3:
    return MPI_DIST_GRAPH;
  default:
    return topology; // MPI_UNDEFINED in both
  }
}

int OpenMpiAbi::to_be_lock_type(int lock_type)
{
  if (lock_type == MPI_LOCK_EXCLUSIVE)
    return 1;
  if (lock_type == MPI_LOCK_SHARED)
    return 2;
  return invalid_value(lock_type);
}

int OpenMpiAbi::to_be_win_assert(int assert_bits)
{
  return map_bits(assert_bits, kAbiAssertBits, kOmpiAssertBits);
}

int OpenMpiAbi::to_be_file_amode(int amode)
{
  return map_bits(amode, kAbiAmodeBits, kOmpiAmodeBits);
}

int OpenMpiAbi::from_be_file_amode(int amode)
{
  return map_bits(amode, kOmpiAmodeBits, kAbiAmodeBits);
}

namespace
{
constexpr MPI_Offset kOmpiDisplacementCurrent = -54278278; // OpenMPI's MPI_DISPLACEMENT_CURRENT (mpi.h of OpenMPI 4.1)
} // namespace

MPI_Offset OpenMpiAbi::to_be_file_disp(MPI_Offset disp)
{
  return disp == MPI_DISPLACEMENT_CURRENT ? kOmpiDisplacementCurrent : disp;
}

MPI_Offset OpenMpiAbi::from_be_file_disp(MPI_Offset disp)
{
  return disp == kOmpiDisplacementCurrent ? MPI_DISPLACEMENT_CURRENT : disp;
}

int OpenMpiAbi::to_be_whence(int whence)
{
  switch (whence) {
  case MPI_SEEK_SET:
    return 600;
  case MPI_SEEK_CUR:
    return 602;
  case MPI_SEEK_END:
    return 604;
  default:
    return invalid_value(whence);
  }
}

int OpenMpiAbi::to_be_order(int order)
{
  if (order == MPI_ORDER_C)
    return 0;
  if (order == MPI_ORDER_FORTRAN)
    return 1;
  return invalid_value(order);
}

int OpenMpiAbi::to_be_typeclass(int typeclass)
{
  if (typeclass >= MPI_TYPECLASS_INTEGER && typeclass <= MPI_TYPECLASS_COMPLEX)
    return typeclass - MPI_TYPECLASS_INTEGER + 1;
  return invalid_value(typeclass);
}

int OpenMpiAbi::to_be_distribute(int distribute)
{
  switch (distribute) {
  case MPI_DISTRIBUTE_BLOCK:
    return 0;
  case MPI_DISTRIBUTE_CYCLIC:
    return 1;
  case MPI_DISTRIBUTE_NONE:
    return 2;
  default:
    return invalid_value(distribute);
  }
}

int OpenMpiAbi::from_be_combiner(int combiner)
{
  constexpr int count = static_cast<int>(sizeof(kCombiners) / sizeof(kCombiners[0]));
  return combiner >= 0 && combiner < count ? kCombiners[combiner] : combiner;
}

// The program's keyvals are OpenMPI's shifted by kUserKeyvalOffset: OpenMPI numbers them upwards from its
// last predefined key, and unshifted the 490th or so would be 501, the standard ABI's MPI_TAG_UB.
int OpenMpiAbi::to_be_keyval(int keyval)
{
  if (keyval == MPI_KEYVAL_INVALID)
    return kOmpiKeyvalInvalid;
  for (int i = 0; i < kKeyvalCount; ++i)
    if (kKeyvals[i] == keyval)
      return i;
  return keyval >= kUserKeyvalOffset ? keyval - kUserKeyvalOffset : kOmpiKeyvalInvalid; // OpenMPI refuses it
}

int OpenMpiAbi::from_be_keyval(int keyval)
{
  if (keyval == kOmpiKeyvalInvalid)
    return MPI_KEYVAL_INVALID;
  if (keyval >= 0 && keyval < kKeyvalCount)
    return kKeyvals[keyval];
  return keyval >= 0 ? keyval + kUserKeyvalOffset : keyval;
}

// Codes and classes the program adds (MPI_Add_error_class/_code) follow the last predefined code: OpenMPI
// numbers them from kOmpiErrLastcode + 1, the standard ABI from MPI_ERR_LASTCODE + 1 (a program may check
// that they are above MPI_ERR_LASTCODE, as MPICH's attr/baseattr2 does of MPI_LASTUSEDCODE).
int OpenMpiAbi::to_be_errcode(int code)
{
  if (code == MPI_SUCCESS)
    return kOmpiSuccess;
  for (int i = 0; i < kErrorClassCount; ++i)
    if (kErrorClasses[i] == code)
      return i;
  if (code > MPI_ERR_LASTCODE)
    return code - MPI_ERR_LASTCODE + kOmpiErrLastcode;
  if ((code > MPI_ERR_WIN && code <= MPI_ERR_ABI) || (code > 0 && code <= kOmpiErrLastcode))
    return 16;                 // classes OpenMPI 4.1 does not have: MPI_ERR_OTHER
  return code < 0 ? code : -1; // not a code of the standard ABI: one OpenMPI does not know either
}

int OpenMpiAbi::from_be_errcode(int code)
{
  if (code >= 0 && code < kErrorClassCount)
    return kErrorClasses[code];
  if (code >= kErrorClassCount && code <= kOmpiErrLastcode)
    return MPI_ERR_UNKNOWN;
  if (code > kOmpiErrLastcode)
    return code - kOmpiErrLastcode + MPI_ERR_LASTCODE;
  return code;
}

const void* OpenMpiAbi::from_be_predefined_attribute(int keyval, const void* value)
{
  int converted = 0;
  if (keyval == MPI_HOST || keyval == MPI_IO)
    converted = from_be_rank(*static_cast<const int*>(value));
  else if (keyval == MPI_LASTUSEDCODE) // OpenMPI's last predefined code, or the last the program added
    converted = *static_cast<const int*>(value) <= kOmpiErrLastcode ? MPI_ERR_LASTCODE
                                                                    : from_be_errcode(*static_cast<const int*>(value));
  else
    return value;
  int& slot = predefined_attribute_values_[keyval];
  slot      = converted;
  return &slot;
}

int OpenMpiAbi::from_be_win_flavor(int flavor)
{
  return flavor >= 1 && flavor <= 4 ? MPI_WIN_FLAVOR_CREATE + flavor - 1 : flavor;
}

int OpenMpiAbi::from_be_win_model(int model)
{
  return model == 0 ? MPI_WIN_UNIFIED : (model == 1 ? MPI_WIN_SEPARATE : model);
}

const int* OpenMpiAbi::to_be_weights_in(const int* weights)
{
  if (weights == MPI_UNWEIGHTED)
    return reinterpret_cast<const int*>(2);
  if (weights == MPI_WEIGHTS_EMPTY)
    return reinterpret_cast<const int*>(3);
  return weights;
}

int OpenMpiAbi::peer_count(MPI_Comm comm) const
{
  void* c   = to_be_comm(comm);
  int inter = 0;
  int size  = 0;
  comm_test_inter_(c, &inter);
  (inter ? comm_remote_size_ : comm_size_)(c, &size);
  return size;
}

int OpenMpiAbi::in_degree(MPI_Comm comm) const
{
  void* c      = to_be_comm(comm);
  int topology = 0;
  topo_test_(c, &topology);
  int in       = 0;
  int out      = 0;
  int weighted = 0;
  switch (topology) {
  case 1: // cartesian: two neighbours per dimension
    cartdim_get_(c, &in);
    return 2 * in;
  case 2: { // graph
    int rank = 0;
    comm_rank_(c, &rank);
    graph_neighbors_count_(c, rank, &in);
    return in;
  }
  case 3:
    dist_graph_neighbors_count_(c, &in, &out, &weighted);
    return in;
  default:
    return 0;
  }
}

int OpenMpiAbi::out_degree(MPI_Comm comm) const
{
  void* c      = to_be_comm(comm);
  int topology = 0;
  topo_test_(c, &topology);
  if (topology != 3)
    return in_degree(comm); // symmetric for cartesian and graph topologies
  int in       = 0;
  int out      = 0;
  int weighted = 0;
  dist_graph_neighbors_count_(c, &in, &out, &weighted);
  return out;
}

} // namespace bxisim::mw
