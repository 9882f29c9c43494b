// The `bxisim` command.

#include "cli/CommonOptions.hpp"
#include "cli/DrawCommands.hpp"
#include "cli/ParamsCommand.hpp"
#include "cli/PlatformCommand.hpp"
#include "cli/RunCommand.hpp"
#include "config/ConfigError.hpp"
#include "config/Spelling.hpp"
#include "os/SimulatorDescriptors.hpp"

#include <simgrid/version.h>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>

namespace
{

std::string version_text()
{
  return fmt::format("bxisim {} (SimGrid {}.{}, SystemC {})", BXISIM_VERSION, SIMGRID_VERSION_MAJOR,
                     SIMGRID_VERSION_MINOR, BXISIM_SYSTEMC_VERSION);
}

/** CLI11's message, plus a suggestion when the mistake looks like a mistyped sub-command. */
int report_bad_command_line(const CLI::App& app, const CLI::ParseError& error, int argc, char** argv)
{
  std::string hint;
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands({}))
    names.push_back(sub->get_name());
  std::vector<std::string_view> views(names.begin(), names.end());
  for (int i = 1; i < argc && hint.empty(); ++i) {
    if (std::find(names.begin(), names.end(), argv[i]) != names.end())
      break; // a sub-command was given: the mistake is in its options
    if (argv[i][0] != '-')
      hint = bxisim::config::did_you_mean(argv[i], views);
  }
  std::cerr << "bxisim: " << error.what() << hint << "\nRun `bxisim --help` for the usage.\n";
  return bxisim::config::kUsageExitCode;
}

} // namespace

int main(int argc, char** argv)
{
  bxisim::os::prepare_descriptors_for_ranks(); // the ranks' descriptors are numbered from 3 in every run
  CLI::App app{"bxisim: multi-level co-design simulator of the BXI interconnect", "bxisim"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  app.fallthrough();

  bxisim::runtime::CommonOptions common;
  common.declare(app);
  int exit_code = 1;
  bxisim::runtime::add_platform_command(app, common, exit_code);
  bxisim::runtime::add_params_command(app, common, exit_code);
  bxisim::runtime::add_run_command(app, common, exit_code);
  bxisim::runtime::add_trace_command(app, exit_code);
  bxisim::runtime::add_plot_command(app, exit_code);

  bxisim::runtime::accept_mpirun_spellings(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) // --help, --version
      return app.exit(error);
    return report_bad_command_line(app, error, argc, argv);
  } catch (const bxisim::config::ConfigError& error) {
    std::cerr << "bxisim: " << error.what() << "\n";
    return bxisim::config::kUsageExitCode;
  }
  return exit_code;
}
