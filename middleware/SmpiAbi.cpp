#include "SmpiAbi.hpp"

#include "Entry.hpp"
#include "RankMpi.hpp"

#include <xbt/log.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_mpi_smpi, bxisim_mpi, "MPI middleware: the SMPI back end");

namespace bxisim::mw
{
namespace
{
// SMPI 3.32's error classes in its numbering (index, the order of FOREACH_ERROR in smpi.h) -> the standard ABI's.
constexpr int kErrorClasses[]  = {MPI_SUCCESS,
                                  MPI_ERR_COMM,
                                  MPI_ERR_ARG,
                                  MPI_ERR_TYPE,
                                  MPI_ERR_REQUEST,
                                  MPI_ERR_INTERN,
                                  MPI_ERR_COUNT,
                                  MPI_ERR_RANK,
                                  MPI_ERR_TAG,
                                  MPI_ERR_TRUNCATE,
                                  MPI_ERR_GROUP,
                                  MPI_ERR_OP,
                                  MPI_ERR_OTHER,
                                  MPI_ERR_IN_STATUS,
                                  MPI_ERR_PENDING,
                                  MPI_ERR_BUFFER,
                                  MPI_ERR_NAME,
                                  MPI_ERR_DIMS,
                                  MPI_ERR_TOPOLOGY,
                                  MPI_ERR_NO_MEM,
                                  MPI_ERR_WIN,
                                  MPI_ERR_INFO_VALUE,
                                  MPI_ERR_INFO_KEY,
                                  MPI_ERR_INFO_NOKEY,
                                  MPI_ERR_ROOT,
                                  MPI_ERR_UNKNOWN,
                                  MPI_ERR_KEYVAL,
                                  MPI_ERR_BASE,
                                  MPI_ERR_SPAWN,
                                  MPI_ERR_PORT,
                                  MPI_ERR_SERVICE,
                                  MPI_ERR_SIZE,
                                  MPI_ERR_DISP,
                                  MPI_ERR_INFO,
                                  MPI_ERR_LOCKTYPE,
                                  MPI_ERR_ASSERT,
                                  MPI_ERR_RMA_CONFLICT, // SMPI's MPI_RMA_CONFLICT
                                  MPI_ERR_RMA_SYNC,     // SMPI's MPI_RMA_SYNC
                                  MPI_ERR_FILE,
                                  MPI_ERR_NOT_SAME,
                                  MPI_ERR_AMODE,
                                  MPI_ERR_UNSUPPORTED_DATAREP,
                                  MPI_ERR_UNSUPPORTED_OPERATION,
                                  MPI_ERR_NO_SUCH_FILE,
                                  MPI_ERR_FILE_EXISTS,
                                  MPI_ERR_BAD_FILE,
                                  MPI_ERR_ACCESS,
                                  MPI_ERR_NO_SPACE,
                                  MPI_ERR_QUOTA,
                                  MPI_ERR_READ_ONLY,
                                  MPI_ERR_FILE_IN_USE,
                                  MPI_ERR_DUP_DATAREP,
                                  MPI_ERR_CONVERSION,
                                  MPI_ERR_IO,
                                  MPI_ERR_RMA_ATTACH,
                                  MPI_ERR_RMA_CONFLICT,
                                  MPI_ERR_RMA_RANGE,
                                  MPI_ERR_RMA_SHARED,
                                  MPI_ERR_RMA_SYNC,
                                  MPI_ERR_RMA_FLAVOR,
                                  MPI_T_ERR_CANNOT_INIT,
                                  MPI_T_ERR_NOT_INITIALIZED,
                                  MPI_T_ERR_MEMORY,
                                  MPI_T_ERR_INVALID_INDEX,
                                  MPI_T_ERR_INVALID_ITEM,
                                  MPI_T_ERR_INVALID_SESSION,
                                  MPI_T_ERR_INVALID_HANDLE,
                                  MPI_T_ERR_OUT_OF_HANDLES,
                                  MPI_T_ERR_OUT_OF_SESSIONS,
                                  MPI_T_ERR_CVAR_SET_NOT_NOW,
                                  MPI_T_ERR_CVAR_SET_NEVER,
                                  MPI_T_ERR_PVAR_NO_WRITE,
                                  MPI_T_ERR_PVAR_NO_STARTSTOP,
                                  MPI_T_ERR_PVAR_NO_ATOMIC};
constexpr int kErrorClassCount = static_cast<int>(sizeof(kErrorClasses) / sizeof(kErrorClasses[0]));
constexpr int kSmpiErrLastcode = 74;
constexpr int kSmpiErrOther    = 12;

// Bit masks: standard ABI bit -> SMPI bit, in the same order.
constexpr int kAbiAmodeBits[]   = {MPI_MODE_APPEND,     MPI_MODE_CREATE,      MPI_MODE_DELETE_ON_CLOSE,
                                   MPI_MODE_EXCL,       MPI_MODE_RDONLY,      MPI_MODE_RDWR,
                                   MPI_MODE_SEQUENTIAL, MPI_MODE_UNIQUE_OPEN, MPI_MODE_WRONLY};
constexpr int kSmpiAmodeBits[]  = {128, 1, 16, 64, 2, 8, 256, 32, 4};
constexpr int kAbiAssertBits[]  = {MPI_MODE_NOCHECK, MPI_MODE_NOPRECEDE, MPI_MODE_NOPUT, MPI_MODE_NOSTORE,
                                   MPI_MODE_NOSUCCEED};
constexpr int kSmpiAssertBits[] = {0x10, 0x4, 0x2, 0x1, 0x8};

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

// Predefined communicator attribute keys: standard ABI -> SMPI.
constexpr std::pair<int, int> kKeyvals[] = {{MPI_IO, -1},          {MPI_HOST, -2},   {MPI_WTIME_IS_GLOBAL, -3},
                                            {MPI_APPNUM, -4},      {MPI_TAG_UB, -5}, {MPI_UNIVERSE_SIZE, -7},
                                            {MPI_LASTUSEDCODE, -8}};
// Window attribute keys: standard ABI -> SMPI (which numbers them like the communicator's).
constexpr std::pair<int, int> kWinKeyvals[] = {
    {MPI_WIN_BASE, -1}, {MPI_WIN_SIZE, -2}, {MPI_WIN_DISP_UNIT, -3}, {MPI_WIN_CREATE_FLAVOR, -4}, {MPI_WIN_MODEL, -5}};

// Combiners: SMPI's enum (index) -> standard ABI (the *_INTEGER ones were removed in MPI-3).
constexpr int kCombiners[] = {
    MPI_COMBINER_NAMED,       MPI_COMBINER_DUP,           MPI_COMBINER_CONTIGUOUS,    MPI_COMBINER_VECTOR,
    MPI_COMBINER_HVECTOR,     MPI_COMBINER_HVECTOR,       MPI_COMBINER_INDEXED,       MPI_COMBINER_HINDEXED,
    MPI_COMBINER_HINDEXED,    MPI_COMBINER_INDEXED_BLOCK, MPI_COMBINER_STRUCT,        MPI_COMBINER_STRUCT,
    MPI_COMBINER_SUBARRAY,    MPI_COMBINER_DARRAY,        MPI_COMBINER_F90_REAL,      MPI_COMBINER_F90_COMPLEX,
    MPI_COMBINER_F90_INTEGER, MPI_COMBINER_RESIZED,       MPI_COMBINER_HINDEXED_BLOCK};

int invalid_value(int value)
{
  // A value SMPI does not know: an out-of-range value it rejects with an error.
  return value < 0 ? value : -1000000 - value;
}

uintptr_t value_of(const void* handle)
{
  return reinterpret_cast<uintptr_t>(handle);
}

/** A symbol of libsimgrid (SMPI's functions and objects), the same for every rank: looked up once. A lookup in the
 *  default scope goes through every object loaded, each rank's copies included, so a lookup per rank and function made
 *  the start of a run quadratic in its ranks (61 % of a 256-rank hello world's wall time). */
void* simgrid_symbol(const char* name)
{
  static std::mutex guard;
  static std::unordered_map<std::string, void*> found;
  std::lock_guard<std::mutex> lock(guard);
  auto [entry, added] = found.try_emplace(name, nullptr);
  if (added)
    entry->second = dlsym(RTLD_DEFAULT, name);
  return entry->second;
}
} // namespace

void* SmpiAbi::simgrid_internal(const char* mangled, const char* what)
{
  void* found = dlsym(RTLD_DEFAULT, mangled);
  if (found == nullptr) {
    std::fprintf(stderr,
                 "bxisim: this libsimgrid has no %s, which bxisim's smpi level needs (SimGrid 3.32, Debian's "
                 "libsimgrid3.32): install that version.\n",
                 what);
    std::exit(2);
  }
  return found;
}

SmpiAbi::SmpiAbi(void* library)
    : SmpiAbi(std::function<void*(const char*)>(
          [library](const char* name) { return library == nullptr ? simgrid_symbol(name) : dlsym(library, name); }))
{
}

SmpiAbi::SmpiAbi(std::function<void*(const char*)> resolve) : resolve_(std::move(resolve))
{
  resolve_predefined();
  comm_world_         = static_cast<void**>(symbol("MPI_COMM_WORLD", false));
  comm_uninitialized_ = symbol("smpi_MPI_COMM_UNINITIALIZED", false);
  comm_self_          = reinterpret_cast<decltype(comm_self_)>(symbol("smpi_process_comm_self", false));
  info_env_           = reinterpret_cast<decltype(info_env_)>(symbol("smpi_process_info_env", true));
  comm_test_inter_    = reinterpret_cast<decltype(comm_test_inter_)>(symbol("PMPI_Comm_test_inter", false));
  comm_size_          = reinterpret_cast<decltype(comm_size_)>(symbol("PMPI_Comm_size", false));
  lower_bound_marker_ = symbol("smpi_MPI_LB", true);
  upper_bound_marker_ = symbol("smpi_MPI_UB", true);
}

void* SmpiAbi::symbol(const char* name, bool optional) const
{
  void* address = resolve_(name);
  if (address == nullptr && not optional)
    throw std::runtime_error(std::string("libsimgrid has no symbol ") + name +
                             ": it is not the SimGrid 3.32 bxisim was built for");
  return address;
}

int SmpiAbi::missing(const char* function) const
{
  // The error is raised as MPI raises errors: through the error handler of MPI_COMM_WORLD (the program's
  // choice for the calls it makes without a communicator of its own too). Under the default,
  // MPI_ERRORS_ARE_FATAL, the job ends here with the message: returning an error code the program does not
  // expect left it to use handles the call never made, and SMPI crashed on them (MPICH comm/commname).
  using GetErrhandler  = int (*)(void*, void**);
  using CallErrhandler = int (*)(void*, int);
  using FreeErrhandler = int (*)(void**);
  auto get             = reinterpret_cast<GetErrhandler>(resolve_("PMPI_Comm_get_errhandler"));
  void* handler        = nullptr;
  bool known = get != nullptr && get(to_be_comm(MPI_COMM_WORLD), &handler) == kSmpiSuccess && handler != nullptr;
  MPI_Errhandler ours = known ? from_be_errhandler(handler) : MPI_ERRORS_RETURN;
  RankMpi* caller     = calling_rank();
  if ((ours == MPI_ERRORS_ARE_FATAL || ours == MPI_ERRORS_ABORT) && caller != nullptr) {
    std::fprintf(stderr,
                 "bxisim: rank %d: %s is not implemented by SMPI (SimGrid 3.32), and the error handler of "
                 "MPI_COMM_WORLD is MPI_ERRORS_ARE_FATAL: the job ends (with MPI_ERRORS_RETURN the call would fail "
                 "with MPI_ERR_UNSUPPORTED_OPERATION instead). Run this part of the program at --level message.\n",
                 caller->rank(), function);
    std::fflush(stderr);
    abort_job(caller->rank(), MPI_ERR_UNSUPPORTED_OPERATION);
    exit_rank(MPI_ERR_UNSUPPORTED_OPERATION);
  }
  std::fprintf(
      stderr,
      "bxisim: %s is not implemented by SMPI (SimGrid 3.32); the call fails with MPI_ERR_UNSUPPORTED_OPERATION. "
      "Run this part of the program at --level message.\n",
      function);
  if (known && ours != MPI_ERRORS_RETURN) { // the program's handler is called with the code
    if (auto call = reinterpret_cast<CallErrhandler>(resolve_("PMPI_Comm_call_errhandler")))
      call(to_be_comm(MPI_COMM_WORLD), to_be_errcode(MPI_ERR_UNSUPPORTED_OPERATION));
    if (auto release = reinterpret_cast<FreeErrhandler>(resolve_("PMPI_Errhandler_free")))
      release(&handler);
  }
  return MPI_ERR_UNSUPPORTED_OPERATION;
}

void SmpiAbi::predefined(uintptr_t abi, void* object)
{
  predefined_[abi] = object;
  known_[abi]      = true;
  if (object != nullptr)
    abi_of_.emplace(object, abi); // the first ABI value of an object is the one handed back
}

void SmpiAbi::predefined(uintptr_t abi, const char* object)
{
  predefined(abi, symbol(object, false));
}

void SmpiAbi::resolve_predefined()
{
  // Null handles are null pointers in SMPI, except MPI_DATATYPE_NULL.
  for (const void* null_handle :
       {static_cast<const void*>(MPI_COMM_NULL), static_cast<const void*>(MPI_GROUP_NULL),
        static_cast<const void*>(MPI_WIN_NULL), static_cast<const void*>(MPI_MESSAGE_NULL),
        static_cast<const void*>(MPI_MESSAGE_NO_PROC), static_cast<const void*>(MPI_INFO_NULL),
        static_cast<const void*>(MPI_ERRHANDLER_NULL), static_cast<const void*>(MPI_REQUEST_NULL),
        static_cast<const void*>(MPI_OP_NULL), static_cast<const void*>(MPI_FILE_NULL)})
    predefined(value_of(null_handle), static_cast<void*>(nullptr));
  predefined(value_of(MPI_DATATYPE_NULL), "smpi_MPI_DATATYPE_NULL");
  predefined(value_of(MPI_GROUP_EMPTY), "smpi_MPI_GROUP_EMPTY");
  predefined(value_of(MPI_ERRORS_ARE_FATAL), "smpi_MPI_ERRORS_ARE_FATAL");
  predefined(value_of(MPI_ERRORS_RETURN), "smpi_MPI_ERRORS_RETURN");
  // MPI_ERRORS_ABORT (MPI-4) does not exist in SMPI: in a single job it means the same as fatal.
  predefined(value_of(MPI_ERRORS_ABORT), predefined_[value_of(MPI_ERRORS_ARE_FATAL)]);
  // MPI_COMM_WORLD, MPI_COMM_SELF and MPI_INFO_ENV are read at each conversion (to_be_comm, to_be_info).
  known_[value_of(MPI_COMM_WORLD)] = true;
  known_[value_of(MPI_COMM_SELF)]  = true;
  known_[value_of(MPI_INFO_ENV)]   = true;

  static const std::pair<MPI_Op, const char*> ops[] = {
      {MPI_SUM, "smpi_MPI_SUM"},         {MPI_MIN, "smpi_MPI_MIN"},       {MPI_MAX, "smpi_MPI_MAX"},
      {MPI_PROD, "smpi_MPI_PROD"},       {MPI_BAND, "smpi_MPI_BAND"},     {MPI_BOR, "smpi_MPI_BOR"},
      {MPI_BXOR, "smpi_MPI_BXOR"},       {MPI_LAND, "smpi_MPI_LAND"},     {MPI_LOR, "smpi_MPI_LOR"},
      {MPI_LXOR, "smpi_MPI_LXOR"},       {MPI_MINLOC, "smpi_MPI_MINLOC"}, {MPI_MAXLOC, "smpi_MPI_MAXLOC"},
      {MPI_REPLACE, "smpi_MPI_REPLACE"}, {MPI_NO_OP, "smpi_MPI_NO_OP"}};
  for (const auto& [op, object] : ops)
    predefined(value_of(op), object);

  // The C names first: a type SMPI aliases (MPI_INTEGER is its MPI_INT) comes back as the C name.
  static const std::pair<MPI_Datatype, const char*> datatypes[] = {
      {MPI_CHAR, "smpi_MPI_CHAR"},
      {MPI_SHORT, "smpi_MPI_SHORT"},
      {MPI_INT, "smpi_MPI_INT"},
      {MPI_LONG, "smpi_MPI_LONG"},
      {MPI_LONG_LONG, "smpi_MPI_LONG_LONG"},
      {MPI_SIGNED_CHAR, "smpi_MPI_SIGNED_CHAR"},
      {MPI_UNSIGNED_CHAR, "smpi_MPI_UNSIGNED_CHAR"},
      {MPI_UNSIGNED_SHORT, "smpi_MPI_UNSIGNED_SHORT"},
      {MPI_UNSIGNED, "smpi_MPI_UNSIGNED"},
      {MPI_UNSIGNED_LONG, "smpi_MPI_UNSIGNED_LONG"},
      {MPI_UNSIGNED_LONG_LONG, "smpi_MPI_UNSIGNED_LONG_LONG"},
      {MPI_FLOAT, "smpi_MPI_FLOAT"},
      {MPI_DOUBLE, "smpi_MPI_DOUBLE"},
      {MPI_LONG_DOUBLE, "smpi_MPI_LONG_DOUBLE"},
      {MPI_WCHAR, "smpi_MPI_WCHAR"},
      {MPI_C_BOOL, "smpi_MPI_C_BOOL"},
      {MPI_INT8_T, "smpi_MPI_INT8_T"},
      {MPI_INT16_T, "smpi_MPI_INT16_T"},
      {MPI_INT32_T, "smpi_MPI_INT32_T"},
      {MPI_INT64_T, "smpi_MPI_INT64_T"},
      {MPI_UINT8_T, "smpi_MPI_UINT8_T"},
      {MPI_BYTE, "smpi_MPI_BYTE"},
      {MPI_UINT16_T, "smpi_MPI_UINT16_T"},
      {MPI_UINT32_T, "smpi_MPI_UINT32_T"},
      {MPI_UINT64_T, "smpi_MPI_UINT64_T"},
      {MPI_C_FLOAT_COMPLEX, "smpi_MPI_C_FLOAT_COMPLEX"},
      {MPI_C_DOUBLE_COMPLEX, "smpi_MPI_C_DOUBLE_COMPLEX"},
      {MPI_C_LONG_DOUBLE_COMPLEX, "smpi_MPI_C_LONG_DOUBLE_COMPLEX"},
      {MPI_AINT, "smpi_MPI_AINT"},
      {MPI_OFFSET, "smpi_MPI_OFFSET"},
      {MPI_COUNT, "smpi_MPI_COUNT"},
      {MPI_PACKED, "smpi_MPI_PACKED"},
      {MPI_FLOAT_INT, "smpi_MPI_FLOAT_INT"},
      {MPI_LONG_INT, "smpi_MPI_LONG_INT"},
      {MPI_DOUBLE_INT, "smpi_MPI_DOUBLE_INT"},
      {MPI_SHORT_INT, "smpi_MPI_SHORT_INT"},
      {MPI_2INT, "smpi_MPI_2INT"},
      {MPI_LONG_DOUBLE_INT, "smpi_MPI_LONG_DOUBLE_INT"},
      {MPI_2REAL, "smpi_MPI_2FLOAT"},
      {MPI_2DOUBLE_PRECISION, "smpi_MPI_2DOUBLE"},
      {MPI_REAL, "smpi_MPI_REAL"},
      {MPI_REAL4, "smpi_MPI_REAL4"},
      {MPI_REAL8, "smpi_MPI_REAL8"},
      {MPI_REAL16, "smpi_MPI_REAL16"},
      {MPI_COMPLEX8, "smpi_MPI_COMPLEX8"},
      {MPI_COMPLEX16, "smpi_MPI_COMPLEX16"},
      {MPI_COMPLEX32, "smpi_MPI_COMPLEX32"},
      {MPI_INTEGER1, "smpi_MPI_INTEGER1"},
      {MPI_INTEGER2, "smpi_MPI_INTEGER2"},
      {MPI_INTEGER4, "smpi_MPI_INTEGER4"},
      {MPI_INTEGER8, "smpi_MPI_INTEGER8"},
      {MPI_INTEGER16, "smpi_MPI_INTEGER16"},
      {MPI_CXX_BOOL, "smpi_MPI_CXX_BOOL"},
      {MPI_CXX_FLOAT_COMPLEX, "smpi_MPI_CXX_FLOAT_COMPLEX"},
      {MPI_CXX_DOUBLE_COMPLEX, "smpi_MPI_CXX_DOUBLE_COMPLEX"},
      {MPI_CXX_LONG_DOUBLE_COMPLEX, "smpi_MPI_CXX_LONG_DOUBLE_COMPLEX"},
      // smpi.h's aliases of Fortran names (x86_64)
      {MPI_INTEGER, "smpi_MPI_INT"},
      {MPI_2INTEGER, "smpi_MPI_2INT"},
      {MPI_LOGICAL, "smpi_MPI_INT"},
      {MPI_COMPLEX, "smpi_MPI_C_FLOAT_COMPLEX"},
      {MPI_DOUBLE_COMPLEX, "smpi_MPI_C_DOUBLE_COMPLEX"},
      {MPI_LOGICAL1, "smpi_MPI_UINT8_T"},
      {MPI_LOGICAL2, "smpi_MPI_UINT16_T"},
      {MPI_LOGICAL4, "smpi_MPI_UINT32_T"},
      {MPI_LOGICAL8, "smpi_MPI_UINT64_T"},
      {MPI_CHARACTER, "smpi_MPI_CHAR"},
      {MPI_DOUBLE_PRECISION, "smpi_MPI_DOUBLE"}};
  for (const auto& [datatype, object] : datatypes)
    predefined(value_of(datatype), object);
  // MPI_REAL2, MPI_COMPLEX4, MPI_LOGICAL16: SMPI has none; they act as MPI_DATATYPE_NULL.
}

SmpiAbi::be_comm SmpiAbi::to_be_comm(MPI_Comm h) const
{
  if (h == MPI_COMM_WORLD)
    return *comm_world_;
  if (h == MPI_COMM_SELF) {
    if (comm_self_value_ == nullptr)
      comm_self_value_ = comm_self_(); // created by SMPI on first use, one per rank
    return comm_self_value_;
  }
  return to_be(h, MPI_COMM_NULL);
}

MPI_Comm SmpiAbi::from_be_comm(be_comm h) const
{
  if (h == nullptr)
    return MPI_COMM_NULL;
  if (h == *comm_world_ || h == comm_uninitialized_)
    return MPI_COMM_WORLD;
  if (h == comm_self_value_)
    return MPI_COMM_SELF;
  return from_be(h, MPI_COMM_NULL);
}

SmpiAbi::be_info SmpiAbi::to_be_info(MPI_Info h) const
{
  if (h == MPI_INFO_ENV) {
    if (info_env_value_ == nullptr && info_env_ != nullptr)
      info_env_value_ = info_env_();
    return info_env_value_;
  }
  return to_be(h, MPI_INFO_NULL);
}

MPI_Info SmpiAbi::from_be_info(be_info h) const
{
  if (h != nullptr && h == info_env_value_)
    return MPI_INFO_ENV;
  return from_be(h, MPI_INFO_NULL);
}

MPI_Count SmpiAbi::status_bytes(const MPI_Status* status)
{
  uint64_t count = 0;
  std::memcpy(&count, &status->MPI_internal[1], sizeof count);
  return static_cast<MPI_Count>(count);
}

void SmpiAbi::set_status_bytes(MPI_Status* status, MPI_Count bytes)
{
  auto count = static_cast<uint64_t>(bytes);
  std::memcpy(&status->MPI_internal[1], &count, sizeof count);
}

SmpiAbi::be_status SmpiAbi::to_be_status(const MPI_Status* status) const
{
  be_status result{};
  result.source    = to_be_rank(status->MPI_SOURCE);
  result.tag       = to_be_tag(status->MPI_TAG);
  result.error     = to_be_errcode(status->MPI_ERROR);
  result.cancelled = status->MPI_internal[0];
  result.count     = static_cast<int>(status_bytes(status));
  return result;
}

void SmpiAbi::from_be_status(const be_status& status, MPI_Status* out) const
{
  out->MPI_SOURCE      = from_be_rank(status.source);
  out->MPI_TAG         = from_be_tag(status.tag);
  out->MPI_ERROR       = from_be_errcode(status.error);
  out->MPI_internal[0] = status.cancelled;
  set_status_bytes(out, static_cast<MPI_Count>(static_cast<uint32_t>(status.count)));
  out->MPI_internal[3] = 0;
  out->MPI_internal[4] = 0;
}

void SmpiAbi::from_be_single_status(const be_status& status, MPI_Status* out) const
{
  if (out == MPI_STATUS_IGNORE)
    return;
  int error = out->MPI_ERROR;
  from_be_status(status, out);
  bool empty     = out->MPI_SOURCE == MPI_ANY_SOURCE && out->MPI_TAG == MPI_ANY_TAG;
  out->MPI_ERROR = empty ? MPI_SUCCESS : error;
}

void SmpiAbi::run_completion_action(MPI_Request request)
{
  auto action = completion_actions_.find(request);
  if (action == completion_actions_.end())
    return;
  std::function<void()> run = std::move(action->second);
  completion_actions_.erase(action);
  run();
}

int SmpiAbi::to_be_rank(int rank)
{
  switch (rank) {
  case MPI_ANY_SOURCE:
    return kSmpiAnySource;
  case MPI_PROC_NULL:
    return kSmpiProcNull;
  case MPI_ROOT: // SMPI has no inter-communicators; its MPI_ROOT is 0, a rank
    return invalid_value(rank);
  case MPI_UNDEFINED:
    return kSmpiUndefined;
  default:
    return rank;
  }
}

int SmpiAbi::from_be_rank(int rank)
{
  switch (rank) {
  case kSmpiAnySource:
    return MPI_ANY_SOURCE;
  case kSmpiProcNull:
    return MPI_PROC_NULL;
  case kSmpiUndefined:
    return MPI_UNDEFINED;
  default:
    return rank;
  }
}

int SmpiAbi::to_be_split_type(int split_type)
{
  if (split_type == MPI_COMM_TYPE_SHARED)
    return 1; // SMPI's MPI_COMM_TYPE_SHARED
  if (split_type == MPI_UNDEFINED)
    return kSmpiUndefined;
  return invalid_value(split_type); // MPI-4 hardware split types: SMPI has none
}

int SmpiAbi::to_be_thread_level(int level)
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

int SmpiAbi::from_be_thread_level(int level)
{
  static constexpr int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE};
  return level >= 0 && level < 4 ? levels[level] : level;
}

