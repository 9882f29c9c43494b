#pragma once
// The libc functions bxisim interposes, reached past the interposer with dlsym(RTLD_NEXT): what the
// simulator itself and threads that are not ranks get.

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace bxisim::os
{

/** The next definition of `name` after the bxisim executable's, usually libc's. */
inline void* next_definition(const char* name)
{
  void* symbol = dlsym(RTLD_NEXT, name);
  if (symbol == nullptr) {
    std::fprintf(stderr, "bxisim: cannot find the C library's %s (%s)\n", name, dlerror());
    std::abort();
  }
  return symbol;
}

} // namespace bxisim::os

/** The C library's end of a failed check of its fortified functions ("buffer overflow detected", then abort), for
 * the checking forms (`__read_chk`...) that -D_FORTIFY_SOURCE makes of the functions bxisim interposes. */
extern "C" [[noreturn]] void __chk_fail() noexcept;

/** The libc function `name`, resolved once. */
#define BXISIM_REAL(name)                                                                                              \
  ([]() {                                                                                                              \
    static auto* const function = reinterpret_cast<decltype(&::name)>(::bxisim::os::next_definition(#name));           \
    return function;                                                                                                   \
  }())
