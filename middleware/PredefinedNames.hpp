#pragma once
// The names of predefined datatypes, the same at every level: MPI_Type_get_name of a predefined datatype gives its
// MPI name. The back ends answered their own: OpenMPI's build (without Fortran) named MPI_REAL "MPI_FLOAT" and
// MPI_INTEGER4 "MPI_INT32_T", SMPI named MPI_2REAL "MPI_2FLOAT" and MPI_LOGICAL1 "MPI_UINT8_T". A name the program
// sets (MPI_Type_set_name, allowed on predefined datatypes too) is the back end's to keep and answer.

#include <mpi.h>

#include <cstdint>
#include <unordered_set>

namespace bxisim::mw
{

class PredefinedNames
{
 public:
  /** Writes the MPI name of `type` (a predefined datatype the program has not renamed); false for another type. */
  bool answer(MPI_Datatype type, char* name, int* length) const;
  /** The program named `type`: its name is the back end's from now on. */
  void renamed(MPI_Datatype type) { renamed_.insert(reinterpret_cast<std::uintptr_t>(type)); }

 private:
  std::unordered_set<std::uintptr_t> renamed_;
};

} // namespace bxisim::mw
