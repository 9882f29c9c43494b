#pragma once
// MPI_Type_match_size, answered by bxisim at every level: OpenMPI 4.1 matches only Fortran datatypes, which its
// Fortran-less build behind bxisim lacks (MPI_ERR_ARG for integers, MPI_2REAL for an 8-byte real), and SMPI 3.32
// has no such function. BLACS calls it in every integer routine, so ScaLAPACK stopped at its first call.

#include <mpi.h>

#include <vector>

namespace bxisim::mw
{

/** The predefined datatypes of `typeclass` (MPI_TYPECLASS_INTEGER, _REAL, _COMPLEX) and `size` bytes, best first:
 *  the Fortran type MPICH answers (MPI_INTEGERn, MPI_REALn, MPI_COMPLEXn), then its C twin, for a back end whose
 *  Fortran type has not that size (OpenMPI's MPI_REAL16 is empty, SMPI's MPI_INTEGER1 is 4 bytes). */
std::vector<MPI_Datatype> matching_predefined_types(int typeclass, int size);

/** The bytes of the Fortran type MPI_Type_create_f90_integer/_real/_complex select for `precision` decimal digits
 *  and a decimal exponent `range` (MPI_UNDEFINED: any), as gfortran's kinds: integers of 1, 2, 4, 8 bytes, reals
 *  of 4, 8, 16 (complexes twice); 0 when no kind holds them. */
int f90_size(int typeclass, int precision, int range);

} // namespace bxisim::mw
