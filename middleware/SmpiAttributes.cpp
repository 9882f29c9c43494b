// The SMPI back end's attribute functions. Keyvals: the program's callbacks reach SMPI through
// trampolines (Callbacks.hpp). Attributes of the program's keyvals on MPI_COMM_WORLD and the predefined
// datatypes, which SMPI 3.32 shares between all ranks, are kept per rank (SharedObjectAttributes.hpp), as
// are those on MPI_COMM_SELF, so that MPI_Finalize deletes them first and last set first (MPI-3.1 8.7.1;
// SMPI deletes them in hash order, after the job's state is gone).

#include "Callbacks.hpp"
#include "SmpiRank.hpp"

#include <climits>

namespace bxisim::mw
{

namespace
{
bool kept_per_rank(MPI_Comm comm)
{
  return comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF;
}

bool kept_per_rank(MPI_Datatype type)
{
  return type != MPI_DATATYPE_NULL && reinterpret_cast<uintptr_t>(type) < SmpiAbi::kPredefinedLimit;
}

uintptr_t key_of(MPI_Comm comm)
{
  return reinterpret_cast<uintptr_t>(comm);
}

uintptr_t key_of(MPI_Datatype type)
{
  return reinterpret_cast<uintptr_t>(type);
}
} // namespace

int SmpiRank::Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                                 MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                                 void* extra_state)
{
  // SMPI's MPI_COMM_NULL_COPY_FN and MPI_COMM_NULL_DELETE_FN are null, MPI_COMM_DUP_FN is (void*)1.
  auto callbacks = keyval_callbacks(AttributeKind::Comm, reinterpret_cast<void*>(comm_copy_attr_fn),
                                    reinterpret_cast<void*>(comm_delete_attr_fn), extra_state, nullptr,
                                    reinterpret_cast<void*>(1), nullptr);
  int keyval     = 0;
  int result     = fn_.Comm_create_keyval(callbacks[0], callbacks[1], &keyval, callbacks[2]);
  if (be_ok(result)) {
    comm_attributes_.add_keyval(keyval, callbacks);
    *comm_keyval = from_be_keyval(keyval);
  }
  return from_be_errcode(result);
}

int SmpiRank::Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval, void* extra_state)
{
  return Comm_create_keyval(reinterpret_cast<MPI_Comm_copy_attr_function*>(copy_fn),
                            reinterpret_cast<MPI_Comm_delete_attr_function*>(delete_fn), keyval, extra_state);
}

int SmpiRank::Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                                 MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                                 void* extra_state)
{
  auto callbacks = keyval_callbacks(AttributeKind::Datatype, reinterpret_cast<void*>(type_copy_attr_fn),
                                    reinterpret_cast<void*>(type_delete_attr_fn), extra_state, nullptr,
                                    reinterpret_cast<void*>(1), nullptr);
  int keyval     = 0;
  int result     = fn_.Type_create_keyval(callbacks[0], callbacks[1], &keyval, callbacks[2]);
  if (be_ok(result)) {
    type_attributes_.add_keyval(keyval, callbacks);
    *type_keyval = from_be_keyval(keyval);
  }
  return from_be_errcode(result);
}

