#pragma once
// bxisim starting itself again, with the same command line, before anything of the run exists: for what the dynamic
// loader reads only as a process starts (GLIBC_TUNABLES for static TLS, LD_LIBRARY_PATH for a libtool program's
// libraries). Under valgrind or a debugger, /proc/self/exe is theirs: they then see the second start as a new program.

#include <string>

namespace bxisim::runtime
{

/** Replaces this process by a new start of bxisim with the same arguments and the current environment, from the
 *  folder it started in; returns only when that fails (errno says why). */
void start_again();

/** The folder bxisim started in, before `run --wdir` left it: the arguments are read from there again. */
void note_start_folder(const std::string& folder);

} // namespace bxisim::runtime
