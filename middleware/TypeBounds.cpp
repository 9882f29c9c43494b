#include "TypeBounds.hpp"

#include <algorithm>
#include <complex>
#include <cstddef>
#include <limits>
#include <utility>

namespace bxisim::mw
{

namespace
{
constexpr std::ptrdiff_t kNoLowerBound = std::numeric_limits<std::ptrdiff_t>::max();
constexpr std::ptrdiff_t kNoUpperBound = std::numeric_limits<std::ptrdiff_t>::min();

/** A type under construction, as OpenMPI's opal_datatype_create makes it and opal_datatype_add grows it. */
class Composer
{
 public:
  Composer() { made_.lb = made_.true_lb = kNoLowerBound, made_.ub = made_.true_ub = kNoUpperBound; }

  /** `count` copies of `added`, `extent` apart, the first at `displacement` (opal_datatype_add). */
  void add(const TypeBounds& added, std::int64_t count, std::ptrdiff_t displacement, std::ptrdiff_t extent)
  {
    if (count == 0)
      return;
    std::ptrdiff_t lower = displacement;
    std::ptrdiff_t upper = displacement + extent * (count - 1);
    if (upper < lower)
      std::swap(lower, upper);
    std::ptrdiff_t lb      = lower + added.lb;
    std::ptrdiff_t ub      = upper + added.ub;
    std::ptrdiff_t true_lb = lb - (added.lb - added.true_lb);
    std::ptrdiff_t true_ub = ub - (added.ub - added.true_ub);
    if (true_lb > true_ub)
      std::swap(true_lb, true_ub);
    // A bound set by MPI_Type_create_resized wins over the data's, on either side.
    if (added.user_lb != made_.user_lb) {
      if (made_.user_lb)
        lb = made_.lb;
      made_.user_lb = true;
    } else {
      lb = std::min(made_.lb, lb);
    }
    if (added.user_ub != made_.user_ub) {
      if (made_.user_ub)
        ub = made_.ub;
      made_.user_ub = true;
    } else {
      ub = std::max(made_.ub, ub);
    }
    made_.lb    = lb;
    made_.ub    = ub;
    made_.align = std::max(made_.align, added.align);
    if (!made_.user_ub) {
      std::ptrdiff_t epsilon = (made_.ub - made_.lb) % made_.align;
      if (epsilon != 0)
        made_.ub += made_.align - epsilon;
    }
    if (added.size == 0)
      return;
    made_.size += count * added.size;
    made_.true_lb = std::min(true_lb, made_.true_lb);
    made_.true_ub = std::max(true_ub, made_.true_ub);
  }

  TypeBounds made() const
  {
    TypeBounds made = made_;
    if (made.lb == kNoLowerBound)
      made.lb = made.ub = 0;
    if (made.true_lb == kNoLowerBound)
      made.true_lb = made.true_ub = 0; // no data: OpenMPI's own sentinels are no bounds a program can use
    return made;
  }

