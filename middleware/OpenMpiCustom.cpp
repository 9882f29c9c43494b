// The OpenMPI back end's hand-written parts: callbacks (the program's functions called by OpenMPI
// with bxisim's handles) and the functions marked @custom in mpi_api.list.

#include "Callbacks.hpp"
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

void* OpenMpiAbi::to_be_user_function(MPI_User_function* function) const
{
  return user_function_trampoline(function);
}

void* OpenMpiAbi::to_be_comm_errhandler_function(MPI_Comm_errhandler_function* function) const
{
  return comm_errhandler_trampoline(function);
}

void* OpenMpiAbi::to_be_win_errhandler_function(MPI_Win_errhandler_function* function) const
{
  return win_errhandler_trampoline(function);
}

void* OpenMpiAbi::to_be_file_errhandler_function(MPI_File_errhandler_function* function) const
{
  return file_errhandler_trampoline(function);
}

void OpenMpiAbi::callback_to_be_status(const MPI_Status* status, void* be) const
{
  *static_cast<be_status*>(be) = to_be_status(status);
}

int OpenMpiRank::Init_thread(int* argc, char*** argv, int required, int* provided)
{
  // The threads a rank's code creates are simulated threads of the rank: OpenMPI grants what is asked,
  // MPI_THREAD_MULTIPLE included (its locks and condition variables then wait in simulated time).
  int v_provided{};
  int result_ = fn_.Init_thread(argc, argv, to_be_thread_level(required), &v_provided);
  if (be_ok(result_) && provided != nullptr)
    *provided = from_be_thread_level(v_provided);
  return from_be_errcode(result_);
}

int OpenMpiRank::Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                                    MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                                    void* extra_state)
{
  auto callbacks = keyval_callbacks(AttributeKind::Comm, reinterpret_cast<void*>(comm_copy_attr_fn),
                                    reinterpret_cast<void*>(comm_delete_attr_fn), extra_state, ompi_comm_null_copy_fn,
                                    ompi_comm_dup_fn, ompi_comm_null_delete_fn);
  int keyval     = 0;
  int result     = fn_.Comm_create_keyval(callbacks[0], callbacks[1], &keyval, callbacks[2]);
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
  auto callbacks = keyval_callbacks(AttributeKind::Datatype, reinterpret_cast<void*>(type_copy_attr_fn),
                                    reinterpret_cast<void*>(type_delete_attr_fn), extra_state, ompi_type_null_copy_fn,
                                    ompi_type_dup_fn, ompi_type_null_delete_fn);
  int keyval     = 0;
  int result     = fn_.Type_create_keyval(callbacks[0], callbacks[1], &keyval, callbacks[2]);
  if (be_ok(result))
    *type_keyval = from_be_keyval(keyval);
  return from_be_errcode(result);
}

int OpenMpiRank::Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                                   MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval, void* extra_state)
{
  auto callbacks = keyval_callbacks(AttributeKind::Win, reinterpret_cast<void*>(win_copy_attr_fn),
                                    reinterpret_cast<void*>(win_delete_attr_fn), extra_state, ompi_win_null_copy_fn,
                                    ompi_win_dup_fn, ompi_win_null_delete_fn);
  int keyval     = 0;
  int result     = fn_.Win_create_keyval(callbacks[0], callbacks[1], &keyval, callbacks[2]);
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

// OpenMPI 4.1.4 crashes when the maxima exceed the type's envelope (open-mpi/ompi#14051), which MPI allows:
// it is asked for what the envelope holds (smaller maxima pass through, for OpenMPI to report).
int OpenMpiRank::Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                                   int* array_of_integers, MPI_Aint* array_of_addresses,
                                   MPI_Datatype* array_of_datatypes)
{
  be_datatype type = to_be_datatype(datatype);
  int integers = 0, addresses = 0, datatypes = 0, combiner = 0;
  int result = fn_.Type_get_envelope(type, &integers, &addresses, &datatypes, &combiner);
  if (not be_ok(result))
    return from_be_errcode(result);
  max_integers  = std::min(max_integers, integers);
  max_addresses = std::min(max_addresses, addresses);
  max_datatypes = std::min(max_datatypes, datatypes);
  Scratch<be_datatype> types(array_of_datatypes != nullptr ? static_cast<size_t>(std::max(max_datatypes, 0)) : 0);
  result = fn_.Type_get_contents(type, max_integers, max_addresses, max_datatypes, array_of_integers,
                                 array_of_addresses, array_of_datatypes != nullptr ? types.data() : nullptr);
  if (be_ok(result))
    for (size_t i = 0; i < types.size(); ++i)
      array_of_datatypes[i] = from_be_datatype(types[i]);
  return from_be_errcode(result);
}

int OpenMpiRank::Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag)
{
  int result = fn_.Comm_get_attr(to_be_comm(comm), to_be_keyval(comm_keyval), attribute_val, flag);
  if (be_ok(result) && *flag)
    *static_cast<const void**>(attribute_val) =
        from_be_predefined_attribute(comm_keyval, *static_cast<const void**>(attribute_val));
  return from_be_errcode(result);
}

int OpenMpiRank::Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag)
{
  return Comm_get_attr(comm, keyval, attribute_val, flag);
}

int OpenMpiRank::Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                                MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request)
{
  auto callbacks = grequest_callbacks(query_fn, free_fn, cancel_fn, extra_state);
  void* created  = nullptr;
  int result     = fn_.Grequest_start(callbacks[0], callbacks[1], callbacks[2], callbacks[3], &created);
  if (be_ok(result))
    *request = from_be_request(created);
  else
    discard_grequest_state(callbacks[3]);
  return from_be_errcode(result);
}

} // namespace bxisim::mw