int SmpiAbi::from_be_compare(int result)
{
  static constexpr int results[] = {MPI_IDENT, MPI_SIMILAR, MPI_UNEQUAL, MPI_CONGRUENT};
  return result >= 0 && result < 4 ? results[result] : result;
}

int SmpiAbi::from_be_topology(int topology)
{
  switch (topology) {
  case 1:
    return MPI_GRAPH;
  case 2:
    return MPI_CART;
  case 3:
    return MPI_DIST_GRAPH;
  default:
    return MPI_UNDEFINED;
  }
}

int SmpiAbi::to_be_lock_type(int lock_type)
{
  if (lock_type == MPI_LOCK_EXCLUSIVE)
    return 1;
  if (lock_type == MPI_LOCK_SHARED)
    return 2;
  return invalid_value(lock_type);
}

int SmpiAbi::to_be_win_assert(int assert_bits)
{
  return map_bits(assert_bits, kAbiAssertBits, kSmpiAssertBits);
}

int SmpiAbi::to_be_file_amode(int amode)
{
  return map_bits(amode, kAbiAmodeBits, kSmpiAmodeBits);
}

int SmpiAbi::from_be_file_amode(int amode)
{
  return map_bits(amode, kSmpiAmodeBits, kAbiAmodeBits);
}

