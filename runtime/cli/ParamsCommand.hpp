#pragma once
// `bxisim params`: the parameter table, with the values this command line gives them.

#include "CommonOptions.hpp"

#include <CLI/CLI.hpp>

#include <ostream>

namespace bxisim::runtime
{

void add_params_command(CLI::App& app, const CommonOptions& common, int& exit_code);

/** docs/parameters.md, generated from the table. */
void print_parameters_markdown(std::ostream& out);

} // namespace bxisim::runtime
