#include "CopyCache.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace bxisim::runtime
{

namespace
{
std::string cache_root()
{
  if (const char* dir = std::getenv("BXISIM_CACHE_DIR"); dir != nullptr && *dir != '\0')
    return dir;
  if (const char* dir = std::getenv("XDG_CACHE_HOME"); dir != nullptr && *dir != '\0')
    return fmt::format("{}/bxisim", dir);
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return fmt::format("{}/.cache/bxisim", home);
  return "";
}

/** A library's path, size and modification time, one a line: what a cache folder's copies are copies of. */
std::string identity_of(const fs::path& library, std::error_code& error)
{
  fs::path canonical = fs::canonical(library, error);
  if (error)
    return "";
  auto size = fs::file_size(canonical, error);
  if (error)
    return "";
  auto modified = fs::last_write_time(canonical, error);
  if (error)
    return "";
  return fmt::format("{}\n{}\n{}", canonical.string(), size, modified.time_since_epoch().count());
}

constexpr const char* kSourceFile = "source"; // in each folder: the identity of the library it copies

/** FNV-1a: the folder's name must be the same in every run, whatever the standard library's std::hash. */
std::uint64_t fnv1a(const std::string& text)
{
  std::uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : text)
    hash = (hash ^ c) * 1099511628211ULL;
  return hash;
}
} // namespace

CopyCache::CopyCache(const std::string& library, long long limit) : library_(library), limit_(limit)
{
  std::string root = cache_root();
  if (root.empty())
    return;
  remove_stale_folders(root);
  std::error_code error;
  identity_ = identity_of(library, error);
  if (limit_ <= 0 || error)
    return;
  size_   = fs::file_size(library, error);
  folder_ = fmt::format("{}/library-copies/{}-{:016x}", root, fs::canonical(library, error).stem().string(),
                        fnv1a(identity_));
  if (error)
    folder_.clear();
}

void CopyCache::remove_stale_folders(const std::string& root) const
{
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(root + "/library-copies", error)) {
    std::ifstream source(entry.path() / kSourceFile);
    std::string path, size, modified;
    bool stale = not(std::getline(source, path) && std::getline(source, size) && std::getline(source, modified));
    if (not stale) {
      std::error_code gone;
      stale = identity_of(path, gone) != fmt::format("{}\n{}\n{}", path, size, modified);
    }
    // A run still using the copies keeps them: files it has loaded live on until it ends.
    std::error_code ignored;
    if (stale && entry.is_directory(ignored))
      fs::remove_all(entry.path(), ignored);
  }
}

std::string CopyCache::copy(long long index)
{
  if (folder_.empty() || index >= limit_)
    return "";
  std::string path = fmt::format("{}/copy-{}{}", folder_, index, fs::path(library_).extension().string());
  std::error_code error;
  if (fs::file_size(path, error) == size_ && not error)
    return path;
  // A whole file or none: written aside, then renamed (another run may be making the same copy).
  std::string partial = fmt::format("{}.partial-{}", path, getpid());
  fs::create_directories(folder_, error);
  if (not error && not fs::exists(fs::path(folder_) / kSourceFile, error)) {
    std::ofstream(fs::path(folder_) / kSourceFile) << identity_ << '\n';
  }
  if (not error)
    fs::copy_file(library_, partial, fs::copy_options::overwrite_existing, error);
  if (not error)
    fs::rename(partial, path, error);
  if (error) {
    why_ = fmt::format("{}: {}", folder_, error.message());
    std::error_code ignored;
    fs::remove(partial, ignored);
    folder_.clear();
    return "";
  }
  return path;
}

} // namespace bxisim::runtime
