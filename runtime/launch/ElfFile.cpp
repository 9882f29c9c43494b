#include "ElfFile.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace bxisim::runtime
{

std::optional<ElfFile> ElfFile::read(const std::string& path)
{
  int descriptor = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (descriptor < 0)
    return std::nullopt;
  struct stat status {
  };
  bool regular = fstat(descriptor, &status) == 0 && S_ISREG(status.st_mode); // a folder opens too, and has no size
  auto size    = regular ? static_cast<uint64_t>(status.st_size) : 0;
  void* mapped = size >= sizeof(Elf64_Ehdr) ? mmap(nullptr, size, PROT_READ, MAP_PRIVATE, descriptor, 0) : MAP_FAILED;
  ::close(descriptor); // the mapping keeps the file
  if (mapped == MAP_FAILED)
    return std::nullopt;
  std::shared_ptr<const char> image(static_cast<const char*>(mapped),
                                    [size](const char* start) { munmap(const_cast<char*>(start), size); });
  Elf64_Ehdr header{};
  std::memcpy(&header, image.get(), sizeof header);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
    return std::nullopt;
  return ElfFile(std::move(image), size, header);
}

std::optional<std::vector<Elf64_Phdr>> ElfFile::segments() const
{
  std::vector<Elf64_Phdr> segments(header_.e_phnum);
  for (size_t i = 0; i < segments.size(); ++i)
    if (not read_at(header_.e_phoff + i * header_.e_phentsize, segments[i]))
      return std::nullopt;
  return segments;
}

std::optional<std::vector<Elf64_Shdr>> ElfFile::sections() const
{
  if (header_.e_shnum > 0 && header_.e_shentsize != sizeof(Elf64_Shdr))
    return std::nullopt;
  std::vector<Elf64_Shdr> sections(header_.e_shnum);
  for (size_t i = 0; i < sections.size(); ++i)
    if (not read_at(header_.e_shoff + i * sizeof(Elf64_Shdr), sections[i]))
      return std::nullopt;
  return sections;
}

std::optional<std::vector<Elf64_Dyn>> ElfFile::dynamic_entries() const
{
  auto segments = this->segments();
  if (not segments)
    return std::nullopt;
  std::vector<Elf64_Dyn> entries;
  for (const auto& segment : *segments) {
    if (segment.p_type != PT_DYNAMIC)
      continue;
    for (uint64_t at = segment.p_offset; at + sizeof(Elf64_Dyn) <= segment.p_offset + segment.p_filesz;
         at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn entry{};
      if (not read_at(at, entry))
        return std::nullopt;
      if (entry.d_tag == DT_NULL)
        break;
      entries.push_back(entry);
    }
  }
  return entries;
}

std::optional<std::vector<SymbolEntry>> ElfFile::symbols_of(uint32_t section_type) const
{
  auto sections = this->sections();
  if (not sections)
    return std::nullopt;
  std::vector<SymbolEntry> symbols;
  for (const auto& section : *sections) {
    if (section.sh_type != section_type || section.sh_entsize < sizeof(Elf64_Sym))
      continue;
    if (section.sh_link >= sections->size() || not holds(section.sh_offset, section.sh_size))
      return std::nullopt;
    const Elf64_Shdr& strings = (*sections)[section.sh_link];
    if (not holds(strings.sh_offset, strings.sh_size))
      return std::nullopt;
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= section.sh_size; at += section.sh_entsize) {
      SymbolEntry entry{{}, {}, section.sh_offset + at};
      read_at(entry.offset, entry.symbol);
      if (entry.symbol.st_name < strings.sh_size)
        entry.name =
            string_at(strings.sh_offset + entry.symbol.st_name, strings.sh_size - entry.symbol.st_name).value_or("");
      symbols.push_back(entry);
    }
  }
  return symbols;
}

std::optional<std::vector<std::string_view>> ElfFile::dynamic_strings(int64_t tag) const
{
  auto entries = dynamic_entries();
  if (not entries)
    return std::nullopt;
  std::vector<uint64_t> names;
  std::optional<uint64_t> strings;
  for (const auto& entry : *entries)
    if (entry.d_tag == tag)
      names.push_back(entry.d_un.d_val);
    else if (entry.d_tag == DT_STRTAB)
      strings = file_offset(entry.d_un.d_ptr); // by its address once loaded: found in the file
  std::vector<std::string_view> found;
  if (names.empty())
    return found;
  if (not strings)
    return std::nullopt;
  for (uint64_t name : names) {
    auto text = string_at(*strings + name);
    if (not text)
      return std::nullopt;
    found.push_back(*text);
  }
  return found;
}

std::optional<uint64_t> ElfFile::file_offset(Elf64_Addr address) const
{
  auto segments = this->segments();
  if (not segments)
    return std::nullopt;
  for (const auto& segment : *segments)
    if (segment.p_type == PT_LOAD && address >= segment.p_vaddr && address - segment.p_vaddr < segment.p_filesz)
      return segment.p_offset + (address - segment.p_vaddr);
  return std::nullopt;
}

std::optional<std::string_view> ElfFile::string_at(uint64_t offset, uint64_t limit) const
{
  if (offset >= size())
    return std::nullopt;
  uint64_t end    = size() - offset > limit ? offset + limit : size();
  const char* at  = image_.get() + offset;
  const char* nul = std::find(at, image_.get() + end, '\0');
  if (nul == image_.get() + end)
    return std::nullopt;
  return std::string_view(at, static_cast<size_t>(nul - at));
}

} // namespace bxisim::runtime
