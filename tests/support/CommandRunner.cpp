#include "CommandRunner.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
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

namespace
{

/** The test process's scratch folder: removed when the process ends, unless a test failed (its files
 * then explain the failure) or BXISIM_KEEP_TEST_FILES is set. Without this every run of the suite
 * left hundreds of folders in /tmp. */
class ScratchFolder
{
 public:
  ScratchFolder()
      : owner_(getpid()), path_(std::filesystem::temp_directory_path() / ("bxisim-test-" + std::to_string(owner_)))
  {
    std::filesystem::create_directories(path_);
  }
  ScratchFolder(const ScratchFolder&)            = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  ~ScratchFolder()
  {
    if (getpid() != owner_) // a forked child (a death test) leaves the folder to its parent
      return;
    // gtest's UnitTest is never destroyed, so it can still be asked at static destruction.
    bool keep = std::getenv("BXISIM_KEEP_TEST_FILES") != nullptr || ::testing::UnitTest::GetInstance()->Failed();
    if (keep) {
      fprintf(stderr, "test files kept in %s\n", path_.c_str());
      return;
    }
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  pid_t owner_;
  std::filesystem::path path_;
};

} // namespace

std::string temporary_path(const std::string& name)
{
  static ScratchFolder folder;
  return (folder.path() / name).string();
}

} // namespace bxisim::test
