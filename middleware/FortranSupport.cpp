// The Fortran bindings' conversions (FortranSupport.hpp) and the bindings that cannot be generated from
// mpi_api.list: MPI_Init without argc/argv, attribute values passed by value, Fortran callbacks.

#include "FortranSupport.hpp"
#include "Entry.hpp"
#include "ProgramFunctions.hpp"
#include "RankMpi.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <limits>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace bxisim::mw
{
namespace fortran
{
namespace
{
struct HandleTable {
  std::unordered_map<uintptr_t, MPI_Fint> value_of;
  std::unordered_map<MPI_Fint, uintptr_t> handle_of;
  MPI_Fint next = kFirstTableHandle;
};
HandleTable& table()
{
  static HandleTable handles;
  return handles;
}

// mpif.h's special addresses are COMMON blocks, which each copy of a program has to itself (bxif90 links
// with -Bsymbolic): the addresses of every loaded copy, by name.
enum Special { kBottom, kInPlace, kStatusIgnore, kStatusesIgnore, kErrcodesIgnore, kUnweighted, kWeightsEmpty, kCount };
constexpr std::array<const char*, kCount> kSpecialSymbols = {
    "mpi_bottom_fortran_",          "mpi_in_place_fortran_",        "mpi_status_ignore_fortran_",
    "mpi_statuses_ignore_fortran_", "mpi_errcodes_ignore_fortran_", "mpi_unweighted_fortran_",
    "mpi_weights_empty_fortran_"};
std::array<std::unordered_set<const void*>, kCount>& specials()
{
  static std::array<std::unordered_set<const void*>, kCount> addresses;
  return addresses;
}
bool is_special(const void* address, Special which)
{
  return address != nullptr && specials()[which].count(address) != 0;
}

[[noreturn]] void unsupported(const char* function, const char* what)
{
  RankMpi* caller = calling_rank();
  int rank        = caller != nullptr ? caller->rank() : -1;
  std::fprintf(stderr,
               "bxisim: rank %d called %s from Fortran with %s, which bxisim's Fortran bindings do not offer. %s\n",
               rank, function, what, "Call it from C (bxicc) or do without it.");
  std::fflush(stderr);
  abort_job(rank, MPI_ERR_UNSUPPORTED_OPERATION);
  exit_rank(MPI_ERR_UNSUPPORTED_OPERATION);
}
} // namespace

MPI_Fint handle_to_fortran(uintptr_t handle)
{
  if (handle < static_cast<uintptr_t>(kFirstTableHandle))
    return static_cast<MPI_Fint>(handle);
  HandleTable& handles = table();
  if (handles.next == std::numeric_limits<MPI_Fint>::max() && handles.value_of.count(handle) == 0)
    unsupported("an MPI function", "more than 2^31 handles over the run (Fortran INTEGERs number them)");
  auto [it, added] = handles.value_of.try_emplace(handle, handles.next);
  if (added) {
    handles.handle_of.emplace(handles.next, handle);
    ++handles.next;
  }
  return it->second;
}

uintptr_t handle_from_fortran(MPI_Fint handle, uintptr_t null)
{
  if (handle >= 0 && handle < kFirstTableHandle)
    return static_cast<uintptr_t>(handle);
  auto it = table().handle_of.find(handle);
  return it == table().handle_of.end() ? null : it->second;
}

void forget_handle(MPI_Fint handle)
{
  HandleTable& handles = table();
  auto it              = handles.handle_of.find(handle);
  if (it == handles.handle_of.end())
    return;
  handles.value_of.erase(it->second);
  handles.handle_of.erase(it);
}

void* buffer(void* address)
{
  if (is_special(address, kBottom))
    return MPI_BOTTOM;
  if (is_special(address, kInPlace))
    return MPI_IN_PLACE;
  return address;
}

const void* buffer(const void* address)
{
  return buffer(const_cast<void*>(address));
}

const int* weights(const int* address)
{
  if (is_special(address, kUnweighted))
    return MPI_UNWEIGHTED;
  if (is_special(address, kWeightsEmpty))
    return MPI_WEIGHTS_EMPTY;
  return address;
}

int* weights(int* address)
{
  return const_cast<int*>(weights(static_cast<const int*>(address)));
}

std::string info_string_from_fortran(const char* text, size_t size)
{
  size_t first = 0;
  while (first < size && text[first] == ' ')
    ++first;
  return string_from_fortran(text + first, size - first);
}

std::string string_from_fortran(const char* text, size_t size)
{
  while (size > 0 && text[size - 1] == ' ')
    --size;
  return std::string(text, size);
}

void string_to_fortran(const char* c_text, char* text, size_t size)
{
  size_t length = std::min(std::strlen(c_text), size);
  std::memcpy(text, c_text, length);
  std::memset(text + length, ' ', size - length);
}

MPI_Status status_from_fortran(const MPI_Fint* status)
{
  MPI_Status c_status{};
  static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
  if (not is_special(status, kStatusIgnore) && not is_special(status, kStatusesIgnore))
    std::memcpy(&c_status, status, sizeof c_status);
  return c_status;
}

Status::Status(MPI_Fint* status)
    : status_(status), ignored_(is_special(status, kStatusIgnore) || is_special(status, kStatusesIgnore))
{
  // Read first: a single-completion call leaves MPI_ERROR as the program set it (MPI-3.1 3.2.5).
  if (not ignored_)
    c_status_ = status_from_fortran(status);
}

void Status::copy_out()
{
  if (not ignored_)
    std::memcpy(status_, &c_status_, sizeof c_status_);
}

Statuses::Statuses(MPI_Fint* statuses, size_t count)
    : statuses_(statuses), ignored_(is_special(statuses, kStatusesIgnore) || is_special(statuses, kStatusIgnore))
{
  if (not ignored_)
    c_statuses_.resize(count);
}

void Statuses::copy_out()
{
  if (not ignored_ && not c_statuses_.empty())
    std::memcpy(statuses_, c_statuses_.data(), c_statuses_.size() * sizeof(MPI_Status));
}

int peer_count(MPI_Comm comm)
{
  int inter = 0;
  int size  = 0;
  // PMPI: the program's profiling layer and error handlers see only the calls it made
  PMPI_Comm_test_inter(comm, &inter);
  if (inter)
    PMPI_Comm_remote_size(comm, &size);
  else
    PMPI_Comm_size(comm, &size);
  return size;
}

namespace
{
std::pair<int, int> degrees(MPI_Comm comm)
{
  int topology = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topology);
  int in = 0, out = 0, weighted = 0;
  if (topology == MPI_DIST_GRAPH) {
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  } else if (topology == MPI_GRAPH) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &in);
    out = in;
  } else if (topology == MPI_CART) {
    int dimensions = 0;
    PMPI_Cartdim_get(comm, &dimensions);
    in = out = 2 * dimensions;
  }
  return {in, out};
}
} // namespace

