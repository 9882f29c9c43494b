#include "PredefinedNames.hpp"

#include <cstring>
#include <utility>

namespace bxisim::mw
{

namespace
{
/** MPI's names; where the standard gives a datatype two (MPI_LONG_LONG_INT and MPI_LONG_LONG, MPI_C_COMPLEX and
 *  MPI_C_FLOAT_COMPLEX: one handle in mpi.h), the one OpenMPI and MPICH answer. MPI_REAL2, MPI_COMPLEX4 and
 *  MPI_LOGICAL16 act as MPI_DATATYPE_NULL (no back end has them): not named. */
const std::pair<MPI_Datatype, const char*> kNames[] = {
    {MPI_AINT, "MPI_AINT"},
    {MPI_COUNT, "MPI_COUNT"},
    {MPI_OFFSET, "MPI_OFFSET"},
    {MPI_PACKED, "MPI_PACKED"},
    {MPI_SHORT, "MPI_SHORT"},
    {MPI_INT, "MPI_INT"},
    {MPI_LONG, "MPI_LONG"},
    {MPI_LONG_LONG, "MPI_LONG_LONG_INT"},
    {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT"},
    {MPI_UNSIGNED, "MPI_UNSIGNED"},
    {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG"},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG"},
    {MPI_FLOAT, "MPI_FLOAT"},
    {MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX"},
    {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX"},
    {MPI_DOUBLE, "MPI_DOUBLE"},
    {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"},
    {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX"},
    {MPI_LOGICAL, "MPI_LOGICAL"},
    {MPI_INTEGER, "MPI_INTEGER"},
    {MPI_REAL, "MPI_REAL"},
    {MPI_COMPLEX, "MPI_COMPLEX"},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION"},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX"},
    {MPI_CHARACTER, "MPI_CHARACTER"},
    {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"},
    {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX"},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX"},
    {MPI_FLOAT_INT, "MPI_FLOAT_INT"},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT"},
    {MPI_LONG_INT, "MPI_LONG_INT"},
    {MPI_2INT, "MPI_2INT"},
    {MPI_SHORT_INT, "MPI_SHORT_INT"},
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT"},
    {MPI_2REAL, "MPI_2REAL"},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION"},
    {MPI_2INTEGER, "MPI_2INTEGER"},
    {MPI_C_BOOL, "MPI_C_BOOL"},
    {MPI_CXX_BOOL, "MPI_CXX_BOOL"},
    {MPI_WCHAR, "MPI_WCHAR"},
    {MPI_INT8_T, "MPI_INT8_T"},
    {MPI_UINT8_T, "MPI_UINT8_T"},
    {MPI_CHAR, "MPI_CHAR"},
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR"},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR"},
    {MPI_BYTE, "MPI_BYTE"},
    {MPI_INT16_T, "MPI_INT16_T"},
    {MPI_UINT16_T, "MPI_UINT16_T"},
    {MPI_INT32_T, "MPI_INT32_T"},
    {MPI_UINT32_T, "MPI_UINT32_T"},
    {MPI_INT64_T, "MPI_INT64_T"},
    {MPI_UINT64_T, "MPI_UINT64_T"},
    {MPI_LOGICAL1, "MPI_LOGICAL1"},
    {MPI_INTEGER1, "MPI_INTEGER1"},
    {MPI_LOGICAL2, "MPI_LOGICAL2"},
    {MPI_INTEGER2, "MPI_INTEGER2"},
    {MPI_LOGICAL4, "MPI_LOGICAL4"},
    {MPI_INTEGER4, "MPI_INTEGER4"},
    {MPI_REAL4, "MPI_REAL4"},
    {MPI_LOGICAL8, "MPI_LOGICAL8"},
    {MPI_INTEGER8, "MPI_INTEGER8"},
    {MPI_REAL8, "MPI_REAL8"},
    {MPI_COMPLEX8, "MPI_COMPLEX8"},
    {MPI_INTEGER16, "MPI_INTEGER16"},
    {MPI_REAL16, "MPI_REAL16"},
    {MPI_COMPLEX16, "MPI_COMPLEX16"},
    {MPI_COMPLEX32, "MPI_COMPLEX32"},
};
} // namespace

bool PredefinedNames::answer(MPI_Datatype type, char* name, int* length) const
{
  if (renamed_.count(reinterpret_cast<std::uintptr_t>(type)) != 0)
    return false;
  for (const auto& [predefined, mpi_name] : kNames)
    if (predefined == type) {
      std::strcpy(name, mpi_name);
      *length = static_cast<int>(std::strlen(mpi_name));
      return true;
    }
  return false;
}

} // namespace bxisim::mw
