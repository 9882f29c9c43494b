#pragma once
// MPI_Dims_create, answered by bxisim at every level: OpenMPI 4.1 and SMPI 3.32 do not give the most balanced
// grid MPI-3.1 7.5.2 asks for (72 nodes in 2 dimensions: OpenMPI 12 x 6, MPICH 9 x 8), so a program's grid
// differed with the level. The choice is MPICH's: the smallest difference between the largest and the smallest
// dimension, then the largest smallest dimension, then the largest second smallest, ... (all 75,395 cases of
// MPICH's topo/dims5 agree).

namespace bxisim::mw
{

/** Fills the zero entries of `dims` (ndims of them) with a balanced decomposition of `nnodes`, in non-increasing
 *  order, keeping the positive entries; MPI_SUCCESS, or MPI_ERR_DIMS / MPI_ERR_ARG as MPI says. */
int balanced_dims(int nnodes, int ndims, int* dims);

} // namespace bxisim::mw