int in_degree(MPI_Comm comm)
{
  return degrees(comm).first;
}

int out_degree(MPI_Comm comm)
{
  return degrees(comm).second;
}

// ---- Callbacks: a Fortran procedure behind each C function pointer ----
namespace
{
using FortranUserFunction = void (*)(void* in, void* inout, MPI_Fint* length, MPI_Fint* datatype);
using FortranErrhandler   = void (*)(MPI_Fint* object, MPI_Fint* code);

// C gives user operations and error handlers no context: one C function per Fortran procedure, from pools
// (a procedure takes one slot for every rank, ProgramFunctions.hpp; the trampoline calls the calling
// rank's copy).
constexpr size_t kPoolSize = 2048;
struct ProcedurePool {
  std::array<ProgramFunction, kPoolSize> slots{};
  size_t used = 0;
};
ProcedurePool user_functions, errhandlers;

int calling_rank_index()
{
  RankMpi* rank = calling_rank();
  return rank != nullptr ? rank->rank() : -1;
}

template <class Procedure>
Procedure procedure_in_slot(const ProcedurePool& pool, size_t slot)
{
  return reinterpret_cast<Procedure>(address_in(calling_rank_index(), pool.slots[slot]));
}

// The back ends without Fortran types of their own (SMPI, bxisim's OpenMPI) give a Fortran program's
// operation the C twin of the type its call named: a Fortran procedure is given the Fortran name back.
MPI_Datatype fortran_twin(MPI_Datatype datatype)
{
  static const std::pair<MPI_Datatype, MPI_Datatype> twins[] = {{MPI_INT, MPI_INTEGER},
                                                                {MPI_FLOAT, MPI_REAL},
                                                                {MPI_DOUBLE, MPI_DOUBLE_PRECISION},
                                                                {MPI_C_FLOAT_COMPLEX, MPI_COMPLEX},
                                                                {MPI_C_DOUBLE_COMPLEX, MPI_DOUBLE_COMPLEX},
                                                                {MPI_CHAR, MPI_CHARACTER},
                                                                {MPI_2INT, MPI_2INTEGER}};
  for (const auto& [c, fortran] : twins)
    if (datatype == c)
      return fortran;
  return datatype;
}

template <size_t I>
void user_function_trampoline(void* in, void* inout, int* length, MPI_Datatype* datatype)
{
  MPI_Fint type = to_fortran(fortran_twin(*datatype));
  procedure_in_slot<FortranUserFunction>(user_functions, I)(in, inout, length, &type);
}
template <class Handle, size_t I>
void errhandler_trampoline(Handle* object, int* code, ...)
{
  MPI_Fint fortran_object = to_fortran(*object);
  procedure_in_slot<FortranErrhandler>(errhandlers, I)(&fortran_object, code);
}
template <size_t... I>
constexpr std::array<MPI_User_function*, kPoolSize> user_function_pool(std::index_sequence<I...>)
{
  return {&user_function_trampoline<I>...};
}
template <class Handle, size_t... I>
constexpr std::array<void (*)(Handle*, int*, ...), kPoolSize> errhandler_pool(std::index_sequence<I...>)
{
  return {&errhandler_trampoline<Handle, I>...};
}

template <class Procedure>
size_t slot_of(ProcedurePool& pool, Procedure procedure, const char* function)
{
  ProgramFunction named = program_function_of(calling_rank_index(), reinterpret_cast<const void*>(procedure));
  for (size_t i = 0; i < pool.used; ++i)
    if (pool.slots[i] == named)
      return i;
  if (pool.used < kPoolSize) {
    pool.slots[pool.used] = named;
    return pool.used++;
  }
  char what[160];
  std::snprintf(what, sizeof what, "more than %zu distinct Fortran procedures in one run", kPoolSize);
  unsupported(function, what);
}

// Attribute copy and delete procedures of Fortran, behind C's through the keyval's extra_state. MPI-1's
// (MPI_KEYVAL_CREATE) take INTEGERs where MPI-2's take INTEGER(KIND=MPI_ADDRESS_KIND).
template <class Value>
using FortranCopy = void (*)(MPI_Fint* object, MPI_Fint* keyval, Value* extra_state, Value* in, Value* out,
                             MPI_Fint* flag, MPI_Fint* ierror);
template <class Value>
using FortranDelete = void (*)(MPI_Fint* object, MPI_Fint* keyval, Value* value, Value* extra_state, MPI_Fint* ierror);
template <class Value>
struct KeyvalProcedures {
  FortranCopy<Value> copy;
  FortranDelete<Value> remove;
  Value extra_state;
};

template <class Handle, class Value>
int copy_trampoline(Handle object, int keyval, void* extra_state, void* in, void* out, int* flag)
{
  auto* procedures      = static_cast<KeyvalProcedures<Value>*>(extra_state);
  MPI_Fint fortran      = to_fortran(object);
  MPI_Fint key          = keyval;
  auto value_in         = static_cast<Value>(reinterpret_cast<intptr_t>(in));
  Value value_out       = 0;
  MPI_Fint fortran_flag = 0;
  MPI_Fint error        = MPI_SUCCESS;
  procedures->copy(&fortran, &key, &procedures->extra_state, &value_in, &value_out, &fortran_flag, &error);
  *flag                     = fortran_flag != 0;
  *static_cast<void**>(out) = reinterpret_cast<void*>(static_cast<intptr_t>(value_out));
  return error;
}

template <class Handle, class Value>
int delete_trampoline(Handle object, int keyval, void* value, void* extra_state)
{
  auto* procedures = static_cast<KeyvalProcedures<Value>*>(extra_state);
  MPI_Fint fortran = to_fortran(object);
  MPI_Fint key     = keyval;
  auto fortran_val = static_cast<Value>(reinterpret_cast<intptr_t>(value));
  MPI_Fint error   = MPI_SUCCESS;
  procedures->remove(&fortran, &key, &fortran_val, &procedures->extra_state, &error);
  return error;
}

template <class Handle, class Value, class CCopy, class CDelete, class Create>
void create_keyval(FortranCopy<Value> copy, FortranDelete<Value> remove, MPI_Fint* keyval, Value* extra_state,
                   MPI_Fint* ierror, Create create)
{
  // Kept for the keyval's life: MPI_*_free_keyval does not say when the last attribute goes.
  auto* procedures = new KeyvalProcedures<Value>{copy, remove, *extra_state};
  int key          = MPI_KEYVAL_INVALID;
  *ierror          = create(reinterpret_cast<CCopy*>(&copy_trampoline<Handle, Value>),
                            reinterpret_cast<CDelete*>(&delete_trampoline<Handle, Value>), &key, procedures);
  *keyval          = key;
}

// What C gives for a predefined attribute: a pointer to the value (but MPI_WIN_BASE, the address itself).
MPI_Aint attribute_for_fortran(int keyval, void* value)
{
  bool int_pointer = (keyval >= MPI_TAG_UB && keyval <= MPI_UNIVERSE_SIZE) || keyval == MPI_WIN_DISP_UNIT ||
                     keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
  if (int_pointer)
    return *static_cast<int*>(value);
  if (keyval == MPI_WIN_SIZE)
    return *static_cast<MPI_Aint*>(value);
  return reinterpret_cast<MPI_Aint>(value);
}
} // namespace

