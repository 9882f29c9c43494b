#include "CodePages.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 // Linux 5.14; older kernels answer EINVAL and nothing is done
#endif

namespace bxisim::os
{

namespace
{
/** MADV_POPULATE_READ on the segments that are mapped without write access (text and read-only data). */
void populate_segments(ElfW(Addr) base, const ElfW(Phdr) * headers, size_t count)
{
  static const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  for (size_t i = 0; i < count; ++i) {
    const auto& segment = headers[i];
    if (segment.p_type != PT_LOAD || (segment.p_flags & PF_W) != 0 || segment.p_memsz == 0)
      continue;
    uintptr_t start = (base + segment.p_vaddr) & ~(page - 1);
    uintptr_t end   = (base + segment.p_vaddr + segment.p_memsz + page - 1) & ~(page - 1);
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

} // namespace bxisim::os