int SmpiRank::Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                                MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval, void* extra_state)
{
  auto callbacks = keyval_callbacks(AttributeKind::Win, reinterpret_cast<void*>(win_copy_attr_fn),
                                    reinterpret_cast<void*>(win_delete_attr_fn), extra_state, nullptr,
                                    reinterpret_cast<void*>(1), nullptr);
  int keyval     = 0;
  int result     = fn_.Win_create_keyval(callbacks[0], callbacks[1], &keyval, callbacks[2]);
  if (be_ok(result))
    *win_keyval = from_be_keyval(keyval);
  return from_be_errcode(result);
}
// A keyval of the program is never freed in SMPI: its attributes stay usable until deleted (MPI-3.1
// 6.7.2), those kept here as SMPI's own, and SMPI 3.32 refuses (or crashes on) an attribute of a freed
// keyval where MPI lets it be copied and deleted. A keyval that attributes still use may be freed again
// (MPICH counts references; its attr/keyval_double_free frees one in its attribute's delete function).
int SmpiRank::Comm_free_keyval(int* comm_keyval)
{
  if (not comm_attributes_.knows(to_be_keyval(*comm_keyval)))
    return from_be_errcode(fn_.Comm_free_keyval(comm_keyval)); // SMPI's error for a keyval it does not know
  *comm_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int SmpiRank::Keyval_free(int* keyval)
{
  return Comm_free_keyval(keyval);
}

int SmpiRank::Type_free_keyval(int* type_keyval)
{
  if (not type_attributes_.knows(to_be_keyval(*type_keyval)))
    return from_be_errcode(fn_.Type_free_keyval(type_keyval));
  *type_keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

bool SmpiAbi::attribute_kept_here(MPI_Comm comm, int keyval) const
{
  return kept_per_rank(comm) && comm_attributes_.knows(to_be_keyval(keyval));
}

bool SmpiAbi::attribute_kept_here(MPI_Datatype type, int keyval) const
{
  return kept_per_rank(type) && type_attributes_.knows(to_be_keyval(keyval));
}

int SmpiRank::Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val)
{
  if (attribute_kept_here(comm, comm_keyval))
    return from_be_errcode(
        comm_attributes_.set(key_of(comm), to_be_comm(comm), to_be_keyval(comm_keyval), attribute_val));
  return from_be_errcode(fn_.Comm_set_attr(to_be_comm(comm), to_be_keyval(comm_keyval), attribute_val));
}

int SmpiRank::Attr_put(MPI_Comm comm, int keyval, void* attribute_val)
{
  return Comm_set_attr(comm, keyval, attribute_val);
}

int SmpiRank::Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag)
{
  if (attribute_kept_here(comm, comm_keyval)) {
    *flag = comm_attributes_.get(key_of(comm), to_be_keyval(comm_keyval), static_cast<void**>(attribute_val));
    return MPI_SUCCESS;
  }
  int result = fn_.Comm_get_attr(to_be_comm(comm), to_be_keyval(comm_keyval), attribute_val, flag);
  if (be_ok(result) && *flag)
    *static_cast<const void**>(attribute_val) =
        from_be_predefined_attribute(comm_keyval, *static_cast<const void**>(attribute_val));
  return from_be_errcode(result);
}

int SmpiRank::Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag)
{
  return Comm_get_attr(comm, keyval, attribute_val, flag);
}

int SmpiRank::Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
  if (attribute_kept_here(comm, comm_keyval) && comm_attributes_.has(key_of(comm), to_be_keyval(comm_keyval)))
    return from_be_errcode(comm_attributes_.remove(key_of(comm), to_be_comm(comm), to_be_keyval(comm_keyval)));
  return from_be_errcode(fn_.Comm_delete_attr(to_be_comm(comm), to_be_keyval(comm_keyval)));
}

int SmpiRank::Attr_delete(MPI_Comm comm, int keyval)
{
  return Comm_delete_attr(comm, keyval);
}

int SmpiRank::Type_set_attr(MPI_Datatype type, int type_keyval, void* attr_val)
{
  if (attribute_kept_here(type, type_keyval))
    return from_be_errcode(
        type_attributes_.set(key_of(type), to_be_datatype(type), to_be_keyval(type_keyval), attr_val));
  return from_be_errcode(fn_.Type_set_attr(to_be_datatype(type), to_be_keyval(type_keyval), attr_val));
}

int SmpiRank::Type_get_attr(MPI_Datatype type, int type_keyval, void* attribute_val, int* flag)
{
  if (attribute_kept_here(type, type_keyval)) {
    *flag = type_attributes_.get(key_of(type), to_be_keyval(type_keyval), static_cast<void**>(attribute_val));
    return MPI_SUCCESS;
  }
  return from_be_errcode(fn_.Type_get_attr(to_be_datatype(type), to_be_keyval(type_keyval), attribute_val, flag));
}

int SmpiRank::Type_delete_attr(MPI_Datatype type, int type_keyval)
{
  if (attribute_kept_here(type, type_keyval) && type_attributes_.has(key_of(type), to_be_keyval(type_keyval)))
    return from_be_errcode(type_attributes_.remove(key_of(type), to_be_datatype(type), to_be_keyval(type_keyval)));
  return from_be_errcode(fn_.Type_delete_attr(to_be_datatype(type), to_be_keyval(type_keyval)));
}

// Duplicates get the attributes kept here as SMPI would give its own: through the copy functions, in the
// order they were set. A copy function's error fails the duplication (MPI-3.1 6.7.2), the duplicate freed.

int SmpiAbi::copy_kept_attributes(const SharedObjectAttributes& store, uintptr_t key, void* object, void* made,
                                  int (*set_attr)(void*, int, void*))
{
  std::vector<SharedObjectAttributes::Copied> copied;
  int result = store.copy(key, object, &copied);
  for (const auto& [keyval, value] : copied)
    if (result == kSmpiSuccess)
      result = set_attr(made, keyval, value);
  return result;
}

