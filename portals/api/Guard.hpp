/* Every C entry point runs its C++ body through guarded(): an exception (a bug, or an allocation
 * failure) becomes a logged PTL_FAIL instead of unwinding through C code. */
#ifndef BXISIM_PORTALS_API_GUARD_HPP
#define BXISIM_PORTALS_API_GUARD_HPP

#include "portals/core/Core.hpp"

#include <exception>

namespace bxisim::portals
{

void logApiFailure(const char* function, const char* what);

template <typename F>
int guarded(const char* function, F&& body) noexcept
{
  try {
    return body(Core::instance());
  } catch (const std::exception& e) {
    logApiFailure(function, e.what());
  } catch (...) {
    logApiFailure(function, "unknown exception");
  }
  return PTL_FAIL;
}

} // namespace bxisim::portals

#endif
