#pragma once
// Attributes a rank caches on an object that SMPI shares between all the ranks of a job. SMPI 3.32 has
// one MPI_COMM_WORLD object and one object per predefined datatype for every rank, and keeps
// attributes in the object: an attribute one rank set there was one of every rank's, MPI_Comm_dup of
// MPI_COMM_WORLD on one rank copied every rank's attributes (running other ranks' copy functions in its
// own program copy), and the last rank's MPI_Finalize ran every rank's delete functions. MPI makes
// attributes local to the process. The SMPI back end keeps, per rank, those of the program's own
// keyvals on such objects here, and runs their callbacks through the trampolines SMPI was given for
// them (Callbacks.hpp), as SMPI itself would; predefined keys (MPI_TAG_UB, ...) are still SMPI's.
//
// Values are SMPI's: keyvals as SMPI numbers them, objects as SMPI's pointers, error codes SMPI's.
// The key of an object is the program's handle (MPI_INTEGER and MPI_INT are one SMPI object but two
// datatypes of the program).

#include <array>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace bxisim::mw
{

class SharedObjectAttributes
{
 public:
  /** (copy, delete, extra_state) as keyval_callbacks gave them to SMPI: copy nullptr = none, 1 = dup. */
  using Callbacks = std::array<void*, 3>;
  /** An attribute a duplicate gets: its keyval and value. */
  using Copied = std::pair<int, void*>;

  /** A keyval the rank made. */
  void add_keyval(int keyval, const Callbacks& callbacks);
  /** Whether `keyval` is one the rank made (freed or not): its attributes on shared objects live here. */
  bool knows(int keyval) const;

  /** MPI_x_set_attr: the delete function runs for a value it replaces (its error leaves the old value). */
  int set(uintptr_t object, void* smpi_object, int keyval, void* value);
  /** MPI_x_get_attr; false when absent. */
  bool get(uintptr_t object, int keyval, void** value) const;
  /** MPI_x_delete_attr of an attribute `has` found. */
  int remove(uintptr_t object, void* smpi_object, int keyval);
  bool has(uintptr_t object, int keyval) const;
  /** For a duplicate of `object`: the attributes whose copy functions keep them (the first error stops). */
  int copy(uintptr_t object, void* smpi_object, std::vector<Copied>* copied) const;
  /** Deletes every attribute of `object`, the last set first (MPI_Finalize: OpenMPI and MPICH do so for
   *  MPI_COMM_WORLD); the first error is returned, every delete function runs. */
  int remove_all(uintptr_t object, void* smpi_object);

 private:
  struct Attribute {
    uintptr_t object;
    int keyval;
    void* value;
  };
  static constexpr int kSuccess = 0; // SMPI's MPI_SUCCESS

  int call_delete(const Attribute& attribute, void* smpi_object) const;
  std::vector<Attribute>::iterator find(uintptr_t object, int keyval);
  std::vector<Attribute>::const_iterator find(uintptr_t object, int keyval) const;

  std::map<int, Callbacks> keyvals_;
  std::vector<Attribute> attributes_; // in the order they were first set (copies follow it)
};

} // namespace bxisim::mw
