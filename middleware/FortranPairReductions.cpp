#include "FortranPairReductions.hpp"

namespace bxisim::mw
{
namespace
{
template <class Real, bool kMaxloc>
void pair_reduction(void* in, void* inout, int* length, void* /*datatype*/)
{
  const auto* from = static_cast<const Real*>(in);
  auto* into       = static_cast<Real*>(inout);
  for (int i = 0; i < *length; ++i) {
    Real value = from[2 * i];
    Real index = from[2 * i + 1];
    Real& kept = into[2 * i];
    if (kMaxloc ? value > kept : value < kept) {
      kept            = value;
      into[2 * i + 1] = index;
    } else if (value == kept && index < into[2 * i + 1]) {
      into[2 * i + 1] = index;
    }
  }
}
} // namespace

BackEndUserFunction fortran_pair_reduction(bool maxloc, bool doubles)
{
  if (doubles)
    return maxloc ? pair_reduction<double, true> : pair_reduction<double, false>;
  return maxloc ? pair_reduction<float, true> : pair_reduction<float, false>;
}

} // namespace bxisim::mw