const std::array<MPI_User_function*, kPoolSize>& user_function_trampolines()
{
  static constexpr auto pool = user_function_pool(std::make_index_sequence<kPoolSize>());
  return pool;
}

} // namespace fortran

// C's MPI_x_c2f / MPI_x_f2c (@local in mpi_api.list): the Fortran bindings' numbers, so that C and Fortran
// parts of one program (and C code given a handle by Fortran) agree, at every level and across switches.
#define BXISIM_HANDLE_CONVERSIONS(Kind, Handle)                                                                        \
  MPI_Fint local_##Kind##_c2f(Handle handle)                                                                           \
  {                                                                                                                    \
    return fortran::to_fortran(handle);                                                                                \
  }                                                                                                                    \
  Handle local_##Kind##_f2c(MPI_Fint handle)                                                                           \
  {                                                                                                                    \
    return fortran::from_fortran<Handle>(handle);                                                                      \
  }
BXISIM_HANDLE_CONVERSIONS(Comm, MPI_Comm)
BXISIM_HANDLE_CONVERSIONS(Errhandler, MPI_Errhandler)
BXISIM_HANDLE_CONVERSIONS(File, MPI_File)
BXISIM_HANDLE_CONVERSIONS(Group, MPI_Group)
BXISIM_HANDLE_CONVERSIONS(Info, MPI_Info)
BXISIM_HANDLE_CONVERSIONS(Message, MPI_Message)
BXISIM_HANDLE_CONVERSIONS(Op, MPI_Op)
BXISIM_HANDLE_CONVERSIONS(Request, MPI_Request)
BXISIM_HANDLE_CONVERSIONS(Type, MPI_Datatype)
BXISIM_HANDLE_CONVERSIONS(Win, MPI_Win)

