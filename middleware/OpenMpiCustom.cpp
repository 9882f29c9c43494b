// The OpenMPI back end's hand-written parts: callbacks (the program's functions called by OpenMPI
// with bxisim's handles) and the functions marked @custom in mpi_api.list.

#include "Entry.hpp"
#include "OpenMpiRank.hpp"

#include <array>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace bxisim::mw
{

std::unique_ptr<RankMpi> make_openmpi_rank(void* openmpi_handle, int rank)
{
  return std::make_unique<OpenMpiRank>(openmpi_handle, rank);
}

const OpenMpiAbi& calling_openmpi_rank()
{
  auto* abi = dynamic_cast<OpenMpiAbi*>(calling_rank());
  if (abi == nullptr) {
    std::fprintf(stderr, "bxisim: OpenMPI called back a program function outside of an MPI rank\n");
    std::abort();
  }
  return *abi;
}

namespace
{
// Functions OpenMPI calls without a context argument (user operations, error handlers) go through a
// pool of trampolines, each bound to one program function: its slot.
constexpr size_t kPoolSize = 512;

template <class Function>
struct Pool {
  std::array<Function*, kPoolSize> slots{};
  std::mutex mutex;

  size_t slot_of(Function* function, const char* what)
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < kPoolSize; ++i) {
      if (slots[i] == function)
        return i;
      if (slots[i] == nullptr) {
        slots[i] = function;
        return i;
      }
    }
    throw std::runtime_error(std::string("bxisim: more than ") + std::to_string(kPoolSize) + " distinct " + what +
                             " functions in one run; raise kPoolSize in middleware/OpenMpiCustom.cpp");
  }
};

Pool<MPI_User_function> user_functions;
Pool<MPI_Comm_errhandler_function> comm_errhandlers;
Pool<MPI_Win_errhandler_function> win_errhandlers;
Pool<MPI_File_errhandler_function> file_errhandlers;

template <size_t I>
void user_function_trampoline(void* in, void* inout, int* length, void** datatype)
{
  MPI_Datatype abi_datatype = calling_openmpi_rank().from_be_datatype(*datatype);
  user_functions.slots[I](in, inout, length, &abi_datatype);
}

template <size_t I>
void comm_errhandler_trampoline(void** comm, int* code, ...)
{
  const auto& abi   = calling_openmpi_rank();
  MPI_Comm abi_comm = abi.from_be_comm(*comm);
  int abi_code      = OpenMpiAbi::from_be_errcode(*code);
  comm_errhandlers.slots[I](&abi_comm, &abi_code);
}

template <size_t I>
void win_errhandler_trampoline(void** win, int* code, ...)
{
  const auto& abi = calling_openmpi_rank();
  MPI_Win abi_win = abi.from_be_win(*win);
  int abi_code    = OpenMpiAbi::from_be_errcode(*code);
  win_errhandlers.slots[I](&abi_win, &abi_code);
}

template <size_t I>
void file_errhandler_trampoline(void** file, int* code, ...)
{
  const auto& abi   = calling_openmpi_rank();
  MPI_File abi_file = abi.from_be_file(*file);
  int abi_code      = OpenMpiAbi::from_be_errcode(*code);
  file_errhandlers.slots[I](&abi_file, &abi_code);
}

template <template <size_t> class Trampoline, size_t... I>
constexpr auto trampoline_table(std::index_sequence<I...>)
{
  return std::array<void*, sizeof...(I)>{reinterpret_cast<void*>(&Trampoline<I>::call)...};
}

template <size_t I>
struct UserFunction {
  static void call(void* a, void* b, int* c, void** d) { user_function_trampoline<I>(a, b, c, d); }
};
template <size_t I>
struct CommErrhandler {
  static void call(void** a, int* b, ...) { comm_errhandler_trampoline<I>(a, b); }
};
template <size_t I>
struct WinErrhandler {
  static void call(void** a, int* b, ...) { win_errhandler_trampoline<I>(a, b); }
};
template <size_t I>
struct FileErrhandler {
  static void call(void** a, int* b, ...) { file_errhandler_trampoline<I>(a, b); }
};

