#include "CodePages.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 // Linux 5.14; older kernels answer EINVAL and nothing is done
#endif

namespace bxisim::os
{

namespace
{
const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));

/** The pages [first, last) a loaded segment occupies. */
std::pair<uintptr_t, uintptr_t> segment_pages(ElfW(Addr) base, const ElfW(Phdr) & segment)
{
  return {(base + segment.p_vaddr) & ~(page - 1), (base + segment.p_vaddr + segment.p_memsz + page - 1) & ~(page - 1)};
}

/** MADV_POPULATE_READ on the segments that are mapped without write access (text and read-only data). */
void populate_segments(ElfW(Addr) base, const ElfW(Phdr) * headers, size_t count)
{
  for (size_t i = 0; i < count; ++i) {
    const auto& segment = headers[i];
    if (segment.p_type != PT_LOAD || (segment.p_flags & PF_W) != 0 || segment.p_memsz == 0)
      continue;
    auto [start, end] = segment_pages(base, segment);
    // Errors are harmless: an old kernel (EINVAL) leaves the first touches where they were.
    madvise(reinterpret_cast<void*>(start), end - start, MADV_POPULATE_READ);
  }
}
/** The ELF header of an object loaded with dlopen, and its load address; nullptr when it cannot be read. */
const ElfW(Ehdr) * elf_header_of(void* handle, ElfW(Addr) & base)
{
  link_map* map = nullptr;
  if (handle == nullptr || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr)
    return nullptr;
  // A shared object's first segment maps its ELF header, and the program headers with it.
  const auto* header = reinterpret_cast<const ElfW(Ehdr)*>(map->l_addr);
  if (header == nullptr || header->e_ident[EI_MAG0] != ELFMAG0 || header->e_ident[EI_MAG1] != ELFMAG1 ||
      header->e_ident[EI_MAG2] != ELFMAG2 || header->e_ident[EI_MAG3] != ELFMAG3)
    return nullptr;
  base = map->l_addr;
  return header;
}
} // namespace

void populate_loaded_code()
{
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void*) {
        populate_segments(info->dlpi_addr, info->dlpi_phdr, info->dlpi_phnum);
        return 0;
      },
      nullptr);
}

void populate_code_of(void* handle)
{
  ElfW(Addr) base = 0;
  if (const ElfW(Ehdr)* header = elf_header_of(handle, base))
    populate_segments(base, reinterpret_cast<const ElfW(Phdr)*>(base + header->e_phoff), header->e_phnum);
}

std::vector<std::pair<uintptr_t, uintptr_t>> code_ranges_of(void* handle)
{
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  ElfW(Addr) base          = 0;
  const ElfW(Ehdr)* header = elf_header_of(handle, base);
  if (header == nullptr)
    return ranges;
  const auto* segments = reinterpret_cast<const ElfW(Phdr)*>(base + header->e_phoff);
  for (size_t i = 0; i < header->e_phnum; ++i)
    if (segments[i].p_type == PT_LOAD && (segments[i].p_flags & PF_X) != 0)
      ranges.emplace_back(base + segments[i].p_vaddr, base + segments[i].p_vaddr + segments[i].p_memsz);
  return ranges;
}

namespace
{
/** Whether the loader wrote into the object's read-only segments (DT_TEXTREL, DF_TEXTREL). */
bool has_text_relocations(void* handle)
{
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_ld == nullptr)
    return true;
  for (const ElfW(Dyn)* entry = map->l_ld; entry->d_tag != DT_NULL; ++entry)
    if (entry->d_tag == DT_TEXTREL || (entry->d_tag == DT_FLAGS && (entry->d_un.d_val & DF_TEXTREL) != 0))
      return true;
  return false;
}

/** Whether the file behind `descriptor` starts with the same ELF and program headers as the loaded object. */
bool same_headers(int descriptor, const ElfW(Ehdr) * header)
{
  size_t length = header->e_phoff + static_cast<size_t>(header->e_phnum) * sizeof(ElfW(Phdr));
  if (header->e_phoff < sizeof(ElfW(Ehdr)) || length > 65536)
    return false;
  std::vector<unsigned char> on_disk(length);
  return pread(descriptor, on_disk.data(), length, 0) == static_cast<ssize_t>(length) &&
         std::memcmp(on_disk.data(), header, sizeof(ElfW(Ehdr))) == 0 &&
         std::memcmp(on_disk.data() + header->e_phoff, reinterpret_cast<const unsigned char*>(header) + header->e_phoff,
                     length - header->e_phoff) == 0;
}
} // namespace

