#pragma once
// MPI_Get_elements for a back end that lacks it (SMPI 3.32): how many basic elements (MPI_INT, MPI_DOUBLE,
// the two parts of MPI_DOUBLE_INT, ...) a number of received bytes of a datatype hold, from the type's
// envelope and contents (MPI-3.1 4.1.11). The data of a derived type is its elements in type-map order,
// so the bytes are walked through the type's constructors: whole copies of the type, then of each part.

#include "MpiInterface.hpp"

namespace bxisim::mw
{

/**
 * The basic elements in `bytes` bytes of data of `type` (any number of copies): `*elements`, or
 * MPI_UNDEFINED when the data ends inside a basic element. Returns an MPI error code of `mpi`'s calls.
 */
int count_elements(MpiInterface& mpi, MPI_Datatype type, MPI_Count bytes, MPI_Count* elements);

} // namespace bxisim::mw
