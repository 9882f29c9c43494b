// MPI_Type_create_darray at the smpi level, which SMPI 3.32 lacks: built from the constructors bxisim already carries
// there (so its bounds are OpenMPI's), dimension by dimension as MPI-3.1 4.1.4 defines it and ROMIO and MPICH build
// it: a block distribution is a contiguous or strided run of the process's elements, a cyclic(k) one a vector of
// its blocks (with a last partial block), each over the type of the faster dimensions; the result starts at the
// process's first element and its extent is the whole global array's.

#include "SmpiRank.hpp"

#include <algorithm>
#include <vector>

namespace bxisim::mw
{

namespace
{
/** The distribution of one dimension: the process's block size and where its first element is. */
struct DimensionShare {
  int block  = 0; // elements per block (the block size, or the cyclic(k) k)
  int count  = 0; // the process's elements in this dimension
  int offset = 0; // the index of its first element, in elements of this dimension
};

/** Block distribution (darg: the block size or MPI_DISTRIBUTE_DFLT_DARG); count < 0 for an impossible one. */
DimensionShare block_share(int global, int processes, int coordinate, int darg)
{
  DimensionShare share;
  share.block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (global + processes - 1) / processes : darg;
  if (share.block <= 0 || static_cast<long long>(share.block) * processes < global) {
    share.count = -1;
    return share;
  }
  share.count  = std::max(0, std::min(share.block, global - share.block * coordinate));
  share.offset = share.count == 0 ? 0 : share.block * coordinate;
  return share;
}

/** Cyclic(darg) distribution: count is the process's elements, blocks of `block` every processes * block. */
DimensionShare cyclic_share(int global, int processes, int coordinate, int darg)
{
  DimensionShare share;
  share.block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
  if (share.block <= 0) {
    share.count = -1;
    return share;
  }
  long long first = static_cast<long long>(coordinate) * share.block;
  if (first <= global - 1) {
    long long span = global - first, period = static_cast<long long>(processes) * share.block;
    share.count = static_cast<int>(span / period * share.block + std::min<long long>(span % period, share.block));
  }
  share.offset = share.count == 0 ? 0 : coordinate * share.block;
  return share;
}
} // namespace

int SmpiRank::Type_create_darray(int size, int rank, int ndims, const int* array_of_gsizes,
                                 const int* array_of_distribs, const int* array_of_dargs, const int* array_of_psizes,
                                 int order, MPI_Datatype oldtype, MPI_Datatype* newtype)
{
  if (newtype == nullptr || ndims < 0 || size <= 0 || rank < 0 || rank >= size ||
      (ndims > 0 && (array_of_gsizes == nullptr || array_of_distribs == nullptr || array_of_dargs == nullptr ||
                     array_of_psizes == nullptr)))
    return raised(MPI_COMM_WORLD, MPI_ERR_ARG);
  *newtype = MPI_DATATYPE_NULL;
  // The process's coordinates in the grid of processes, row-major as MPI_Cart_create numbers them.
  std::vector<int> coordinates(static_cast<size_t>(ndims));
  long long processes = size, remainder = rank, grid = 1;
  for (int i = 0; i < ndims; ++i) {
    if (array_of_psizes[i] <= 0 || array_of_gsizes[i] <= 0)
      return raised(MPI_COMM_WORLD, MPI_ERR_ARG);
    grid *= array_of_psizes[i];
    processes /= array_of_psizes[i];
    coordinates[static_cast<size_t>(i)] = processes > 0 ? static_cast<int>(remainder / processes) : 0;
    remainder                           = processes > 0 ? remainder % processes : 0;
  }
  if (grid != size)
    return raised(MPI_COMM_WORLD, MPI_ERR_ARG);
  MPI_Aint lb = 0, element = 0;
  int result = Type_get_extent(oldtype, &lb, &element);
  if (result != MPI_SUCCESS)
    return result;

  // From the fastest dimension (the last in C order, the first in Fortran order) to the slowest.
  MPI_Datatype current = oldtype;
  MPI_Aint stride      = element; // bytes between two consecutive elements of the dimension being built
  MPI_Aint start       = 0;       // bytes from the array's start to the process's first element
  auto free_derived    = [this, oldtype](MPI_Datatype& type) {
    if (type != oldtype)
      Type_free(&type);
  };
  for (int step = 0; step < ndims && result == MPI_SUCCESS; ++step) {
    int dim    = order == MPI_ORDER_FORTRAN ? step : ndims - 1 - step;
    int global = array_of_gsizes[dim], procs = array_of_psizes[dim], coordinate = coordinates[static_cast<size_t>(dim)];
    int distrib = array_of_distribs[dim];
    if (distrib == MPI_DISTRIBUTE_NONE && procs != 1)
      result = MPI_ERR_ARG;
    DimensionShare share =
        distrib == MPI_DISTRIBUTE_CYCLIC
            ? cyclic_share(global, procs, coordinate, array_of_dargs[dim])
            : block_share(global, procs, coordinate,
                          distrib == MPI_DISTRIBUTE_NONE ? MPI_DISTRIBUTE_DFLT_DARG : array_of_dargs[dim]);
    if (share.count < 0)
      result = MPI_ERR_ARG;
    if (result != MPI_SUCCESS)
      break;
    if (step > 0) { // one element of this dimension spans all of the faster ones (blocks of several in a row)
      MPI_Datatype row = MPI_DATATYPE_NULL;
      result           = Type_create_resized(current, 0, stride, &row);
      free_derived(current);
      current = row;
      if (result != MPI_SUCCESS)
        break;
    }
    MPI_Datatype made = MPI_DATATYPE_NULL;
    if (distrib != MPI_DISTRIBUTE_CYCLIC) { // the process's run of consecutive elements
      result = Type_create_hvector(share.count, 1, stride, current, &made);
    } else { // full blocks every procs * block elements, then a last partial one
      int blocks = share.count / share.block, rest = share.count % share.block;
      MPI_Aint period = stride * procs * share.block;
      result          = Type_create_hvector(blocks, share.block, period, current, &made);
      if (result == MPI_SUCCESS && rest > 0) {
        int lengths[2]            = {1, rest};
        MPI_Aint displacements[2] = {0, blocks * period};
        MPI_Datatype parts[2]     = {made, current};
        MPI_Datatype whole        = MPI_DATATYPE_NULL;
        result                    = Type_create_struct(2, lengths, displacements, parts, &whole);
        Type_free(&made);
        made = whole;
      }
    }
    free_derived(current);
    current = made;
    start += static_cast<MPI_Aint>(share.offset) * stride;
    stride *= global;
  }
  if (result != MPI_SUCCESS) {
    free_derived(current);
    return raised(MPI_COMM_WORLD, result);
  }
  // Placed at the process's first element, with the whole array as extent (lower bound 0).
  int length          = 1;
  MPI_Datatype placed = MPI_DATATYPE_NULL;
  result              = Type_create_struct(1, &length, &start, &current, &placed);
  free_derived(current);
  if (result == MPI_SUCCESS) {
    result = Type_create_resized(placed, 0, stride, newtype);
    Type_free(&placed);
  }
  if (result == MPI_SUCCESS && reinterpret_cast<uintptr_t>(oldtype) < kPredefinedLimit) {
    std::vector<int> integers{size, rank, ndims};
    for (const int* array : {array_of_gsizes, array_of_distribs, array_of_dargs, array_of_psizes})
      integers.insert(integers.end(), array, array + ndims);
    integers.push_back(order);
    keep_arguments(made_by_smpi(to_be_datatype(*newtype)), MPI_COMBINER_DARRAY, std::move(integers), {}, {oldtype});
  }
  return result;
}

} // namespace bxisim::mw