// SMPI 3.32 has no MPI_DISPLACEMENT_CURRENT: values pass as they are.
MPI_Offset SmpiAbi::to_be_file_disp(MPI_Offset disp)
{
  return disp;
}

MPI_Offset SmpiAbi::from_be_file_disp(MPI_Offset disp)
{
  return disp;
}

int SmpiAbi::to_be_whence(int whence)
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

int SmpiAbi::to_be_order(int order)
{
  if (order == MPI_ORDER_C)
    return 1;
  if (order == MPI_ORDER_FORTRAN)
    return 0;
  return invalid_value(order);
}

int SmpiAbi::to_be_typeclass(int typeclass)
{
  switch (typeclass) {
  case MPI_TYPECLASS_REAL:
    return 0;
  case MPI_TYPECLASS_INTEGER:
    return 1;
  case MPI_TYPECLASS_COMPLEX:
    return 2;
  default:
    return invalid_value(typeclass);
  }
}

int SmpiAbi::to_be_distribute(int distribute)
{
  switch (distribute) {
  case MPI_DISTRIBUTE_BLOCK:
    return 0;
  case MPI_DISTRIBUTE_NONE:
    return 1;
  case MPI_DISTRIBUTE_CYCLIC:
    return 2;
  default:
    return invalid_value(distribute);
  }
}