void note_fortran_program(void* program)
{
  for (size_t i = 0; i < fortran::kSpecialSymbols.size(); ++i)
    if (void* address = dlsym(program, fortran::kSpecialSymbols[i]))
      fortran::specials()[i].insert(address);
}

} // namespace bxisim::mw

using namespace bxisim::mw;
using namespace bxisim::mw::fortran;

// NOLINTBEGIN: gfortran's names and calling convention
extern "C" {

// ---- The predefined attribute procedures mpif.h declares EXTERNAL, callable from Fortran ----
void mpi_null_copy_fn_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint* flag, MPI_Fint* ierror)
{
  *flag   = 0;
  *ierror = MPI_SUCCESS;
}
void mpi_dup_fn_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint* in, MPI_Fint* out, MPI_Fint* flag, MPI_Fint* ierror)
{
  *out    = *in;
  *flag   = 1;
  *ierror = MPI_SUCCESS;
}
void mpi_null_delete_fn_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint* ierror)
{
  *ierror = MPI_SUCCESS;
}
#define BXISIM_FORTRAN_ATTRIBUTE_PROCEDURES(kind)                                                                      \
  void mpi_##kind##_null_copy_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint*, MPI_Aint*, MPI_Fint* flag,               \
                                  MPI_Fint* ierror)                                                                    \
  {                                                                                                                    \
    *flag   = 0;                                                                                                       \
    *ierror = MPI_SUCCESS;                                                                                             \
  }                                                                                                                    \
  void mpi_##kind##_dup_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint* in, MPI_Aint* out, MPI_Fint* flag,              \
                            MPI_Fint* ierror)                                                                          \
  {                                                                                                                    \
    *out    = *in;                                                                                                     \
    *flag   = 1;                                                                                                       \
    *ierror = MPI_SUCCESS;                                                                                             \
  }                                                                                                                    \
  void mpi_##kind##_null_delete_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint*, MPI_Fint* ierror)                      \
  {                                                                                                                    \
    *ierror = MPI_SUCCESS;                                                                                             \
  }
