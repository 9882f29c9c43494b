#include "CommandRunner.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace bxisim::test
{

CommandResult run_command(const std::string& command_line)
{
  std::string full = command_line + " 2>&1";
  FILE* pipe       = popen(full.c_str(), "r");
  if (pipe == nullptr)
    throw std::runtime_error("cannot run: " + command_line);
  CommandResult result{-1, {}};
  std::array<char, 4096> buffer;
  size_t count;
  while ((count = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.output.append(buffer.data(), count);
  int status       = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

CommandResult run_bxisim(const std::string& arguments)
{
  return run_command(std::string("'") + BXISIM_BINARY + "' " + arguments);
}

std::string temporary_path(const std::string& name)
{
  auto folder = std::filesystem::temp_directory_path() / ("bxisim-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(folder);
  return (folder / name).string();
}

} // namespace bxisim::test