int SmpiAbi::from_be_combiner(int combiner)
{
  constexpr int count = static_cast<int>(sizeof(kCombiners) / sizeof(kCombiners[0]));
  return combiner >= 0 && combiner < count ? kCombiners[combiner] : combiner;
}

int SmpiAbi::to_be_keyval(int keyval)
{
  if (keyval == MPI_KEYVAL_INVALID)
    return kSmpiKeyvalInvalid;
  for (const auto& [abi, smpi] : kKeyvals)
    if (abi == keyval)
      return smpi;
  return keyval >= kUserKeyvalOffset ? keyval - kUserKeyvalOffset : invalid_value(keyval);
}

int SmpiAbi::to_be_win_keyval(int keyval)
{
  for (const auto& [abi, smpi] : kWinKeyvals)
    if (abi == keyval)
      return smpi;
  return to_be_keyval(keyval);
}

int SmpiAbi::from_be_keyval(int keyval)
{
  if (keyval == kSmpiKeyvalInvalid)
    return MPI_KEYVAL_INVALID;
  for (const auto& [abi, smpi] : kKeyvals)
    if (smpi == keyval)
      return abi;
  return keyval >= 0 ? keyval + kUserKeyvalOffset : keyval;
}

int SmpiAbi::to_be_errcode(int code)
{
  if (code == MPI_SUCCESS)
    return kSmpiSuccess;
  for (int i = 0; i < kErrorClassCount; ++i)
    if (kErrorClasses[i] == code)
      return i;
  if (code > 0 && code <= MPI_ERR_ABI)
    return kSmpiErrOther; // classes SMPI does not have
  return code;
}

