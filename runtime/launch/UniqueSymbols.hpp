#pragma once
// C++ compilers give the static locals of inline functions and templates, and the static members of class
// templates, the binding STB_GNU_UNIQUE: the dynamic loader then makes every object it loads use the first
// definition it met, across RTLD_LOCAL loads too. Every rank's copy of a program would share them (miniVite's
// ranks drew their random graph from one generator, a function-local `thread_local static`, and built another
// graph than natively). A rank's copy whose such symbols are bound STB_GLOBAL keeps its own, as a process does.

#include <cstdint>
#include <string>
#include <vector>

namespace bxisim::runtime
{

/** A byte of an ELF file to write: the st_info of a symbol, rebound. */
struct SymbolRebinding {
  uint64_t offset    = 0;
  unsigned char info = 0;
};

/** The symbols of the dynamic symbol table of the ELF file at `path` bound STB_GNU_UNIQUE, with STB_GLOBAL
 * instead (empty for a C program, or a file without section headers). */
std::vector<SymbolRebinding> unique_symbols_rebound_global(const std::string& path);

/** Writes `rebindings` into `copy`, a copy of the file they were found in. Throws config::ConfigError when the
 * copy cannot be written. */
void rebind_symbols(const std::string& copy, const std::vector<SymbolRebinding>& rebindings);

} // namespace bxisim::runtime
