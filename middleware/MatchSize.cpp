#include "MatchSize.hpp"

namespace bxisim::mw
{

std::vector<MPI_Datatype> matching_predefined_types(int typeclass, int size)
{
  struct Match {
    int typeclass;
    int size;
    MPI_Datatype fortran;
    MPI_Datatype c;
  };
  static const Match matches[] = {
      {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1, MPI_INT8_T},
      {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2, MPI_INT16_T},
      {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4, MPI_INT32_T},
      {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8, MPI_INT64_T},
      {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16, MPI_DATATYPE_NULL},
      {MPI_TYPECLASS_REAL, 4, MPI_REAL4, MPI_FLOAT},
      {MPI_TYPECLASS_REAL, 8, MPI_REAL8, MPI_DOUBLE},
      {MPI_TYPECLASS_REAL, 16, MPI_REAL16, MPI_LONG_DOUBLE},
      {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8, MPI_C_FLOAT_COMPLEX},
      {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16, MPI_C_DOUBLE_COMPLEX},
      {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32, MPI_C_LONG_DOUBLE_COMPLEX},
  };
  for (const Match& match : matches)
    if (match.typeclass == typeclass && match.size == size) {
      if (match.c == MPI_DATATYPE_NULL)
        return {match.fortran};
      return {match.fortran, match.c};
    }
  return {};
}

int f90_size(int typeclass, int precision, int range)
{
  int p = precision == MPI_UNDEFINED ? 0 : precision, r = range == MPI_UNDEFINED ? 0 : range;
  if (p < 0 || r < 0)
    return 0;
  if (typeclass == MPI_TYPECLASS_INTEGER) // gfortran's selected_int_kind
    return r <= 2 ? 1 : r <= 4 ? 2 : r <= 9 ? 4 : r <= 18 ? 8 : 0;
  int real = p <= 6 && r <= 37 ? 4 : p <= 15 && r <= 307 ? 8 : p <= 33 && r <= 4931 ? 16 : 0; // selected_real_kind
  return typeclass == MPI_TYPECLASS_COMPLEX ? 2 * real : real;
}

} // namespace bxisim::mw