int SmpiAbi::from_be_errcode(int code)
{
  if (code >= 0 && code < kErrorClassCount)
    return kErrorClasses[code];
  if (code >= kErrorClassCount && code <= kSmpiErrLastcode)
    return MPI_ERR_UNKNOWN;
  return code;
}

const void* SmpiAbi::from_be_predefined_attribute(int keyval, const void* value)
{
  int converted = 0;
  if (keyval == MPI_HOST || keyval == MPI_IO)
    converted = from_be_rank(*static_cast<const int*>(value));
  else if (keyval == MPI_LASTUSEDCODE)
    converted = last_added_code_; // SMPI 3.32 has no MPI_Add_error_code: bxisim's, from MPI_ERR_LASTCODE up
  else
    return value;
  int& slot = predefined_attribute_values_[keyval];
  slot      = converted;
  return &slot;
}

int SmpiAbi::from_be_win_flavor(int flavor)
{
  return flavor >= 0 && flavor <= 3 ? MPI_WIN_FLAVOR_CREATE + flavor : flavor;
}

int SmpiAbi::from_be_win_model(int model)
{
  return model == 0 ? MPI_WIN_UNIFIED : (model == 1 ? MPI_WIN_SEPARATE : model);
}

const int* SmpiAbi::to_be_weights_in(const int* weights)
{
  if (weights == MPI_UNWEIGHTED)
    return nullptr;
  if (weights == MPI_WEIGHTS_EMPTY)
    return reinterpret_cast<const int*>(1);
  return weights;
}

int SmpiAbi::peer_count(MPI_Comm comm) const
{
  void* c   = to_be_comm(comm);
  int inter = 0;
  int size  = 0;
  comm_test_inter_(c, &inter);
  comm_size_(c, &size); // SMPI has no inter-communicators
  return size;
}

} // namespace bxisim::mw