BXISIM_FORTRAN_ATTRIBUTE_PROCEDURES(comm)
BXISIM_FORTRAN_ATTRIBUTE_PROCEDURES(type)
BXISIM_FORTRAN_ATTRIBUTE_PROCEDURES(win)
void mpi_conversion_fn_null_() {}

// ---- Initialization: Fortran passes no argc/argv ----
BXISIM_FORTRAN_BOTH(init, (MPI_Fint * ierror),
                    { *ierror = profiled ? PMPI_Init(nullptr, nullptr) : MPI_Init(nullptr, nullptr); })
BXISIM_FORTRAN_BOTH(init_thread, (const MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierror), {
  int level = 0;
  *ierror   = profiled ? PMPI_Init_thread(nullptr, nullptr, *required, &level)
                       : MPI_Init_thread(nullptr, nullptr, *required, &level);
  *provided = level;
})
BXISIM_FORTRAN_BOTH(pcontrol, (const MPI_Fint* level, MPI_Fint* ierror),
                    { *ierror = profiled ? PMPI_Pcontrol(*level) : MPI_Pcontrol(*level); })

// ---- Attributes: Fortran passes values (INTEGER(KIND=MPI_ADDRESS_KIND), or INTEGER for MPI-1) ----
#define BXISIM_FORTRAN_ATTRIBUTES(kind, Kind, Handle)                                                                  \
  BXISIM_FORTRAN_BOTH(kind##_set_attr,                                                                                 \
                      (const MPI_Fint* object, const MPI_Fint* keyval, const MPI_Aint* value, MPI_Fint* ierror), {     \
                        void* c_value   = reinterpret_cast<void*>(*value);                                             \
                        Handle c_object = from_fortran<Handle>(*object);                                               \
                        *ierror         = profiled ? PMPI_##Kind##_set_attr(c_object, *keyval, c_value)                \
                                                   : MPI_##Kind##_set_attr(c_object, *keyval, c_value);                \
                      })                                                                                               \
  BXISIM_FORTRAN_BOTH(                                                                                                 \
      kind##_get_attr,                                                                                                 \
      (const MPI_Fint* object, const MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag, MPI_Fint* ierror), {           \
        void* c_value   = nullptr;                                                                                     \
        int found       = 0;                                                                                           \
        Handle c_object = from_fortran<Handle>(*object);                                                               \
        *ierror         = profiled ? PMPI_##Kind##_get_attr(c_object, *keyval, &c_value, &found)                       \
                                   : MPI_##Kind##_get_attr(c_object, *keyval, &c_value, &found);                       \
        *flag           = found;                                                                                       \
        if (*ierror == MPI_SUCCESS && found)                                                                           \
          *value = attribute_for_fortran(*keyval, c_value);                                                            \
      })
