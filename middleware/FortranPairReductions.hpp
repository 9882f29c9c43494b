#pragma once
// MPI_MAXLOC and MPI_MINLOC on MPI_2REAL and MPI_2DOUBLE_PRECISION, the Fortran pair types (MPI-3.1 5.9.4), for the
// OpenMPI back end: bxisim's OpenMPI is built without Fortran, so it has the types but not the operations on them
// ("MPI_MAXLOC is not defined on the MPI_2DOUBLE_PRECISION datatype"; PETSc's -log_view reduces its timings so). They
// are given to it as operations of the program's kind (MPI_Op_create), one per operation and type.

namespace bxisim::mw
{

/** OpenMPI's MPI_User_function, its datatype left opaque. */
using BackEndUserFunction = void (*)(void* in, void* inout, int* length, void* datatype);

/** The function computing `maxloc` (else minloc) on pairs of doubles (else of floats), as MPI defines it: the
 *  extreme value, and of equal values the lower index. */
BackEndUserFunction fortran_pair_reduction(bool maxloc, bool doubles);

} // namespace bxisim::mw
