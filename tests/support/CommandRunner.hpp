#pragma once
// Runs a command line the way a user would and captures what it printed and its exit code.

#include <string>

namespace bxisim::test
{

struct CommandResult {
  int exit_code;
  std::string output; // stdout and stderr, interleaved
};

CommandResult run_command(const std::string& command_line);

/** Runs the bxisim executable of this build with `arguments` (already shell-quoted). */
CommandResult run_bxisim(const std::string& arguments);

/** A fresh file path under the test's temporary folder. */
std::string temporary_path(const std::string& name);

} // namespace bxisim::test