BXISIM_FORTRAN_ATTRIBUTES(comm, Comm, MPI_Comm)
BXISIM_FORTRAN_ATTRIBUTES(type, Type, MPI_Datatype)
BXISIM_FORTRAN_ATTRIBUTES(win, Win, MPI_Win)

BXISIM_FORTRAN_BOTH(attr_put, (const MPI_Fint* comm, const MPI_Fint* keyval, const MPI_Fint* value, MPI_Fint* ierror), {
  void* c_value = reinterpret_cast<void*>(static_cast<intptr_t>(*value));
  auto c_comm   = from_fortran<MPI_Comm>(*comm);
  *ierror       = profiled ? PMPI_Attr_put(c_comm, *keyval, c_value) : MPI_Attr_put(c_comm, *keyval, c_value);
})
BXISIM_FORTRAN_BOTH(attr_get,
                    (const MPI_Fint* comm, const MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* flag, MPI_Fint* ierror), {
                      void* c_value = nullptr;
                      int found     = 0;
                      auto c_comm   = from_fortran<MPI_Comm>(*comm);
                      *ierror       = profiled ? PMPI_Attr_get(c_comm, *keyval, &c_value, &found)
                                               : MPI_Attr_get(c_comm, *keyval, &c_value, &found);
                      *flag         = found;
                      if (*ierror == MPI_SUCCESS && found)
                        *value = static_cast<MPI_Fint>(attribute_for_fortran(*keyval, c_value));
                    })

#define BXISIM_FORTRAN_KEYVAL(kind, Kind, Handle)                                                                      \
  BXISIM_FORTRAN_BOTH(                                                                                                 \
      kind##_create_keyval,                                                                                            \
      (FortranCopy<MPI_Aint> copy, FortranDelete<MPI_Aint> remove, MPI_Fint * keyval, MPI_Aint * extra_state,          \
       MPI_Fint * ierror),                                                                                             \
      {                                                                                                                \
        create_keyval<Handle, MPI_Aint, MPI_##Kind##_copy_attr_function, MPI_##Kind##_delete_attr_function>(           \
            copy, remove, keyval, extra_state, ierror, [](auto c, auto d, int* k, void* e) {                           \
              return profiled ? PMPI_##Kind##_create_keyval(c, d, k, e) : MPI_##Kind##_create_keyval(c, d, k, e);      \
            });                                                                                                        \
      })
BXISIM_FORTRAN_KEYVAL(comm, Comm, MPI_Comm)
BXISIM_FORTRAN_KEYVAL(type, Type, MPI_Datatype)
BXISIM_FORTRAN_KEYVAL(win, Win, MPI_Win)

BXISIM_FORTRAN_BOTH(keyval_create,
                    (FortranCopy<MPI_Fint> copy, FortranDelete<MPI_Fint> remove, MPI_Fint* keyval,
                     MPI_Fint* extra_state, MPI_Fint* ierror),
                    {
                      create_keyval<MPI_Comm, MPI_Fint, MPI_Copy_function, MPI_Delete_function>(
                          copy, remove, keyval, extra_state, ierror, [](auto c, auto d, int* k, void* e) {
                            return profiled ? PMPI_Keyval_create(c, d, k, e) : MPI_Keyval_create(c, d, k, e);
                          });
                    })

// ---- User operations and error handlers ----
BXISIM_FORTRAN_BOTH(op_create, (FortranUserFunction function, const MPI_Fint* commute, MPI_Fint* op, MPI_Fint* ierror),
                    {
                      size_t slot      = slot_of(user_functions, function, "MPI_OP_CREATE");
                      MPI_Op c_op      = MPI_OP_NULL;
                      auto* c_function = user_function_trampolines()[slot];
                      *ierror          = profiled ? PMPI_Op_create(c_function, *commute, &c_op)
                                                  : MPI_Op_create(c_function, *commute, &c_op);
                      *op              = to_fortran(c_op);
                    })

