#pragma once
// C++ compilers give the static locals of inline functions and templates, and the static members of class
// templates, the binding STB_GNU_UNIQUE: the dynamic loader then makes every object it loads use the first
// definition it met, across RTLD_LOCAL loads too. Every rank's copy of a program would share them (miniVite's
// ranks drew their random graph from one generator, a function-local `thread_local static`, and built another
// graph than natively). A rank's copy whose such symbols are bound STB_GLOBAL keeps its own, as a process does.

#include "CopyEdits.hpp"
#include "ElfFile.hpp"

#include <vector>

namespace bxisim::runtime
{

/** The st_info bytes that bind the symbols of `file`'s dynamic symbol table bound STB_GNU_UNIQUE STB_GLOBAL instead
 * (none for a C program, or a file without section headers). */
std::vector<ByteEdit> unique_symbols_rebound_global(const ElfFile& file);

} // namespace bxisim::runtime
