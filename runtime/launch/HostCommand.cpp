#include "HostCommand.hpp"

#include <boost/algorithm/string/replace.hpp>

#include <array>
#include <cstdio>
#include <sys/wait.h>

namespace bxisim::runtime
{

namespace
{
std::string shell_quoted(const std::string& text)
{
  return "'" + boost::replace_all_copy(text, "'", "'\\''") + "'";
}
} // namespace

HostCommandResult run_host_command(const std::vector<std::string>& arguments, bool with_errors)
{
  std::string command;
  for (const auto& argument : arguments)
    command += (command.empty() ? "" : " ") + shell_quoted(argument);
  if (with_errors)
    command += " 2>&1";
  HostCommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr)
    return result;
  result.started = true;
  std::array<char, 4096> buffer;
  size_t count;
  while ((count = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.output.append(buffer.data(), count);
  result.status    = pclose(pipe);
  result.succeeded = WIFEXITED(result.status) && WEXITSTATUS(result.status) == 0;
  return result;
}

} // namespace bxisim::runtime