#define BXISIM_FORTRAN_ERRHANDLER(kind, Kind, Handle)                                                                    \
  BXISIM_FORTRAN_BOTH(kind##_create_errhandler,                                                                          \
                      (FortranErrhandler function, MPI_Fint * errhandler, MPI_Fint * ierror), {                          \
                        static constexpr auto pool  = errhandler_pool<Handle>(std::make_index_sequence<kPoolSize>());    \
                        size_t slot                 = slot_of(errhandlers, function, "MPI_" #Kind "_CREATE_ERRHANDLER"); \
                        MPI_Errhandler c_errhandler = MPI_ERRHANDLER_NULL;                                               \
                        *ierror     = profiled ? PMPI_##Kind##_create_errhandler(pool[slot], &c_errhandler)              \
                                               : MPI_##Kind##_create_errhandler(pool[slot], &c_errhandler);              \
                        *errhandler = to_fortran(c_errhandler);                                                          \
                      })
BXISIM_FORTRAN_ERRHANDLER(comm, Comm, MPI_Comm)
BXISIM_FORTRAN_ERRHANDLER(win, Win, MPI_Win)
BXISIM_FORTRAN_ERRHANDLER(file, File, MPI_File)

// MPI-3.1 3.6.1: with mpif.h and `use mpi` the buffer argument is "wrongly defined" and unused: the
// address C gives back is not written into the program's variable.
BXISIM_FORTRAN_BOTH(buffer_detach, (void*, MPI_Fint* size, MPI_Fint* ierror), {
  void* address = nullptr;
  int bytes     = 0;
  *ierror       = profiled ? PMPI_Buffer_detach(&address, &bytes) : MPI_Buffer_detach(&address, &bytes);
  *size         = bytes;
})

// The C call may give the new communicator only when the request completes (the smpi level makes it then),
// after this function has returned its Fortran handle: there, the duplicate is completed here, before returning,
// and the request handed back is MPI_REQUEST_NULL (waiting for it returns at once). Elsewhere, as in C.
BXISIM_FORTRAN_BOTH(comm_idup, (const MPI_Fint* comm, MPI_Fint* newcomm, MPI_Fint* request, MPI_Fint* ierror), {
  auto c_newcomm        = std::make_unique<MPI_Comm>(MPI_COMM_NULL); // written by the C call, maybe at completion
  MPI_Request c_request = MPI_REQUEST_NULL;
  MPI_Comm c_comm       = from_fortran<MPI_Comm>(*comm);
  int code              = profiled ? PMPI_Comm_idup(c_comm, c_newcomm.get(), &c_request)
                                   : MPI_Comm_idup(c_comm, c_newcomm.get(), &c_request);
  if (code == MPI_SUCCESS && *c_newcomm == MPI_COMM_NULL && c_request != MPI_REQUEST_NULL)
    code = profiled ? PMPI_Wait(&c_request, MPI_STATUS_IGNORE) : MPI_Wait(&c_request, MPI_STATUS_IGNORE);
  *newcomm = to_fortran(*c_newcomm);
  *request = to_fortran(c_request);
  *ierror  = code;
})

// MPI-3.1 17.1.7: only makes the compiler assume the buffer may have changed; nothing to do here.
void mpi_f_sync_reg_(void*) {}
void pmpi_f_sync_reg_(void*) {}

BXISIM_FORTRAN_BOTH(grequest_start, (void*, void*, void*, void*, MPI_Fint*, MPI_Fint*), {
  (void)profiled;
  unsupported("MPI_GREQUEST_START", "generalized requests");
})
BXISIM_FORTRAN_BOTH(register_datarep, (void), {
  (void)profiled;
  unsupported("MPI_REGISTER_DATAREP", "user-defined data representations");
})
}
// NOLINTEND
