#pragma once
// Commands that draw what runs produced: `bxisim trace render DIR -o timeline.png` (a timeline of
// `bxisim run --trace DIR`) and `bxisim plot CSV... [-o DIR]` (benchmark CSVs as PNG plots).

#include <CLI/CLI.hpp>

namespace bxisim::runtime
{

void add_trace_command(CLI::App& app, int& exit_code);
void add_plot_command(CLI::App& app, int& exit_code);

} // namespace bxisim::runtime
