#pragma once
// `bxisim run -n N [--ppn P] [--map-by node|core] ./program arguments...`

#include "CommonOptions.hpp"

#include <CLI/CLI.hpp>

namespace bxisim::runtime
{

void add_run_command(CLI::App& app, CommonOptions& common, int& exit_code);

} // namespace bxisim::runtime
