#pragma once
// The basic elements of a datatype (MPI_INT, MPI_DOUBLE, the two parts of MPI_DOUBLE_INT, ...), from its envelope and
// contents, for a back end that lacks what needs them (SMPI 3.32): MPI_Get_elements, how many a number of received
// bytes of a datatype hold (MPI-3.1 4.1.11; the data of a derived type is its elements in type-map order, so the bytes
// are walked through the type's constructors: whole copies of the type, then of each part), and the element type an
// accumulate's operation applies to.

#include "MpiInterface.hpp"

namespace bxisim::mw
{

/**
 * The basic elements in `bytes` bytes of data of `type` (any number of copies): `*elements`, or
 * MPI_UNDEFINED when the data ends inside a basic element. Returns an MPI error code of `mpi`'s calls.
 */
int count_elements(MpiInterface& mpi, MPI_Datatype type, MPI_Count bytes, MPI_Count* elements);

/** The one predefined type the data of `type` is made of (a pair type counts as one), MPI_DATATYPE_NULL if its parts
 *  are of several or it cannot be told: what an accumulate's operation applies to. */
MPI_Datatype element_type_of(MpiInterface& mpi, MPI_Datatype type);

} // namespace bxisim::mw
