#pragma once
// Programs of autotools projects before `make install`: libtool writes a shell script in place of a program linked to
// the project's own shared libraries (p4est's examples and tests), which sets LD_LIBRARY_PATH for them and starts the
// real program, .libs/NAME. mpirun runs that script in every process; `make check` gives it to mpiexec. bxisim loads
// programs into itself, so it asks the script what libtool's own `--mode=execute` asks (the script, sourced with
// libtool's magic variable, sets its variables and starts nothing) and runs that program with that LD_LIBRARY_PATH.
// The dynamic loader reads LD_LIBRARY_PATH as a process starts: bxisim starts itself again with it first.

#include <optional>
#include <string>

namespace bxisim::runtime
{

/** Whether the file at `path` is libtool's wrapper script of a program. */
bool is_libtool_wrapper(const std::string& path);

/**
 * The program libtool's wrapper script at `path` starts, once bxisim runs with the script's LD_LIBRARY_PATH (it may
 * start itself again to get it: StartAgain.hpp). Throws config::ConfigError when the script cannot say, naming
 * libtool's own way to run it.
 */
std::string libtool_wrapped_program(const std::string& path);

} // namespace bxisim::runtime
