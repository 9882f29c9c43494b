#include "CopyCache.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

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
  std::error_code error;
  fs::path canonical = fs::canonical(library, error);
  if (limit_ <= 0 || root.empty() || error)
    return;
  size_ = fs::file_size(canonical, error);
  if (error)
    return;
  auto modified = fs::last_write_time(canonical, error);
  if (error)
    return;
  std::string identity = fmt::format("{}\n{}\n{}", canonical.string(), size_, modified.time_since_epoch().count());
  folder_              = fmt::format("{}/library-copies/{}-{:016x}", root, canonical.stem().string(), fnv1a(identity));
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
