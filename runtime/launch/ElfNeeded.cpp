#include "ElfNeeded.hpp"

#include "ElfFile.hpp"
#include "config/ConfigError.hpp"

#include <fmt/format.h>

namespace bxisim::runtime
{

std::vector<std::string> elf_needed(const std::string& path)
{
  auto damaged = [&path] {
    return config::ConfigError(fmt::format("{}: not a readable 64-bit ELF file, or damaged.", path));
  };
  auto file = ElfFile::read(path);
  if (not file)
    throw damaged();
  auto entries = file->dynamic_entries();
  if (not entries)
    throw damaged();
  std::vector<uint64_t> names;
  std::optional<uint64_t> strings;
  for (const auto& entry : *entries)
    if (entry.d_tag == DT_NEEDED)
      names.push_back(entry.d_un.d_val);
    else if (entry.d_tag == DT_STRTAB)
      strings = file->file_offset(entry.d_un.d_ptr); // by its address once loaded: found in the file
  if (names.empty())
    return {};
  if (not strings)
    throw damaged();
  std::vector<std::string> needed;
  for (uint64_t name : names) {
    auto text = file->string_at(*strings + name);
    if (not text)
      throw damaged();
    needed.emplace_back(*text);
  }
  return needed;
}

} // namespace bxisim::runtime
