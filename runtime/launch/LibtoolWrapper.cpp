#include "LibtoolWrapper.hpp"

#include "HostCommand.hpp"
#include "StartAgain.hpp"
#include "config/ConfigError.hpp"

#include <boost/algorithm/string.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace bxisim::runtime
{

namespace
{
constexpr std::string_view kWrapperMark = " - temporary wrapper script for ";
// Set (to "script=program") before bxisim starts itself again with the script's LD_LIBRARY_PATH: the new start runs
// the program without asking the script again (which would add its folders to LD_LIBRARY_PATH once more).
constexpr const char* kUnwrapped = "BXISIM_LIBTOOL_PROGRAM";

std::string head_of(const std::string& path)
{
  std::ifstream file(path, std::ios::binary);
  std::string head(1024, '\0');
  file.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(file.gcount()));
  return head;
}

config::ConfigError cannot_ask(const std::string& path, const std::string& why)
{
  return config::ConfigError(fmt::format(
      "{} is libtool's wrapper script of a program linked to libraries of its project that are not installed; asking "
      "it which program it starts failed ({}). Run bxisim through the project's libtool: `libtool --mode=execute "
      "bxisim run [options] {} [arguments]`, or install the project and run the installed program.",
      path, why, path));
}
} // namespace

bool is_libtool_wrapper(const std::string& path)
{
  std::string head = head_of(path);
  return head.rfind("#!", 0) == 0 && head.find(kWrapperMark) != std::string::npos;
}

std::string libtool_wrapped_program(const std::string& path)
{
  std::string script = std::filesystem::absolute(path).lexically_normal().string();
  if (const char* unwrapped = std::getenv(kUnwrapped)) {
    std::string known = unwrapped;
    if (boost::starts_with(known, script + "="))
      return known.substr(script.size() + 1);
  }
  // The interpreter the script names; libtool's scripts are Bourne shell.
  std::string head = head_of(path);
  std::string interpreter =
      boost::trim_copy(head.substr(2, head.find_first_of(" \n", head.find_first_not_of(' ', 2)) - 2));
  if (interpreter.empty() || interpreter.front() != '/')
    interpreter = "/bin/sh";
  std::string ask          = "libtool_execute_magic='%%%MAGIC variable%%%'; file=\"$1\"; ECHO='printf %s\\n'; "
                             ". \"$1\" 1>&2 </dev/null && printf '%s\\n%s\\n' \"$progdir/$program\" \"$LD_LIBRARY_PATH\"";
  HostCommandResult result = run_host_command({interpreter, "-c", ask, "bxisim", script}, false);
  if (not result.started)
    throw cannot_ask(path, std::strerror(errno));
  std::vector<std::string> lines;
  boost::split(lines, result.output, boost::is_any_of("\n"));
  if (not result.succeeded || lines.size() < 2)
    throw cannot_ask(path, fmt::format("{} ended with status {}", interpreter, result.status));
  std::string program = lines[0];
  if (not std::filesystem::is_regular_file(program))
    throw cannot_ask(path, fmt::format("it names {}, which does not exist: build it (make)", program));
  setenv("LD_LIBRARY_PATH", lines[1].c_str(), 1);
  setenv(kUnwrapped, (script + "=" + program).c_str(), 1);
  start_again();
  throw cannot_ask(path,
                   fmt::format("bxisim could not start again with its LD_LIBRARY_PATH: {}", std::strerror(errno)));
}

} // namespace bxisim::runtime