 private:
  TypeBounds made_;
};

/** OpenMPI's MPI_DATATYPE_NULL, which its constructors duplicate for a type without data. */
TypeBounds no_data()
{
  return TypeBounds{};
}

TypeBounds basic(std::int64_t size, int align)
{
  TypeBounds bounds;
  bounds.ub = bounds.true_ub = size;
  bounds.size                = size;
  bounds.align               = align;
  return bounds;
}

template <typename T>
TypeBounds basic()
{
  return basic(sizeof(T), alignof(T));
}

/** MPI_DOUBLE_INT and the like: the C struct {First, Second}, as OpenMPI declares them. */
template <typename First, typename Second>
TypeBounds pair()
{
  struct Layout {
    First first;
    Second second;
  };
  TypeBounds first = basic<First>(), second = basic<Second>();
  return struct_bounds({{1, 0, &first, 1}, {1, static_cast<std::ptrdiff_t>(offsetof(Layout, second)), &second, 2}});
}
} // namespace

std::optional<TypeBounds> predefined_bounds(MPI_Datatype type)
{
  // Fortran's INTEGER, LOGICAL and REAL are 4 bytes, DOUBLE PRECISION 8 (gfortran's defaults, as OpenMPI's build).
  static const std::pair<MPI_Datatype, TypeBounds> table[] = {
      {MPI_CHAR, basic<char>()},
      {MPI_SIGNED_CHAR, basic<signed char>()},
      {MPI_UNSIGNED_CHAR, basic<unsigned char>()},
      {MPI_BYTE, basic(1, 1)},
      {MPI_PACKED, basic(1, 1)},
      {MPI_SHORT, basic<short>()},
      {MPI_UNSIGNED_SHORT, basic<unsigned short>()},
      {MPI_INT, basic<int>()},
      {MPI_UNSIGNED, basic<unsigned>()},
      {MPI_LONG, basic<long>()},
      {MPI_UNSIGNED_LONG, basic<unsigned long>()},
      {MPI_LONG_LONG, basic<long long>()},
      {MPI_UNSIGNED_LONG_LONG, basic<unsigned long long>()},
      {MPI_FLOAT, basic<float>()},
      {MPI_DOUBLE, basic<double>()},
      {MPI_LONG_DOUBLE, basic<long double>()},
      {MPI_WCHAR, basic<wchar_t>()},
      {MPI_C_BOOL, basic<bool>()},
      {MPI_CXX_BOOL, basic<bool>()},
      {MPI_INT8_T, basic<std::int8_t>()},
      {MPI_UINT8_T, basic<std::uint8_t>()},
      {MPI_INT16_T, basic<std::int16_t>()},
      {MPI_UINT16_T, basic<std::uint16_t>()},
      {MPI_INT32_T, basic<std::int32_t>()},
      {MPI_UINT32_T, basic<std::uint32_t>()},
      {MPI_INT64_T, basic<std::int64_t>()},
      {MPI_UINT64_T, basic<std::uint64_t>()},
      {MPI_AINT, basic<MPI_Aint>()},
      {MPI_OFFSET, basic<MPI_Offset>()},
      {MPI_COUNT, basic<MPI_Count>()},
      {MPI_C_FLOAT_COMPLEX, basic<std::complex<float>>()},
      {MPI_CXX_FLOAT_COMPLEX, basic<std::complex<float>>()},
      {MPI_C_DOUBLE_COMPLEX, basic<std::complex<double>>()},
      {MPI_CXX_DOUBLE_COMPLEX, basic<std::complex<double>>()},
      {MPI_C_LONG_DOUBLE_COMPLEX, basic<std::complex<long double>>()},
      {MPI_CXX_LONG_DOUBLE_COMPLEX, basic<std::complex<long double>>()},
      {MPI_FLOAT_INT, pair<float, int>()},
      {MPI_DOUBLE_INT, pair<double, int>()},
      {MPI_LONG_INT, pair<long, int>()},
      {MPI_2INT, pair<int, int>()},
      {MPI_SHORT_INT, pair<short, int>()},
      {MPI_LONG_DOUBLE_INT, pair<long double, int>()},
      {MPI_CHARACTER, basic(1, 1)},
      {MPI_LOGICAL, basic(4, 4)},
      {MPI_INTEGER, basic(4, 4)},
      {MPI_REAL, basic(4, 4)},
      {MPI_DOUBLE_PRECISION, basic(8, 8)},
      {MPI_COMPLEX, basic(8, 4)},
      {MPI_DOUBLE_COMPLEX, basic(16, 8)},
      {MPI_2REAL, pair<float, float>()},
      {MPI_2DOUBLE_PRECISION, pair<double, double>()},
      {MPI_2INTEGER, pair<int, int>()},
      {MPI_LOGICAL1, basic(1, 1)},
      {MPI_LOGICAL2, basic(2, 2)},
      {MPI_LOGICAL4, basic(4, 4)},
      {MPI_LOGICAL8, basic(8, 8)},
      {MPI_INTEGER1, basic(1, 1)},
      {MPI_INTEGER2, basic(2, 2)},
      {MPI_INTEGER4, basic(4, 4)},
      {MPI_INTEGER8, basic(8, 8)},
      {MPI_REAL4, basic(4, 4)},
      {MPI_REAL8, basic(8, 8)},
      {MPI_REAL16, basic(16, 16)},
      {MPI_COMPLEX8, basic(8, 4)},
      {MPI_COMPLEX16, basic(16, 8)},
      {MPI_COMPLEX32, basic(32, 16)},
  };
  for (const auto& [predefined, bounds] : table)
    if (type == predefined)
      return bounds;
  return std::nullopt;
}

TypeBounds contiguous_bounds(int count, const TypeBounds& old)
{
  if (count == 0 || old.size == 0)
    return no_data();
  Composer made;
  made.add(old, count, 0, old.extent());
  return made.made();
}

TypeBounds vector_bounds(int count, int block_length, int stride, const TypeBounds& old)
{
  return hvector_bounds(count, block_length, static_cast<std::ptrdiff_t>(stride) * old.extent(), old);
}

TypeBounds hvector_bounds(int count, int block_length, std::ptrdiff_t stride, const TypeBounds& old)
{
  if (count == 0 || block_length == 0)
    return no_data();
  std::ptrdiff_t extent = old.extent();
  Composer made;
  if (extent * block_length == stride || count <= 1) {
    made.add(old, static_cast<std::int64_t>(count) * block_length, 0, extent);
  } else if (block_length == 1) {
    made.add(old, count, 0, stride);
  } else {
    Composer block;
    block.add(old, block_length, 0, extent);
    made.add(block.made(), count, 0, stride);
  }
  return made.made();
}

namespace
{
/** OpenMPI's indexed constructors: blocks that touch are added as one, in the program's order. */
template <typename Displacement>
TypeBounds blocks_bounds(int count, const int* block_lengths, int same_length, const Displacement* displacements,
                         bool in_bytes, const TypeBounds& old)
{
  auto length = [&](int i) { return block_lengths != nullptr ? block_lengths[i] : same_length; };
  int i       = 0;
  while (i < count && length(i) == 0)
    ++i;
  if (i == count || (block_lengths != nullptr && old.size == 0))
    return no_data();
  std::ptrdiff_t extent = old.extent();
  std::ptrdiff_t unit   = in_bytes ? 1 : extent; // bytes per unit of displacement
  std::ptrdiff_t step   = in_bytes ? extent : 1; // displacement units per copy of the old type
  std::ptrdiff_t start  = static_cast<std::ptrdiff_t>(displacements[i]);
  std::int64_t blocks   = length(i);
  std::ptrdiff_t end    = start + blocks * step;
  Composer made;
  for (++i; i < count; ++i) {
    if (length(i) == 0)
      continue;
    if (static_cast<std::ptrdiff_t>(displacements[i]) == end) {
      blocks += length(i);
      end += length(i) * step;
      continue;
    }
    made.add(old, blocks, start * unit, extent);
    start  = static_cast<std::ptrdiff_t>(displacements[i]);
    blocks = length(i);
    end    = start + blocks * step;
  }
  made.add(old, blocks, start * unit, extent);
  return made.made();
}
} // namespace

TypeBounds indexed_bounds(int count, const int* block_lengths, const int* displacements, const TypeBounds& old)
{
  return blocks_bounds(count, block_lengths, 0, displacements, false, old);
}

TypeBounds hindexed_bounds(int count, const int* block_lengths, const std::ptrdiff_t* displacements,
                           const TypeBounds& old)
{
  return blocks_bounds(count, block_lengths, 0, displacements, true, old);
}

TypeBounds indexed_block_bounds(int count, int block_length, const int* displacements, const TypeBounds& old)
{
  if (count == 0 || block_length == 0)
    return no_data();
  return blocks_bounds(count, nullptr, block_length, displacements, false, old);
}

TypeBounds hindexed_block_bounds(int count, int block_length, const std::ptrdiff_t* displacements,
                                 const TypeBounds& old)
{
  if (count == 0 || block_length == 0)
    return no_data();
  return blocks_bounds(count, nullptr, block_length, displacements, true, old);
}

TypeBounds struct_bounds(const std::vector<StructBlock>& blocks)
{
  size_t i = 0;
  while (i < blocks.size() && blocks[i].length == 0)
    ++i;
  if (i == blocks.size())
    return no_data();
  StructBlock last    = blocks[i];
  std::int64_t length = last.length;
  std::ptrdiff_t end  = last.displacement + last.type->extent() * length;
  Composer made;
  for (++i; i < blocks.size(); ++i) {
    if (blocks[i].handle == last.handle && blocks[i].displacement == end) {
      length += blocks[i].length;
      end = last.displacement + length * last.type->extent();
      continue;
    }
    made.add(*last.type, length, last.displacement, last.type->extent());
    last   = blocks[i];
    length = last.length;
    end    = last.displacement + last.type->extent() * length;
  }
  made.add(*last.type, length, last.displacement, last.type->extent());
  return made.made();
}

TypeBounds resized_bounds(const TypeBounds& old, std::ptrdiff_t lb, std::ptrdiff_t extent)
{
  TypeBounds resized = old;
  resized.lb         = lb;
  resized.ub         = lb + extent;
  resized.user_lb = resized.user_ub = true;
  return resized;
}

TypeBounds subarray_bounds(int ndims, const int* sizes, const int* subsizes, const int* starts, bool order_c,
                           const TypeBounds& old)
{
  if (ndims == 0)
    return no_data();
  std::ptrdiff_t extent = old.extent();
  TypeBounds last;
  std::ptrdiff_t size = 0, displacement = 0;
  if (ndims == 1) {
    last         = contiguous_bounds(subsizes[0], old);
    size         = sizes[0];
    displacement = starts[0];
  } else {
    int i        = order_c ? ndims - 1 : 0;
    int step     = order_c ? -1 : 1;
    int end      = order_c ? -1 : ndims;
    last         = vector_bounds(subsizes[i + step], subsizes[i], sizes[i], old);
    size         = static_cast<std::ptrdiff_t>(sizes[i]) * sizes[i + step];
    displacement = starts[i] + static_cast<std::ptrdiff_t>(starts[i + step]) * sizes[i];
    for (i += 2 * step; i != end; i += step) {
      last = hvector_bounds(subsizes[i], 1, size * extent, last);
      displacement += size * starts[i];
      size *= sizes[i];
    }
  }
  Composer made;
  made.add(last, 1, displacement * extent, size * extent);
  return resized_bounds(made.made(), 0, size * extent);
}

} // namespace bxisim::mw
