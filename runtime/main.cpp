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

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string_view>
#include <system_error>

namespace
{

bool is_regular_file(int descriptor)
{
  struct stat status {
  };
  return fstat(descriptor, &status) == 0 && S_ISREG(status.st_mode);
}

// libgfortran, which bxisim links for the Fortran bindings, decides as it loads (before main) to buffer the Fortran
// units preconnected to stdout and stderr when those are regular files; what ranks printed then left its buffer only at
// exit, after bxisim had given the descriptors back: unprefixed, after the summary, and never in --output-dir's files.
// Unbuffered, a Fortran record goes out as it is written, to the rank that wrote it (as when bxisim's stdout is a
// terminal or a pipe). libgfortran reads GFORTRAN_UNBUFFERED_PRECONNECTED as it loads, and the C library's own start
// resets the environment after the executable's earliest code (its preinit array): a run whose output goes to a file
// starts bxisim again with it set. A value the user set stands.
void unbuffer_fortran_output(int argc, char** argv, bool as_bxirun)
{
  bool runs = as_bxirun || (argc >= 2 && std::string_view(argv[1]) == "run");
  if (not runs || std::getenv("GFORTRAN_UNBUFFERED_PRECONNECTED") != nullptr ||
      not(is_regular_file(STDOUT_FILENO) || is_regular_file(STDERR_FILENO)))
    return;
  setenv("GFORTRAN_UNBUFFERED_PRECONNECTED", "y", 1);
  execv("/proc/self/exe", argv); // returns only if it failed: the run goes on, Fortran output buffered
}

std::string version_text()
{
  return fmt::format("bxisim {} (SimGrid {}.{}, SystemC {})", BXISIM_VERSION, SIMGRID_VERSION_MAJOR,
                     SIMGRID_VERSION_MINOR, BXISIM_SYSTEMC_VERSION);
}

/** CLI11's message, plus a suggestion when the mistake looks like a mistyped sub-command. */
int report_bad_command_line(const CLI::App& app, const CLI::ParseError& error, int argc, char** argv,
                            std::string_view help_command)
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
  std::cerr << "bxisim: " << error.what() << hint << "\nRun `" << help_command << "` for the usage.\n";
  return bxisim::config::kUsageExitCode;
}

} // namespace

int main(int argc, char** argv)
{
  // bxirun (a link to bxisim) is `bxisim run`: one executable where tools take an MPI launcher's path (CMake's
  // MPIEXEC_EXECUTABLE, autotools test scripts' TESTMPIRUN="bxirun -n NP").
  std::string_view name = argv[0];
  bool as_bxirun        = name.substr(name.rfind('/') + 1) == "bxirun";
  unbuffer_fortran_output(argc, argv, as_bxirun); // may start again, with these arguments
  std::vector<char*> arguments(argv, argv + argc);
  char run[]        = "run";
  bool asks_version = argc == 2 && std::string_view(argv[1]) == "--version"; // mpirun --version, as CMake asks it
  if (as_bxirun && not asks_version)
    arguments.insert(arguments.begin() + 1, run);
  argc = static_cast<int>(arguments.size());
  arguments.push_back(nullptr);
  argv = arguments.data();
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
  bxisim::runtime::add_run_command(
      app, common, exit_code, as_bxirun ? bxisim::runtime::RunManners::Mpirun : bxisim::runtime::RunManners::Bxisim);
  bxisim::runtime::add_trace_command(app, exit_code);
  bxisim::runtime::add_plot_command(app, exit_code);

  try {
    bxisim::runtime::accept_mpirun_spellings(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) // --help, --version
      return app.exit(error);
    return report_bad_command_line(app, error, argc, argv, as_bxirun ? "bxirun --help" : "bxisim --help");
  } catch (const bxisim::config::ConfigError& error) {
    std::cerr << "bxisim: " << error.what() << "\n";
    return bxisim::config::kUsageExitCode;
  } catch (const std::system_error& error) {
    // fmt's writes throw when bxisim's output is closed (`bxisim run ... 2>&1 | head` closes it before the summary)
    if (error.code().value() != EPIPE)
      throw;
    return 128 + SIGPIPE; // as when the signal stops a run (docs/running.md, exit codes)
  }
  return exit_code;
}
