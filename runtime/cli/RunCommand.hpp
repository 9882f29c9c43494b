#pragma once
// `bxisim run -n N [--ppn P] [--map-by node|core] ./program arguments...`

#include "CommonOptions.hpp"

#include <CLI/CLI.hpp>

namespace bxisim::runtime
{

/** Whose manners a run's output has when no option says: bxisim's, or mpirun's (for bxirun, which tools and test
 *  harnesses start in mpirun's place and whose output they compare or check for silence). */
enum class RunManners {
  Bxisim, // each line prefixed by its rank, the summary table on stderr, summary.json written
  Mpirun, // the ranks' output as they write it, nothing else on success (--tag-output, --summary FILE bring them back)
};

void add_run_command(CLI::App& app, CommonOptions& common, int& exit_code, RunManners manners);

/**
 * mpirun's and smpirun's spellings among `run`'s options (before the program) become bxisim's: `-np N` (which CLI11
 * would read as `-n p`), `--np`, `--n` are `-n N`; `-N P`, `--npernode P`, `--map-by ppr:P:node` are `--ppn P`;
 * `--map-by slot` is `--map-by core`. An option that is neither (`--hostfile`) is refused there, with bxisim's way of
 * doing the same, even before `-n`. The program's own arguments are left alone. Call before parsing, inside its
 * handling of config::ConfigError.
 */
void accept_mpirun_spellings(const CLI::App& app, int argc, char** argv);

} // namespace bxisim::runtime