const auto kUserFunctionTrampolines   = trampoline_table<UserFunction>(std::make_index_sequence<kPoolSize>());
const auto kCommErrhandlerTrampolines = trampoline_table<CommErrhandler>(std::make_index_sequence<kPoolSize>());
const auto kWinErrhandlerTrampolines  = trampoline_table<WinErrhandler>(std::make_index_sequence<kPoolSize>());
const auto kFileErrhandlerTrampolines = trampoline_table<FileErrhandler>(std::make_index_sequence<kPoolSize>());

// Attribute callbacks and generalized requests carry an extra_state: it points to one of these.
struct KeyvalState {
  void* copy;
  void* del;
  void* extra_state;
};

template <class Handle, Handle (OpenMpiAbi::*from_be)(void*) const>
int copy_trampoline(void* object, int keyval, void* state, void* in, void* out, int* flag)
{
  auto* s         = static_cast<KeyvalState*>(state);
  const auto& abi = calling_openmpi_rank();
  using Copy      = int(Handle, int, void*, void*, void*, int*);
  int result      = reinterpret_cast<Copy*>(s->copy)((abi.*from_be)(object), OpenMpiAbi::from_be_keyval(keyval),
                                                s->extra_state, in, out, flag);
  return OpenMpiAbi::to_be_errcode(result);
}

template <class Handle, Handle (OpenMpiAbi::*from_be)(void*) const>
int delete_trampoline(void* object, int keyval, void* value, void* state)
{
  auto* s         = static_cast<KeyvalState*>(state);
  const auto& abi = calling_openmpi_rank();
  using Delete    = int(Handle, int, void*, void*);
  int result      = reinterpret_cast<Delete*>(s->del)((abi.*from_be)(object), OpenMpiAbi::from_be_keyval(keyval), value,
                                                 s->extra_state);
  return OpenMpiAbi::to_be_errcode(result);
}

/** The three callbacks OpenMPI gets for the program's (copy, delete): its own for the predefined ones. */
template <class Handle, Handle (OpenMpiAbi::*from_be)(void*) const>
std::array<void*, 3> keyval_callbacks(void* copy, void* del, void* extra_state, void* null_copy, void* dup,
                                      void* null_delete)
{
  auto* state     = new KeyvalState{copy, del, extra_state}; // lives as long as the keyval may be used: the run
  void* be_copy   = copy == nullptr                      ? null_copy
                    : copy == reinterpret_cast<void*>(1) ? dup
                                                         : reinterpret_cast<void*>(&copy_trampoline<Handle, from_be>);
  void* be_delete = del == nullptr ? null_delete : reinterpret_cast<void*>(&delete_trampoline<Handle, from_be>);
  return {be_copy, be_delete, state};
}

struct GrequestState {
  MPI_Grequest_query_function* query;
  MPI_Grequest_free_function* free;
  MPI_Grequest_cancel_function* cancel;
  void* extra_state;
};

int grequest_query(void* state, OpenMpiAbi::be_status* status)
{
  auto* s = static_cast<GrequestState*>(state);
  MPI_Status abi_status{};
  int result = s->query(s->extra_state, &abi_status);
  *status    = calling_openmpi_rank().to_be_status(&abi_status);
  return OpenMpiAbi::to_be_errcode(result);
}

int grequest_free(void* state)
{
  auto* s    = static_cast<GrequestState*>(state);
  int result = s->free(s->extra_state);
  delete s;
  return OpenMpiAbi::to_be_errcode(result);
}

int grequest_cancel(void* state, int complete)
{
  auto* s = static_cast<GrequestState*>(state);
  return OpenMpiAbi::to_be_errcode(s->cancel(s->extra_state, complete));
}
} // namespace

void* OpenMpiAbi::to_be_user_function(MPI_User_function* function) const
{
  return kUserFunctionTrampolines[user_functions.slot_of(function, "MPI_Op_create")];
}

void* OpenMpiAbi::to_be_comm_errhandler_function(MPI_Comm_errhandler_function* function) const
{
  return kCommErrhandlerTrampolines[comm_errhandlers.slot_of(function, "communicator error handler")];
}

