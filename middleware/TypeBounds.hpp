#pragma once
// The bounds of a datatype as OpenMPI 4.1 computes them (lb, ub, true bounds, the alignment that pads the
// extent, bounds set by MPI_Type_create_resized), for every constructor SMPI 3.32 implements. SMPI computes
// its own and gets many wrong (no alignment padding of structs and indexed types, no sticky bounds of resized
// parts, a negative extent for negative strides, a subarray without the whole array's extent), so a program's
// layout would differ between levels: the SMPI back end gives its types these bounds instead (SmpiDatatypes.cpp).
// Each constructor below follows OpenMPI's (ompi/datatype/ompi_datatype_create_*.c) step by step, since its
// padding depends on the order in which blocks are added (opal_datatype_add).

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace bxisim::mw
{

struct TypeBounds {
  std::ptrdiff_t lb      = 0;
  std::ptrdiff_t ub      = 0;
  std::ptrdiff_t true_lb = 0;
  std::ptrdiff_t true_ub = 0;
  std::int64_t size      = 0; // bytes of data
  int align              = 1;
  bool user_lb           = false; // set by MPI_Type_create_resized, kept by the types made of it
  bool user_ub           = false;

  std::ptrdiff_t extent() const { return ub - lb; }
  std::ptrdiff_t true_extent() const { return true_ub - true_lb; }
};

/** A predefined datatype's bounds (nullopt: a handle that is not one, or one without a C layout here). */
std::optional<TypeBounds> predefined_bounds(MPI_Datatype type);

TypeBounds contiguous_bounds(int count, const TypeBounds& old);
TypeBounds vector_bounds(int count, int block_length, int stride, const TypeBounds& old);
TypeBounds hvector_bounds(int count, int block_length, std::ptrdiff_t stride, const TypeBounds& old);
TypeBounds indexed_bounds(int count, const int* block_lengths, const int* displacements, const TypeBounds& old);
TypeBounds hindexed_bounds(int count, const int* block_lengths, const std::ptrdiff_t* displacements,
                           const TypeBounds& old);
TypeBounds indexed_block_bounds(int count, int block_length, const int* displacements, const TypeBounds& old);
TypeBounds hindexed_block_bounds(int count, int block_length, const std::ptrdiff_t* displacements,
                                 const TypeBounds& old);
TypeBounds resized_bounds(const TypeBounds& old, std::ptrdiff_t lb, std::ptrdiff_t extent);
TypeBounds subarray_bounds(int ndims, const int* sizes, const int* subsizes, const int* starts, bool order_c,
                           const TypeBounds& old);

/** One block of a struct: OpenMPI merges consecutive blocks of the same type handle that touch. */
struct StructBlock {
  int length;
  std::ptrdiff_t displacement;
  const TypeBounds* type;
  std::uintptr_t handle;
};
TypeBounds struct_bounds(const std::vector<StructBlock>& blocks);

} // namespace bxisim::mw
