#include "ElfNeeded.hpp"

#include "ElfFile.hpp"
#include "config/ConfigError.hpp"

#include <boost/algorithm/string.hpp>
#include <fmt/format.h>

#include <filesystem>

namespace bxisim::runtime
{

namespace
{
config::ConfigError damaged(const std::string& path)
{
  return config::ConfigError(fmt::format("{}: not a readable 64-bit ELF file, or damaged.", path));
}

ElfFile read_elf(const std::string& path)
{
  auto file = ElfFile::read(path);
  if (not file)
    throw damaged(path);
  return std::move(*file);
}

std::vector<std::string> dynamic_strings(const ElfFile& file, const std::string& path, int64_t tag)
{
  auto found = file.dynamic_strings(tag);
  if (not found)
    throw damaged(path);
  return {found->begin(), found->end()};
}
} // namespace

std::vector<std::string> elf_dynamic_strings(const std::string& path, int64_t tag)
{
  return dynamic_strings(read_elf(path), path, tag);
}

std::vector<std::string> elf_needed(const std::string& path)
{
  return elf_dynamic_strings(path, DT_NEEDED);
}

ElfSearchPath elf_search_path(const std::string& path)
{
  std::string origin = std::filesystem::absolute(path).parent_path().string();
  auto folders       = [&origin](const std::vector<std::string>& lists) {
    std::vector<std::string> found;
    for (const auto& list : lists) {
      std::vector<std::string> parts;
      boost::split(parts, list, boost::is_any_of(":"));
      for (auto& part : parts) {
        boost::replace_all(part, "${ORIGIN}", origin);
        boost::replace_all(part, "$ORIGIN", origin);
        if (not part.empty())
          found.push_back(part);
      }
    }
    return found;
  };
  ElfFile file = read_elf(path);
  auto runpath = dynamic_strings(file, path, DT_RUNPATH);
  if (not runpath.empty())
    return {{}, folders(runpath)};
  return {folders(dynamic_strings(file, path, DT_RPATH)), {}}; // DT_RPATH counts only without DT_RUNPATH
}

} // namespace bxisim::runtime
