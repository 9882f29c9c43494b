#pragma once
// `bxisim platform show` and `bxisim platform export --xml`.

#include "CommonOptions.hpp"

#include <CLI/CLI.hpp>

namespace bxisim::runtime
{

void add_platform_command(CLI::App& app, const CommonOptions& common, int& exit_code);

} // namespace bxisim::runtime