int SmpiAbi::duplicated_comm(int result, MPI_Comm comm, void* made, MPI_Comm* newcomm,
                             int (*set_attr)(void*, int, void*), int (*free_comm)(void**))
{
  if (be_ok(result) && kept_per_rank(comm)) {
    result = copy_kept_attributes(comm_attributes_, key_of(comm), to_be_comm(comm), made, set_attr);
    if (not be_ok(result))
      free_comm(&made);
  }
  *newcomm = be_ok(result) ? from_be_comm(made) : MPI_COMM_NULL;
  return from_be_errcode(result);
}

int SmpiRank::Comm_dup(MPI_Comm comm, MPI_Comm* newcomm)
{
  if (is_intercomm(comm))
    return inter_dup(comm, newcomm);
  be_comm made{};
  int result = fn_.Comm_dup(to_be_comm(comm), &made);
  result     = duplicated_comm(result, comm, made, newcomm, fn_.Comm_set_attr, fn_.Comm_free);
  if (result == MPI_SUCCESS)
    copy_topology(comm, *newcomm); // a duplicate has the same topology (MPI-3.1 6.4.2)
  return result;
}

int SmpiRank::Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm)
{
  if (is_intercomm(comm))
    return inter_dup(comm, newcomm);
  be_comm made{};
  int result = fn_.Comm_dup_with_info(to_be_comm(comm), to_be_info(info), &made);
  result     = duplicated_comm(result, comm, made, newcomm, fn_.Comm_set_attr, fn_.Comm_free);
  if (result == MPI_SUCCESS)
    copy_topology(comm, *newcomm);
  return result;
}

int SmpiRank::Type_dup(MPI_Datatype type, MPI_Datatype* newtype)
{
  be_datatype made{};
  int result = fn_.Type_dup(to_be_datatype(type), &made);
  if (be_ok(result) && kept_per_rank(type)) {
    result = copy_kept_attributes(type_attributes_, key_of(type), to_be_datatype(type), made, fn_.Type_set_attr);
    if (not be_ok(result))
      fn_.Type_free(&made);
  }
  if (be_ok(result))
    duplicated_type(to_be_datatype(type), made);
  *newtype = be_ok(result) ? from_be_datatype(made) : MPI_DATATYPE_NULL;
  return from_be_errcode(result);
}

int SmpiRank::Finalize()
{
  // MPI_COMM_SELF's attributes first, then MPI_COMM_WORLD's (as OpenMPI and MPICH do), while MPI is
  // still up: their delete functions may call it.
  int self   = comm_attributes_.remove_all(key_of(MPI_COMM_SELF), to_be_comm(MPI_COMM_SELF));
  int world  = comm_attributes_.remove_all(key_of(MPI_COMM_WORLD), to_be_comm(MPI_COMM_WORLD));
  int result = fn_.Finalize();
  for (int error : {self, world})
    if (be_ok(result) && not be_ok(error))
      result = error;
  return from_be_errcode(result);
}

// SMPI 3.32's MPI_Status_set_elements stores the count where its statuses hold bytes: MPI_Get_count
// then answered MPI_UNDEFINED (or a quarter of the count for MPI_INT). It is given the bytes.
int SmpiRank::Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count)
{
  return Status_set_elements_x(status, datatype, count);
}

int SmpiRank::Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count)
{
  int size   = 0;
  int result = fn_.Type_size(to_be_datatype(datatype), &size);
  if (not be_ok(result))
    return from_be_errcode(result);
  if (count < 0)
    return MPI_ERR_COUNT;
  MPI_Count bytes = count * size;
  if (bytes > INT_MAX) { // more than SMPI's statuses hold (bytes in an int): kept in bxisim's, 64-bit
    if (status != MPI_STATUS_IGNORE)
      set_status_bytes(status, bytes);
    return MPI_SUCCESS;
  }
  be_status converted = status != MPI_STATUS_IGNORE ? to_be_status(status) : be_status{};
  result              = fn_.Status_set_elements(status != MPI_STATUS_IGNORE ? &converted : be_status_ignore(),
                                   to_be_datatype(datatype), static_cast<int>(bytes));
  if (status != MPI_STATUS_IGNORE)
    from_be_status(converted, status);
  return from_be_errcode(result);
}

} // namespace bxisim::mw
