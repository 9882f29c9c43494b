#pragma once
// Program functions a back end calls (user reduction operations, error handlers, attribute copy and
// delete functions, generalized requests): the back end calls one of bxisim's trampolines, which
// converts the back end's arguments to bxisim's ABI with the conversions of the rank making the
// call, calls the program's function, and converts its result back. Shared by every back end.

#include <mpi.h>

#include <array>

namespace bxisim::mw
{

/** What the trampolines need from a back end's conversions (implemented by OpenMpiAbi and SmpiAbi). */
class BackEndCallbacks
{
 public:
  virtual ~BackEndCallbacks()                                = default;
  virtual MPI_Datatype callback_datatype(void* handle) const = 0;
  virtual MPI_Comm callback_comm(void* handle) const         = 0;
  virtual MPI_Win callback_win(void* handle) const           = 0;
  virtual MPI_File callback_file(void* handle) const         = 0;
  virtual int callback_errcode(int code) const               = 0; // back end -> bxisim
  virtual int callback_to_be_errcode(int code) const         = 0; // bxisim -> back end
  virtual int callback_keyval(int keyval) const              = 0; // back end -> bxisim
  /** Writes `status` in the back end's layout at `be_status`. */
  virtual void callback_to_be_status(const MPI_Status* status, void* be_status) const = 0;
};

/** The conversions of the rank making the current call; ends the process if there is none. */
const BackEndCallbacks& calling_back_end();

/** The trampoline the back end calls for a program's function (one per distinct function, pooled). */
void* user_function_trampoline(MPI_User_function* function);
void* comm_errhandler_trampoline(MPI_Comm_errhandler_function* function);
void* win_errhandler_trampoline(MPI_Win_errhandler_function* function);
void* file_errhandler_trampoline(MPI_File_errhandler_function* function);

enum class AttributeKind { Comm, Datatype, Win };

/**
 * The (copy, delete, extra_state) a back end gets for a program's keyval callbacks: the program's
 * copy function is nullptr (MPI_x_NULL_COPY_FN), 1 (MPI_x_DUP_FN) or a function; `null_copy`, `dup`
 * and `null_delete` are the back end's own for the predefined ones.
 */
std::array<void*, 3> keyval_callbacks(AttributeKind kind, void* copy, void* del, void* extra_state, void* null_copy,
                                      void* dup, void* null_delete);

/** The (query, free, cancel, extra_state) a back end gets for MPI_Grequest_start. */
std::array<void*, 4> grequest_callbacks(MPI_Grequest_query_function* query, MPI_Grequest_free_function* free,
                                        MPI_Grequest_cancel_function* cancel, void* extra_state);
/** Frees what grequest_callbacks allocated, when the back end refused the request. */
void discard_grequest_state(void* state);

} // namespace bxisim::mw
