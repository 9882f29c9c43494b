#include "Callbacks.hpp"

#include "Entry.hpp"
#include "ProgramFunctions.hpp"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace bxisim::mw
{

const BackEndCallbacks& calling_back_end()
{
  auto* conversions = dynamic_cast<const BackEndCallbacks*>(calling_rank());
  if (conversions == nullptr) {
    std::fprintf(stderr, "bxisim: an MPI library called back a program function outside of an MPI rank\n");
    std::abort();
  }
  return *conversions;
}

namespace
{
// Functions a back end calls without a context argument (user operations, error handlers) go through
// a pool of trampolines, each bound to one program function: its slot. A function of the program takes
// one slot for every rank (ProgramFunctions.hpp); the trampoline calls the calling rank's copy.
constexpr size_t kPoolSize = 512;

int calling_rank_index()
{
  RankMpi* rank = calling_rank();
  return rank != nullptr ? rank->rank() : -1;
}

template <class Function>
struct Pool {
  std::array<ProgramFunction, kPoolSize> slots{};
  size_t used = 0;
  std::mutex mutex;

  size_t slot_of(Function* function, const char* what)
  {
    std::lock_guard<std::mutex> lock(mutex);
    ProgramFunction named = program_function_of(calling_rank_index(), reinterpret_cast<const void*>(function));
    for (size_t i = 0; i < used; ++i)
      if (slots[i] == named)
        return i;
    if (used == kPoolSize)
      throw std::runtime_error(std::string("bxisim: more than ") + std::to_string(kPoolSize) + " distinct " + what +
                               " functions in one run (a function of a library each rank has its own copy of, "
                               "--privatize-lib, counts once per rank)");
    slots[used] = named;
    return used++;
  }
  /** The calling rank's copy of slot `i`'s function. */
  Function* called(size_t i) const { return reinterpret_cast<Function*>(address_in(calling_rank_index(), slots[i])); }
};

Pool<MPI_User_function> user_functions;
Pool<MPI_Comm_errhandler_function> comm_errhandlers;
Pool<MPI_Win_errhandler_function> win_errhandlers;
Pool<MPI_File_errhandler_function> file_errhandlers;

template <size_t I>
struct UserFunction {
  static void call(void* in, void* inout, int* length, void** datatype)
  {
    MPI_Datatype abi_datatype = calling_back_end().callback_datatype(*datatype);
    ProgramCallback program;
    user_functions.called(I)(in, inout, length, &abi_datatype);
  }
};
template <size_t I>
struct CommErrhandler {
  static void call(void** comm, int* code, ...)
  {
    const auto& back_end = calling_back_end();
    MPI_Comm abi_comm    = back_end.callback_comm(*comm);
    int abi_code         = back_end.callback_errcode(*code);
    ProgramCallback program;
    comm_errhandlers.called(I)(&abi_comm, &abi_code);
  }
};
template <size_t I>
struct WinErrhandler {
  static void call(void** win, int* code, ...)
  {
    const auto& back_end = calling_back_end();
    MPI_Win abi_win      = back_end.callback_win(*win);
    int abi_code         = back_end.callback_errcode(*code);
    ProgramCallback program;
    win_errhandlers.called(I)(&abi_win, &abi_code);
  }
};
template <size_t I>
struct FileErrhandler {
  static void call(void** file, int* code, ...)
  {
    const auto& back_end = calling_back_end();
    MPI_File abi_file    = back_end.callback_file(*file);
    int abi_code         = back_end.callback_errcode(*code);
    ProgramCallback program;
    file_errhandlers.called(I)(&abi_file, &abi_code);
  }
};

template <template <size_t> class Trampoline, size_t... I>
constexpr auto trampoline_table(std::index_sequence<I...>)
{
  return std::array<void*, sizeof...(I)>{reinterpret_cast<void*>(&Trampoline<I>::call)...};
}

const auto kUserFunctionTrampolines   = trampoline_table<UserFunction>(std::make_index_sequence<kPoolSize>());
const auto kCommErrhandlerTrampolines = trampoline_table<CommErrhandler>(std::make_index_sequence<kPoolSize>());
const auto kWinErrhandlerTrampolines  = trampoline_table<WinErrhandler>(std::make_index_sequence<kPoolSize>());
const auto kFileErrhandlerTrampolines = trampoline_table<FileErrhandler>(std::make_index_sequence<kPoolSize>());

// Attribute callbacks and generalized requests carry an extra_state: it points to one of these.
struct KeyvalState {
  AttributeKind kind;
  void* copy;
  void* del;
  void* extra_state;
};

/** The object an attribute belongs to, as the program's callback takes it (a handle is a pointer-sized value). */
void* abi_object(const BackEndCallbacks& back_end, AttributeKind kind, void* object)
{
  switch (kind) {
  case AttributeKind::Comm:
    return reinterpret_cast<void*>(back_end.callback_comm(object));
  case AttributeKind::Datatype:
    return reinterpret_cast<void*>(back_end.callback_datatype(object));
  case AttributeKind::Win:
    return reinterpret_cast<void*>(back_end.callback_win(object));
  }
  return object;
}

int copy_trampoline(void* object, int keyval, void* state, void* in, void* out, int* flag)
{
  auto* s              = static_cast<KeyvalState*>(state);
  const auto& back_end = calling_back_end();
  using Copy           = int(void*, int, void*, void*, void*, int*);
  ProgramCallback program;
  int result = reinterpret_cast<Copy*>(s->copy)(abi_object(back_end, s->kind, object), back_end.callback_keyval(keyval),
                                                s->extra_state, in, out, flag);
  return back_end.callback_to_be_errcode(result);
}

int delete_trampoline(void* object, int keyval, void* value, void* state)
{
  auto* s              = static_cast<KeyvalState*>(state);
  const auto& back_end = calling_back_end();
  using Delete         = int(void*, int, void*, void*);
  ProgramCallback program;
  int result = reinterpret_cast<Delete*>(s->del)(abi_object(back_end, s->kind, object),
                                                 back_end.callback_keyval(keyval), value, s->extra_state);
  return back_end.callback_to_be_errcode(result);
}

struct GrequestState {
  MPI_Grequest_query_function* query;
  MPI_Grequest_free_function* free;
  MPI_Grequest_cancel_function* cancel;
  void* extra_state;
};

int grequest_query(void* state, void* be_status)
{
  auto* s = static_cast<GrequestState*>(state);
  MPI_Status abi_status{};
  int result = 0;
  {
    ProgramCallback program;
    result = s->query(s->extra_state, &abi_status);
  }
  const auto& back_end = calling_back_end();
  back_end.callback_to_be_status(&abi_status, be_status);
  return back_end.callback_to_be_errcode(result);
}

int grequest_free(void* state)
{
  auto* s    = static_cast<GrequestState*>(state);
  int result = 0;
  {
    ProgramCallback program;
    result = s->free(s->extra_state);
  }
  delete s;
  return calling_back_end().callback_to_be_errcode(result);
}

int grequest_cancel(void* state, int complete)
{
  auto* s    = static_cast<GrequestState*>(state);
  int result = 0;
  {
    ProgramCallback program;
    result = s->cancel(s->extra_state, complete);
  }
  return calling_back_end().callback_to_be_errcode(result);
}
} // namespace

void* user_function_trampoline(MPI_User_function* function)
{
  return kUserFunctionTrampolines[user_functions.slot_of(function, "MPI_Op_create")];
}

void* comm_errhandler_trampoline(MPI_Comm_errhandler_function* function)
{
  return kCommErrhandlerTrampolines[comm_errhandlers.slot_of(function, "communicator error handler")];
}

void* win_errhandler_trampoline(MPI_Win_errhandler_function* function)
{
  return kWinErrhandlerTrampolines[win_errhandlers.slot_of(function, "window error handler")];
}

void* file_errhandler_trampoline(MPI_File_errhandler_function* function)
{
  return kFileErrhandlerTrampolines[file_errhandlers.slot_of(function, "file error handler")];
}

std::array<void*, 3> keyval_callbacks(AttributeKind kind, void* copy, void* del, void* extra_state, void* null_copy,
                                      void* dup, void* null_delete)
{
  auto* state     = new KeyvalState{kind, copy, del, extra_state}; // lives as long as the keyval may be used: the run
  void* be_copy   = copy == nullptr                      ? null_copy
                    : copy == reinterpret_cast<void*>(1) ? dup
                                                         : reinterpret_cast<void*>(&copy_trampoline);
  void* be_delete = del == nullptr ? null_delete : reinterpret_cast<void*>(&delete_trampoline);
  return {be_copy, be_delete, state};
}

std::array<void*, 4> grequest_callbacks(MPI_Grequest_query_function* query, MPI_Grequest_free_function* free,
                                        MPI_Grequest_cancel_function* cancel, void* extra_state)
{
  auto* state = new GrequestState{query, free, cancel, extra_state}; // freed by grequest_free
  return {reinterpret_cast<void*>(&grequest_query), reinterpret_cast<void*>(&grequest_free),
          reinterpret_cast<void*>(&grequest_cancel), state};
}

void discard_grequest_state(void* state)
{
  delete static_cast<GrequestState*>(state);
}

} // namespace bxisim::mw
