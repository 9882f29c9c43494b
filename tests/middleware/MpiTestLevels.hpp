#pragma once
// The levels the MPI tests run at in this build: BXISIM_MPI_TEST_LEVELS, a comma-separated list that
// CMake defines for each MPI test target (smpi, and message and cycle when bxisim's OpenMPI is built).

#include <sstream>
#include <string>
#include <vector>

namespace bxisim::test
{

inline std::vector<std::string> mpi_test_levels()
{
  std::vector<std::string> result;
  std::stringstream list(BXISIM_MPI_TEST_LEVELS);
  for (std::string level; std::getline(list, level, ',');)
    result.push_back(level);
  return result;
}

} // namespace bxisim::test
