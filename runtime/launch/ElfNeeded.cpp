#include "ElfNeeded.hpp"

#include "config/ConfigError.hpp"

#include <fmt/format.h>

#include <cstring>
#include <elf.h>
#include <fstream>
#include <optional>

namespace bxisim::runtime
{

std::string read_file(const std::string& path)
{
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (not file)
    return {};
  std::string image(static_cast<size_t>(file.tellg()), '\0');
  file.seekg(0);
  if (not file.read(image.data(), static_cast<std::streamsize>(image.size())))
    return {};
  return image;
}

std::vector<std::string> elf_needed(const std::string& path)
{
  std::string image = read_file(path);
  auto damaged      = [&path] {
    return config::ConfigError(fmt::format("{}: not a readable 64-bit ELF file, or damaged.", path));
  };
  Elf64_Ehdr header{};
  if (not read_at(image, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64)
    throw damaged();
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  for (size_t i = 0; i < segments.size(); ++i)
    if (not read_at(image, header.e_phoff + i * header.e_phentsize, segments[i]))
      throw damaged();
  // The dynamic section names the string table by its address once loaded: find it in the file.
  auto file_offset = [&segments](Elf64_Addr address) -> std::optional<uint64_t> {
    for (const auto& segment : segments)
      if (segment.p_type == PT_LOAD && address >= segment.p_vaddr && address - segment.p_vaddr < segment.p_filesz)
        return segment.p_offset + (address - segment.p_vaddr);
    return std::nullopt;
  };
  std::vector<uint64_t> names;
  std::optional<uint64_t> strings;
  for (const auto& segment : segments) {
    if (segment.p_type != PT_DYNAMIC)
      continue;
    for (uint64_t at = segment.p_offset; at + sizeof(Elf64_Dyn) <= segment.p_offset + segment.p_filesz;
         at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn entry{};
      if (not read_at(image, at, entry))
        throw damaged();
      if (entry.d_tag == DT_NULL)
        break;
      if (entry.d_tag == DT_NEEDED)
        names.push_back(entry.d_un.d_val);
      else if (entry.d_tag == DT_STRTAB)
        strings = file_offset(entry.d_un.d_ptr);
    }
  }
  if (names.empty())
    return {};
  if (not strings)
    throw damaged();
  std::vector<std::string> needed;
  for (uint64_t name : names) {
    uint64_t start = *strings + name;
    if (start >= image.size())
      throw damaged();
    auto end = image.find('\0', start);
    if (end == std::string::npos)
      throw damaged();
    needed.push_back(image.substr(start, end - start));
  }
  return needed;
}

} // namespace bxisim::runtime
