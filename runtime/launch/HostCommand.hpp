#pragma once
// Commands bxisim runs on the host as it prepares a run (patchelf on the ranks' copies, a libtool wrapper script asked
// for its program): what they print, and whether they succeeded.

#include <string>
#include <vector>

namespace bxisim::runtime
{

struct HostCommandResult {
  bool started   = false; // the shell could be started
  bool succeeded = false; // and the command ended with exit code 0
  int status     = 0;     // as waitpid gives it
  std::string output;     // its standard output (and its standard error, when asked)
};

/** Runs the command whose words are `arguments` (quoted for the shell here), its standard error in its output when
 *  `with_errors`. */
HostCommandResult run_host_command(const std::vector<std::string>& arguments, bool with_errors);

} // namespace bxisim::runtime
