// OpenMPI 4.1's bounds of derived datatypes, computed without OpenMPI (middleware/TypeBounds.cpp). The expected
// values are what OpenMPI 4.1.4 answers at `--level message` (MPI_Type_get_extent, MPI_Type_get_true_extent),
// written here as the test's independent reference.

#include "middleware/TypeBounds.hpp"

#include <gtest/gtest.h>

using namespace bxisim::mw;

namespace
{
TypeBounds of(MPI_Datatype type)
{
  return *predefined_bounds(type);
}

TypeBounds pair_struct(MPI_Datatype first, std::ptrdiff_t second_at, MPI_Datatype second, int second_length = 1)
{
  TypeBounds a = of(first), b = of(second);
  return struct_bounds({{1, 0, &a, 1}, {second_length, second_at, &b, 2}});
}

void expect_bounds(const TypeBounds& bounds, std::ptrdiff_t lb, std::ptrdiff_t extent, std::ptrdiff_t true_lb,
                   std::ptrdiff_t true_extent)
{
  EXPECT_EQ(bounds.lb, lb);
  EXPECT_EQ(bounds.extent(), extent);
  EXPECT_EQ(bounds.true_lb, true_lb);
  EXPECT_EQ(bounds.true_extent(), true_extent);
}
} // namespace

TEST(TypeBounds, StructsArePaddedToTheirLargestAlignment)
{
  expect_bounds(pair_struct(MPI_INT, 4, MPI_CHAR), 0, 8, 0, 5);
  expect_bounds(pair_struct(MPI_DOUBLE, 8, MPI_CHAR), 0, 16, 0, 9);
  expect_bounds(pair_struct(MPI_SHORT, 2, MPI_CHAR), 0, 4, 0, 3);
  expect_bounds(pair_struct(MPI_LONG_DOUBLE, 16, MPI_CHAR), 0, 32, 0, 17);
  expect_bounds(pair_struct(MPI_DOUBLE_INT, 16, MPI_CHAR), 0, 24, 0, 17);
  expect_bounds(pair_struct(MPI_CHAR, 1, MPI_CHAR, 2), 0, 3, 0, 3);
  expect_bounds(of(MPI_DOUBLE_INT), 0, 16, 0, 12);
}

TEST(TypeBounds, AResizedPartsBoundsStick)
{
  TypeBounds resized = resized_bounds(of(MPI_INT), 0, 6);
  expect_bounds(resized, 0, 6, 0, 4);
  TypeBounds character = of(MPI_CHAR);
  expect_bounds(struct_bounds({{1, 0, &resized, 1}, {1, 6, &character, 2}}), 0, 6, 0, 7);
  TypeBounds shifted = resized_bounds(of(MPI_INT), -2, 6);
  expect_bounds(struct_bounds({{2, 4, &shifted, 1}, {1, 16, &character, 2}}), 2, 12, 4, 13);
}

TEST(TypeBounds, NegativeStridesGiveANegativeLowerBound)
{
  expect_bounds(vector_bounds(3, 3, -3, of(MPI_INT)), -24, 36, -24, 36);
  expect_bounds(hvector_bounds(3, 1, -8, of(MPI_DOUBLE)), -16, 24, -16, 24);
  expect_bounds(vector_bounds(2, 2, -1, of(MPI_INT)), -4, 12, -4, 12);
}

TEST(TypeBounds, IndexedTypesArePaddedLikeStructs)
{
  int lengths[]          = {1, 1};
  std::ptrdiff_t bytes[] = {0, 5};
  expect_bounds(hindexed_bounds(2, lengths, bytes, of(MPI_INT)), 0, 12, 0, 9);
  expect_bounds(hvector_bounds(2, 1, 5, of(MPI_INT)), 0, 12, 0, 9);
  expect_bounds(hindexed_block_bounds(2, 1, bytes, of(MPI_DOUBLE)), 0, 16, 0, 13);
  int backwards[] = {2, 0};
  expect_bounds(indexed_bounds(2, lengths, backwards, of(MPI_INT)), 0, 12, 0, 12);
}

TEST(TypeBounds, ASubarrayHasTheWholeArraysExtent)
{
  int sizes[] = {10}, subsizes[] = {3}, starts[] = {2};
  expect_bounds(subarray_bounds(1, sizes, subsizes, starts, true, of(MPI_INT)), 0, 40, 8, 12);
  int sizes2[] = {4, 5}, subsizes2[] = {2, 3}, starts2[] = {1, 1};
  expect_bounds(subarray_bounds(2, sizes2, subsizes2, starts2, true, of(MPI_DOUBLE)), 0, 160, 48, 64);
}

TEST(TypeBounds, VectorsOfPaddedStructsKeepThePadding)
{
  TypeBounds int_char = pair_struct(MPI_INT, 4, MPI_CHAR);
  expect_bounds(vector_bounds(2, 1, 2, int_char), 0, 24, 0, 21);
  expect_bounds(contiguous_bounds(2, int_char), 0, 16, 0, 13);
  expect_bounds(contiguous_bounds(0, int_char), 0, 0, 0, 0);
}