namespace
{
/** The file ranges [first, last) a copy keeps on disk when its code is shared: the ELF and program headers, the
 *  dynamic symbols and their names (.dynsym, .dynstr), which tools read from the file of a loaded object (libgfortran's
 *  backtrace, through libbacktrace). */
std::vector<std::pair<uintptr_t, uintptr_t>> ranges_read_from_the_file(void* handle, const ElfW(Ehdr) * header,
                                                                       ElfW(Addr) base)
{
  std::vector<std::pair<uintptr_t, uintptr_t>> kept{
      {0, header->e_phoff + static_cast<uintptr_t>(header->e_phnum) * header->e_phentsize}};
  link_map* map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr || map->l_ld == nullptr)
    return kept;
  uintptr_t symbols = 0, names = 0, names_size = 0;
  for (const ElfW(Dyn)* entry = map->l_ld; entry->d_tag != DT_NULL; ++entry) {
    if (entry->d_tag == DT_SYMTAB)
      symbols = entry->d_un.d_ptr;
    else if (entry->d_tag == DT_STRTAB)
      names = entry->d_un.d_ptr;
    else if (entry->d_tag == DT_STRSZ)
      names_size = entry->d_un.d_val;
  }
  for (uintptr_t* address : {&symbols, &names})
    if (*address >= base) // the loader relocated them in place
      *address -= base;
  // .dynsym precedes .dynstr as linkers and patchelf lay them out; otherwise only the names
  uintptr_t first      = symbols != 0 && symbols < names ? symbols : names;
  const auto* segments = reinterpret_cast<const ElfW(Phdr)*>(base + header->e_phoff);
  for (size_t i = 0; i < header->e_phnum; ++i) {
    const auto& segment = segments[i];
    if (segment.p_type == PT_LOAD && first >= segment.p_vaddr &&
        names + names_size <= segment.p_vaddr + segment.p_filesz)
      kept.emplace_back(first - segment.p_vaddr + segment.p_offset,
                        names + names_size - segment.p_vaddr + segment.p_offset);
  }
  return kept;
}

/** Maps [start, start + length) from `original` at `offset` over what is there; false when it cannot. */
bool map_over(uintptr_t start, size_t length, int original, off_t offset, int protection)
{
  // Mapped elsewhere first (a file that cannot be mapped so, on a noexec mount say, changes nothing), then moved
  // over the copy's pages in one step: the range is never left unmapped.
  void* placed = mmap(nullptr, length, protection, MAP_PRIVATE, original, offset);
  if (placed == MAP_FAILED)
    return false;
  if (mremap(placed, length, length, MREMAP_MAYMOVE | MREMAP_FIXED, reinterpret_cast<void*>(start)) == MAP_FAILED) {
    munmap(placed, length);
    return false;
  }
  return true;
}
} // namespace

std::vector<std::pair<off_t, std::size_t>> share_read_only_pages(void* handle, int original,
                                                                 const std::vector<std::pair<off_t, std::size_t>>& own)
{
  std::vector<std::pair<off_t, std::size_t>> shared;
  ElfW(Addr) base          = 0;
  const ElfW(Ehdr)* header = elf_header_of(handle, base);
  if (header == nullptr || original < 0 || has_text_relocations(handle) || not same_headers(original, header))
    return shared;
  const auto* segments    = reinterpret_cast<const ElfW(Phdr)*>(base + header->e_phoff);
  auto read_from_the_file = ranges_read_from_the_file(handle, header, base);
  // The pages of writable segments (relocated data, bss) stay the copy's own, also where a page is shared
  // with a read-only segment; so do those where the copy's bytes differ from the original's.
  auto keeps_own = [&](uintptr_t start, uintptr_t end) {
    for (size_t i = 0; i < header->e_phnum; ++i) {
      const auto& segment = segments[i];
      if (segment.p_type != PT_LOAD)
        continue;
      if ((segment.p_flags & PF_W) != 0) {
        auto [first, last] = segment_pages(base, segment);
        if (first < end && start < last)
          return true;
      }
      for (const auto& [offset, length] : own) {
        auto from = static_cast<ElfW(Off)>(offset);
        if (from + length <= segment.p_offset || from >= segment.p_offset + segment.p_filesz)
          continue;
        uintptr_t address = base + segment.p_vaddr + (from - segment.p_offset);
        if (address < end && start < address + length)
          return true;
      }
    }
    return false;
  };
  for (size_t i = 0; i < header->e_phnum; ++i) {
    const auto& segment = segments[i];
    if (segment.p_type != PT_LOAD || (segment.p_flags & PF_W) != 0 || segment.p_memsz != segment.p_filesz ||
        segment.p_memsz == 0 || (segment.p_vaddr - segment.p_offset) % page != 0)
      continue;
    auto [first, last] = segment_pages(base, segment);
    int protection     = PROT_READ | ((segment.p_flags & PF_X) != 0 ? PROT_EXEC : 0);
    // Each run of pages that are the original's bytes, mapped from it in one piece.
    for (uintptr_t start = first; start < last;) {
      while (start < last && keeps_own(start, start + page))
        start += page;
      uintptr_t end = start;
      while (end < last && not keeps_own(end, end + page))
        end += page;
      if (start >= end)
        break;
      off_t offset = static_cast<off_t>((segment.p_offset & ~(page - 1)) + (start - first));
      if (not map_over(start, end - start, original, offset, protection))
        return shared;
      // The copy's disk space for these pages may be given back, but for the pages tools read from the file.
      for (off_t page_offset = offset; page_offset < offset + static_cast<off_t>(end - start);
           page_offset += static_cast<off_t>(page)) {
        auto from = static_cast<uintptr_t>(page_offset);
        bool kept = std::any_of(read_from_the_file.begin(), read_from_the_file.end(),
                                [&](const auto& range) { return range.first < from + page && from < range.second; });
        if (kept)
          continue;
        if (not shared.empty() && shared.back().first + static_cast<off_t>(shared.back().second) == page_offset)
          shared.back().second += page;
        else
          shared.emplace_back(page_offset, page);
      }
      start = end;
    }
  }
  return shared;
}

void release_file_ranges(const std::string& path, const std::vector<std::pair<off_t, std::size_t>>& ranges)
{
  int descriptor = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (descriptor < 0)
    return;
  for (const auto& [offset, length] : ranges)
    fallocate(descriptor, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, static_cast<off_t>(length));
  ::close(descriptor);
}

} // namespace bxisim::os
