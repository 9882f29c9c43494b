// Error classes, codes and strings a program adds (MPI_Add_error_class, _code, _string), at the smpi level, which
// SMPI 3.32 lacks. Numbered from MPI_ERR_LASTCODE up as at the other levels (where OpenMPI's numbers are shifted
// there); MPI_Error_class and MPI_Error_string answer for them, MPI_LASTUSEDCODE gives the last one.

#include "SmpiRank.hpp"

#include <algorithm>
#include <cstring>

namespace bxisim::mw
{

int SmpiRank::Add_error_class(int* errorclass)
{
  if (errorclass == nullptr)
    return raised(MPI_COMM_WORLD, MPI_ERR_ARG);
  *errorclass                = ++last_added_code_;
  added_errors_[*errorclass] = {*errorclass, ""};
  return MPI_SUCCESS;
}

int SmpiRank::Add_error_code(int errorclass, int* errorcode)
{
  bool predefined_class = errorclass >= MPI_SUCCESS && errorclass <= MPI_ERR_LASTCODE;
  auto added            = added_errors_.find(errorclass);
  bool added_class      = added != added_errors_.end() && added->second.error_class == errorclass;
  if (errorcode == nullptr || not(predefined_class || added_class))
    return raised(MPI_COMM_WORLD, MPI_ERR_ARG);
  *errorcode                = ++last_added_code_;
  added_errors_[*errorcode] = {errorclass, ""};
  return MPI_SUCCESS;
}

int SmpiRank::Add_error_string(int errorcode, const char* string)
{
  auto added = added_errors_.find(errorcode);
  if (added == added_errors_.end() || string == nullptr) // predefined codes keep their strings (MPI-3.1 8.5)
    return raised(MPI_COMM_WORLD, MPI_ERR_ARG);
  added->second.text.assign(string, std::min(std::strlen(string), static_cast<size_t>(MPI_MAX_ERROR_STRING - 1)));
  return MPI_SUCCESS;
}

bool SmpiRank::answered_added_error(int errorcode, int* errorclass, char* string, int* resultlen) const
{
  auto added = added_errors_.find(errorcode);
  if (added == added_errors_.end())
    return false;
  if (errorclass != nullptr)
    *errorclass = added->second.error_class;
  if (string != nullptr && resultlen != nullptr) {
    std::memcpy(string, added->second.text.c_str(), added->second.text.size() + 1);
    *resultlen = static_cast<int>(added->second.text.size());
  }
  return true;
}

} // namespace bxisim::mw
