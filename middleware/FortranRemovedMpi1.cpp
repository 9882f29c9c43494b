// MPI-1's Fortran routines that MPI-3.0 removed (MPI-3.1's "Removed Interfaces"): legacy Fortran programs still call
// them, and OpenMPI 4.1's mpif.h still offers them (its C header does not declare them, so C programs are told to use
// the replacements: ProgramCheck.cpp). Each is its replacement, whose binding it calls (the profiled one from pmpi_),
// with MPI-1's INTEGER addresses and displacements: an address or extent that does not fit in one is MPI_ERR_ARG,
// raised on MPI_COMM_WORLD, as OpenMPI does (on 64-bit machines, most addresses MPI_ADDRESS is asked for). mpif.h's
// MPI_LB and MPI_UB mark MPI_TYPE_STRUCT's bounds, as in MPI-1.

#include "FortranSupport.hpp"

#include <mpi.h>

#include <algorithm>
#include <optional>
#include <vector>

using ErrhandlerFunction = void (*)(MPI_Fint* object, MPI_Fint* code);

// NOLINTBEGIN: gfortran's names and calling convention
extern "C" {

// The replacements' bindings (FortranBindings.cpp, FortranSupport.cpp).
void mpi_comm_create_errhandler_(ErrhandlerFunction function, MPI_Fint* errhandler, MPI_Fint* ierror);
void pmpi_comm_create_errhandler_(ErrhandlerFunction function, MPI_Fint* errhandler, MPI_Fint* ierror);
void mpi_comm_set_errhandler_(const MPI_Fint* comm, const MPI_Fint* errhandler, MPI_Fint* ierror);
void pmpi_comm_set_errhandler_(const MPI_Fint* comm, const MPI_Fint* errhandler, MPI_Fint* ierror);
void mpi_comm_get_errhandler_(const MPI_Fint* comm, MPI_Fint* errhandler, MPI_Fint* ierror);
void pmpi_comm_get_errhandler_(const MPI_Fint* comm, MPI_Fint* errhandler, MPI_Fint* ierror);
void mpi_get_address_(const void* location, MPI_Aint* address, MPI_Fint* ierror);
void pmpi_get_address_(const void* location, MPI_Aint* address, MPI_Fint* ierror);
void mpi_type_get_extent_(const MPI_Fint* type, MPI_Aint* lb, MPI_Aint* extent, MPI_Fint* ierror);
void pmpi_type_get_extent_(const MPI_Fint* type, MPI_Aint* lb, MPI_Aint* extent, MPI_Fint* ierror);
void mpi_type_create_hvector_(const int* count, const int* blocklength, const MPI_Aint* stride, const MPI_Fint* oldtype,
                              MPI_Fint* newtype, MPI_Fint* ierror);
void pmpi_type_create_hvector_(const int* count, const int* blocklength, const MPI_Aint* stride,
                               const MPI_Fint* oldtype, MPI_Fint* newtype, MPI_Fint* ierror);
void mpi_type_create_hindexed_(const int* count, const int* blocklengths, const MPI_Aint* displacements,
                               const MPI_Fint* oldtype, MPI_Fint* newtype, MPI_Fint* ierror);
void pmpi_type_create_hindexed_(const int* count, const int* blocklengths, const MPI_Aint* displacements,
                                const MPI_Fint* oldtype, MPI_Fint* newtype, MPI_Fint* ierror);
void mpi_type_create_struct_(const int* count, const int* blocklengths, const MPI_Aint* displacements,
                             const MPI_Fint* types, MPI_Fint* newtype, MPI_Fint* ierror);
void pmpi_type_create_struct_(const int* count, const int* blocklengths, const MPI_Aint* displacements,
                              const MPI_Fint* types, MPI_Fint* newtype, MPI_Fint* ierror);
void mpi_type_create_resized_(const MPI_Fint* oldtype, const MPI_Aint* lb, const MPI_Aint* extent, MPI_Fint* newtype,
                              MPI_Fint* ierror);
void pmpi_type_create_resized_(const MPI_Fint* oldtype, const MPI_Aint* lb, const MPI_Aint* extent, MPI_Fint* newtype,
                               MPI_Fint* ierror);
void mpi_type_free_(MPI_Fint* type, MPI_Fint* ierror);
void pmpi_type_free_(MPI_Fint* type, MPI_Fint* ierror);

} // extern "C"

