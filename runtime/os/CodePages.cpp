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
  link_map* map = nullptr;
  if (handle == nullptr || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr)
    return;
  // A shared object's first segment maps its ELF header, and the program headers with it.
  const auto* header = reinterpret_cast<const ElfW(Ehdr)*>(map->l_addr);
  if (header == nullptr || header->e_ident[EI_MAG0] != ELFMAG0 || header->e_ident[EI_MAG1] != ELFMAG1 ||
      header->e_ident[EI_MAG2] != ELFMAG2 || header->e_ident[EI_MAG3] != ELFMAG3)
    return;
  populate_segments(map->l_addr, reinterpret_cast<const ElfW(Phdr)*>(map->l_addr + header->e_phoff), header->e_phnum);
}

} // namespace bxisim::os
