#include "RunFolder.hpp"

#include "RunFolderOwner.hpp"

#include "config/ConfigError.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>

namespace bxisim::runtime
{

RunFolder::RunFolder(bool keep) : keep_(keep)
{
  const char* tmpdir = std::getenv("TMPDIR");
  std::string where  = tmpdir != nullptr ? fmt::format("TMPDIR={}", tmpdir) : std::string("/tmp");
  std::error_code error;
  auto base = std::filesystem::temp_directory_path(error);
  if (error)
    throw config::ConfigError(fmt::format("the temporary folder ({}) cannot be used: {}. bxisim puts the ranks' "
                                          "copies of the program there: set TMPDIR to a writable folder.",
                                          where, error.message()));
  remove_folders_of_dead_runs(base);
  std::string pattern = (base / "bxisim-run-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw config::ConfigError(fmt::format("cannot create a temporary folder {}: {}. Set TMPDIR to a writable folder.",
                                          pattern, std::strerror(errno)));
  path_ = pattern;
  if (not keep_) { // a kept folder is the user's to remove
    std::string owner = mark_run_folder_owner(path_);
    if (not owner.empty())
      add_file(owner);
  }
}

RunFolder::~RunFolder()
{
  if (keep_)
    return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string RunFolder::sub_folder(const std::string& name)
{
  std::string folder = path_ + "/" + name;
  if (mkdir(folder.c_str(), 0700) == 0)
    sub_folders_.push_back(folder);
  else if (errno != EEXIST)
    throw config::ConfigError(fmt::format("cannot create {}: {}", folder, std::strerror(errno)));
  return folder;
}

void RunFolder::copy_file(const std::string& original, const std::string& destination)
{
  std::error_code error;
  std::filesystem::copy_file(original, destination, std::filesystem::copy_options::overwrite_existing, error);
  if (error)
    throw config::ConfigError(fmt::format("cannot copy {} to {}: {}. Free space in the temporary folder or set TMPDIR "
                                          "to another one.",
                                          original, destination, error.message()));
}

std::vector<std::string> RunFolder::folders() const
{
  std::vector<std::string> result = sub_folders_;
  result.push_back(path_);
  return result;
}

} // namespace bxisim::runtime