namespace
{
/** `value` into an INTEGER, or MPI_ERR_ARG raised on MPI_COMM_WORLD when it does not fit. */
void to_integer(MPI_Aint value, MPI_Fint* integer, MPI_Fint* ierror)
{
  *integer = static_cast<MPI_Fint>(value);
  if (static_cast<MPI_Aint>(*integer) == value)
    return;
  MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG); // returns under MPI_ERRORS_RETURN
  *ierror = MPI_ERR_ARG;
}

/** MPI_TYPE_GET_EXTENT of `type` (its profiled binding if `profiled`); whether it succeeded. */
bool type_bounds(bool profiled, const MPI_Fint* type, MPI_Aint* lb, MPI_Aint* extent, MPI_Fint* ierror)
{
  profiled ? pmpi_type_get_extent_(type, lb, extent, ierror) : mpi_type_get_extent_(type, lb, extent, ierror);
  return *ierror == MPI_SUCCESS;
}

/** MPI_TYPE_STRUCT's entries but its bound markers, and the bounds they set. */
struct Struct {
  std::vector<int> lengths;
  std::vector<MPI_Aint> displacements;
  std::vector<MPI_Fint> types;
  std::optional<MPI_Aint> lb, ub;
};

Struct without_bound_markers(const int* count, const int* lengths, const MPI_Fint* displacements, const MPI_Fint* types)
{
  Struct entries;
  for (int i = 0; i < *count; ++i) {
    MPI_Aint at = displacements[i];
    if (types[i] == bxisim::mw::fortran::kLowerBoundMarker)
      entries.lb = std::min(entries.lb.value_or(at), at);
    else if (types[i] == bxisim::mw::fortran::kUpperBoundMarker)
      entries.ub = std::max(entries.ub.value_or(at), at);
    else {
      entries.lengths.push_back(lengths[i]);
      entries.displacements.push_back(at);
      entries.types.push_back(types[i]);
    }
  }
  return entries;
}

std::vector<MPI_Aint> widened(const MPI_Fint* integers, const int* count)
{
  return std::vector<MPI_Aint>(integers, integers + std::max(0, *count));
}
} // namespace

