#pragma once
// `bxisim run -n N [--ppn P] [--map-by node|core] ./program arguments...`

#include "CommonOptions.hpp"

#include <CLI/CLI.hpp>

namespace bxisim::runtime
{

void add_run_command(CLI::App& app, CommonOptions& common, int& exit_code);

/**
 * mpirun's and smpirun's `-np N` among `run`'s options (before the program) becomes `-n N`: CLI11
 * would read it as `-n p`. The program's own arguments are left alone. Call before parsing.
 */
void accept_mpirun_spellings(const CLI::App& app, int argc, char** argv);

} // namespace bxisim::runtime
