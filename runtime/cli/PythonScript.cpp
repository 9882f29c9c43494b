#include "PythonScript.hpp"

#include "config/ConfigError.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace bxisim::runtime
{

namespace
{
std::string find_script(const std::string& name)
{
  std::error_code error;
  auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  std::vector<std::filesystem::path> places;
  if (not error)
    places.push_back(executable.parent_path().parent_path() / "share" / "bxisim" / name); // installed
  places.push_back(std::filesystem::path(BXISIM_SCRIPTS_SOURCE_DIR) / name);              // build tree
  for (const auto& place : places)
    if (std::filesystem::is_regular_file(place, error))
      return place.string();
  throw config::ConfigError(fmt::format("bxisim's script {} is missing (looked in {} and {}): reinstall bxisim.", name,
                                        places.front().string(), places.back().string()));
}
} // namespace

int run_python_script(const std::string& name, const std::vector<std::string>& arguments)
{
  std::string script = find_script(name);
  std::string python = BXISIM_PYTHON;
  if (access(python.c_str(), X_OK) != 0)
    throw config::ConfigError(fmt::format("{} is needed to draw pictures and is missing: install Debian's python3 and "
                                          "python3-matplotlib (scripts/setup does).",
                                          python));
  std::vector<std::string> words{python, script};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& word : words)
    argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  if (posix_spawn(&child, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw config::ConfigError(fmt::format("cannot start {}.", python));
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

} // namespace bxisim::runtime