extern "C" {

BXISIM_FORTRAN_BOTH(errhandler_create, (ErrhandlerFunction function, MPI_Fint* errhandler, MPI_Fint* ierror), {
  profiled ? pmpi_comm_create_errhandler_(function, errhandler, ierror)
           : mpi_comm_create_errhandler_(function, errhandler, ierror);
})

BXISIM_FORTRAN_BOTH(errhandler_set, (const MPI_Fint* comm, const MPI_Fint* errhandler, MPI_Fint* ierror), {
  profiled ? pmpi_comm_set_errhandler_(comm, errhandler, ierror) : mpi_comm_set_errhandler_(comm, errhandler, ierror);
})

BXISIM_FORTRAN_BOTH(errhandler_get, (const MPI_Fint* comm, MPI_Fint* errhandler, MPI_Fint* ierror), {
  profiled ? pmpi_comm_get_errhandler_(comm, errhandler, ierror) : mpi_comm_get_errhandler_(comm, errhandler, ierror);
})

BXISIM_FORTRAN_BOTH(address, (const void* location, MPI_Fint* address, MPI_Fint* ierror), {
  MPI_Aint wide = 0;
  profiled ? pmpi_get_address_(location, &wide, ierror) : mpi_get_address_(location, &wide, ierror);
  if (*ierror == MPI_SUCCESS)
    to_integer(wide, address, ierror);
})

BXISIM_FORTRAN_BOTH(type_extent, (const MPI_Fint* type, MPI_Fint* extent, MPI_Fint* ierror), {
  MPI_Aint lb = 0, wide = 0;
  if (type_bounds(profiled, type, &lb, &wide, ierror))
    to_integer(wide, extent, ierror);
})

BXISIM_FORTRAN_BOTH(type_lb, (const MPI_Fint* type, MPI_Fint* lb, MPI_Fint* ierror), {
  MPI_Aint wide = 0, extent = 0;
  if (type_bounds(profiled, type, &wide, &extent, ierror))
    to_integer(wide, lb, ierror);
})

BXISIM_FORTRAN_BOTH(type_ub, (const MPI_Fint* type, MPI_Fint* ub, MPI_Fint* ierror), {
  MPI_Aint lb = 0, extent = 0;
  if (type_bounds(profiled, type, &lb, &extent, ierror))
    to_integer(lb + extent, ub, ierror);
})

BXISIM_FORTRAN_BOTH(type_hvector,
                    (const int* count, const int* blocklength, const MPI_Fint* stride, const MPI_Fint* oldtype,
                     MPI_Fint* newtype, MPI_Fint* ierror),
                    {
                      MPI_Aint wide = *stride;
                      profiled ? pmpi_type_create_hvector_(count, blocklength, &wide, oldtype, newtype, ierror)
                               : mpi_type_create_hvector_(count, blocklength, &wide, oldtype, newtype, ierror);
                    })

BXISIM_FORTRAN_BOTH(type_hindexed,
                    (const int* count, const int* blocklengths, const MPI_Fint* displacements, const MPI_Fint* oldtype,
                     MPI_Fint* newtype, MPI_Fint* ierror),
                    {
                      auto wide = widened(displacements, count);
                      profiled ? pmpi_type_create_hindexed_(count, blocklengths, wide.data(), oldtype, newtype, ierror)
                               : mpi_type_create_hindexed_(count, blocklengths, wide.data(), oldtype, newtype, ierror);
                    })

// MPI-1's MPI_LB and MPI_UB entries set the type's bounds: the lowest MPI_LB displacement, the highest MPI_UB one (the
// natural bound where there is none); the other entries make the struct, resized to those bounds.
BXISIM_FORTRAN_BOTH(type_struct,
                    (const int* count, const int* blocklengths, const MPI_Fint* displacements, const MPI_Fint* types,
                     MPI_Fint* newtype, MPI_Fint* ierror),
                    {
                      Struct entries = without_bound_markers(count, blocklengths, displacements, types);
                      int kept       = static_cast<int>(entries.types.size());
                      profiled ? pmpi_type_create_struct_(&kept, entries.lengths.data(), entries.displacements.data(),
                                                                entries.types.data(), newtype, ierror)
                                     : mpi_type_create_struct_(&kept, entries.lengths.data(), entries.displacements.data(),
                                                               entries.types.data(), newtype, ierror);
                      if (*ierror != MPI_SUCCESS || not(entries.lb || entries.ub))
                        return;
                      MPI_Aint lb = 0, extent = 0;
                      if (not type_bounds(profiled, newtype, &lb, &extent, ierror))
                        return;
                      MPI_Aint low = entries.lb.value_or(lb), width = entries.ub.value_or(lb + extent) - low;
                      MPI_Fint unbounded = *newtype;
                      profiled ? pmpi_type_create_resized_(&unbounded, &low, &width, newtype, ierror)
                               : mpi_type_create_resized_(&unbounded, &low, &width, newtype, ierror);
                      MPI_Fint freed = MPI_SUCCESS;
                      profiled ? pmpi_type_free_(&unbounded, &freed) : mpi_type_free_(&unbounded, &freed);
                    })

} // extern "C"
// NOLINTEND