void* OpenMpiAbi::to_be_win_errhandler_function(MPI_Win_errhandler_function* function) const
{
  return kWinErrhandlerTrampolines[win_errhandlers.slot_of(function, "window error handler")];
}

void* OpenMpiAbi::to_be_file_errhandler_function(MPI_File_errhandler_function* function) const
{
  return kFileErrhandlerTrampolines[file_errhandlers.slot_of(function, "file error handler")];
}

int OpenMpiRank::Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                                    MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                                    void* extra_state)
{
  auto callbacks = keyval_callbacks<MPI_Comm, &OpenMpiAbi::from_be_comm>(
      reinterpret_cast<void*>(comm_copy_attr_fn), reinterpret_cast<void*>(comm_delete_attr_fn), extra_state,
      ompi_comm_null_copy_fn, ompi_comm_dup_fn, ompi_comm_null_delete_fn);
  int keyval = 0;
  int result = fn_.Comm_create_keyval(callbacks[0], callbacks[1], &keyval, callbacks[2]);
  if (be_ok(result))
    *comm_keyval = from_be_keyval(keyval);
  return from_be_errcode(result);
}

int OpenMpiRank::Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                               void* extra_state)
{
  return Comm_create_keyval(reinterpret_cast<MPI_Comm_copy_attr_function*>(copy_fn),
                            reinterpret_cast<MPI_Comm_delete_attr_function*>(delete_fn), keyval, extra_state);
}

int OpenMpiRank::Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                                    MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                                    void* extra_state)
{
  auto callbacks = keyval_callbacks<MPI_Datatype, &OpenMpiAbi::from_be_datatype>(
      reinterpret_cast<void*>(type_copy_attr_fn), reinterpret_cast<void*>(type_delete_attr_fn), extra_state,
      ompi_type_null_copy_fn, ompi_type_dup_fn, ompi_type_null_delete_fn);
  int keyval = 0;
  int result = fn_.Type_create_keyval(callbacks[0], callbacks[1], &keyval, callbacks[2]);
  if (be_ok(result))
    *type_keyval = from_be_keyval(keyval);
  return from_be_errcode(result);
}

int OpenMpiRank::Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                                   MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval, void* extra_state)
{
  auto callbacks = keyval_callbacks<MPI_Win, &OpenMpiAbi::from_be_win>(
      reinterpret_cast<void*>(win_copy_attr_fn), reinterpret_cast<void*>(win_delete_attr_fn), extra_state,
      ompi_win_null_copy_fn, ompi_win_dup_fn, ompi_win_null_delete_fn);
  int keyval = 0;
  int result = fn_.Win_create_keyval(callbacks[0], callbacks[1], &keyval, callbacks[2]);
  if (be_ok(result))
    *win_keyval = from_be_keyval(keyval);
  return from_be_errcode(result);
}

int OpenMpiRank::Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag)
{
  int result = fn_.Win_get_attr(to_be_win(win), to_be_keyval(win_keyval), attribute_val, flag);
  if (be_ok(result) && *flag && (win_keyval == MPI_WIN_CREATE_FLAVOR || win_keyval == MPI_WIN_MODEL)) {
    // The value is a pointer to OpenMPI's int constant: hand back a pointer to bxisim's.
    int value = **static_cast<int**>(attribute_val);
    converted_attributes.push_back(win_keyval == MPI_WIN_CREATE_FLAVOR ? from_be_win_flavor(value)
                                                                       : from_be_win_model(value));
    *static_cast<int**>(attribute_val) = &converted_attributes.back();
  }
  return from_be_errcode(result);
}

int OpenMpiRank::Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                                MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request)
{
  auto* state   = new GrequestState{query_fn, free_fn, cancel_fn, extra_state}; // freed by grequest_free
  void* created = nullptr;
  int result    = fn_.Grequest_start(reinterpret_cast<void*>(&grequest_query), reinterpret_cast<void*>(&grequest_free),
                                     reinterpret_cast<void*>(&grequest_cancel), state, &created);
  if (be_ok(result))
    *request = from_be_request(created);
  else
    delete state;
  return from_be_errcode(result);
}

} // namespace bxisim::mw
