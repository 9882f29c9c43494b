#pragma once
// What the Fortran bindings (generated FortranBindings.cpp, hand-written FortranSupport.cpp) share: handles
// as Fortran INTEGERs, mpif.h's special addresses, strings with a size of their own, statuses as arrays.
//
// A Fortran handle is the standard ABI value of a predefined object (below kFirstTableHandle, as in
// mpif.h) or an index into one table of the program's objects, shared by the ranks (their objects are
// distinct) and by the back ends (a handle is the program's value, the same across a level switch).

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bxisim::mw::fortran
{

/** Standard ABI values of predefined handles are below this; the table's handles start here. */
constexpr MPI_Fint kFirstTableHandle = 0x400;
/** mpif.h's MPI_LB and MPI_UB, MPI-1's bound markers of MPI_TYPE_STRUCT (FortranRemovedMpi1.cpp): values the standard
 *  ABI leaves unused among the datatypes, as OpenMPI 4.1's mpif.h still has them. generate_fortran.py writes them. */
constexpr MPI_Fint kLowerBoundMarker = 0x204;
constexpr MPI_Fint kUpperBoundMarker = 0x205;

MPI_Fint handle_to_fortran(uintptr_t handle);
/** The C handle of a Fortran one; `null` for a value that names no handle (the call then reports it). */
uintptr_t handle_from_fortran(MPI_Fint handle, uintptr_t null);
/** A request the program no longer holds (completed, freed): its Fortran value names nothing any more. */
void forget_handle(MPI_Fint handle);

template <class Handle>
Handle null_handle();
template <>
inline MPI_Comm null_handle()
{
  return MPI_COMM_NULL;
}
template <>
inline MPI_Group null_handle()
{
  return MPI_GROUP_NULL;
}
template <>
inline MPI_Datatype null_handle()
{
  return MPI_DATATYPE_NULL;
}
template <>
inline MPI_Op null_handle()
{
  return MPI_OP_NULL;
}
template <>
inline MPI_Request null_handle()
{
  return MPI_REQUEST_NULL;
}
template <>
inline MPI_Win null_handle()
{
  return MPI_WIN_NULL;
}
template <>
inline MPI_Info null_handle()
{
  return MPI_INFO_NULL;
}
template <>
inline MPI_Errhandler null_handle()
{
  return MPI_ERRHANDLER_NULL;
}
template <>
inline MPI_Message null_handle()
{
  return MPI_MESSAGE_NULL;
}
template <>
inline MPI_File null_handle()
{
  return MPI_FILE_NULL;
}

template <class Handle>
MPI_Fint to_fortran(Handle handle)
{
  return handle_to_fortran(reinterpret_cast<uintptr_t>(handle));
}
template <class Handle>
Handle from_fortran(MPI_Fint handle)
{
  return reinterpret_cast<Handle>(handle_from_fortran(handle, reinterpret_cast<uintptr_t>(null_handle<Handle>())));
}
/** `now`, after forgetting the Fortran request `before` if the call completed or freed it. */
inline MPI_Request forget_if_done(MPI_Request now, MPI_Fint before)
{
  if (now == MPI_REQUEST_NULL && before >= kFirstTableHandle)
    forget_handle(before);
  return now;
}

/** mpif.h's MPI_BOTTOM and MPI_IN_PLACE (COMMON blocks of the program) as C's, other buffers unchanged. */
void* buffer(void* address);
const void* buffer(const void* address);
/** mpif.h's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY as C's. */
const int* weights(const int* address);
int* weights(int* address);

/** A Fortran string argument without its trailing blanks. */
std::string string_from_fortran(const char* text, size_t size);
/** An info key or value: without its leading and trailing blanks (MPI-3.1 9). */
std::string info_string_from_fortran(const char* text, size_t size);
/** Copies a C string into a Fortran one of `size` characters, blank-padded (truncated if longer). */
void string_to_fortran(const char* c_text, char* text, size_t size);

MPI_Status status_from_fortran(const MPI_Fint* status);

/** A status argument (out or inout): C's, or MPI_STATUS_IGNORE when the program passed mpif.h's. */
class Status
{
 public:
  explicit Status(MPI_Fint* status);
  MPI_Status* get() { return ignored_ ? MPI_STATUS_IGNORE : &c_status_; }
  void copy_out();

 private:
  MPI_Fint* status_;
  bool ignored_;
  MPI_Status c_status_{};
};

/** An array of statuses, or MPI_STATUSES_IGNORE. */
class Statuses
{
 public:
  Statuses(MPI_Fint* statuses, size_t count);
  MPI_Status* data() { return ignored_ ? MPI_STATUSES_IGNORE : c_statuses_.data(); }
  void copy_out();

 private:
  MPI_Fint* statuses_;
  bool ignored_;
  std::vector<MPI_Status> c_statuses_;
};

/** Lengths of the arrays of the collectives over a communicator's peers (mpi_api.list's expressions). */
int peer_count(MPI_Comm comm);
int in_degree(MPI_Comm comm);
int out_degree(MPI_Comm comm);

} // namespace bxisim::mw::fortran

/** A Fortran binding written by hand, as mpi_NAME_ and as pmpi_NAME_ (`profiled` true): the same body. */
#define BXISIM_FORTRAN_BOTH(name, parameters, ...)                                                                     \
  void mpi_##name##_ parameters                                                                                        \
  {                                                                                                                    \
    [[maybe_unused]] constexpr bool profiled = false;                                                                  \
    __VA_ARGS__                                                                                                        \
  }                                                                                                                    \
  void pmpi_##name##_ parameters                                                                                       \
  {                                                                                                                    \
    [[maybe_unused]] constexpr bool profiled = true;                                                                   \
    __VA_ARGS__                                                                                                        \
  }
