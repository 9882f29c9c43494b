#include "ProgramCheck.hpp"

#include <cstring>
#include <elf.h>
#include <fstream>
#include <stdexcept>

namespace bxisim::mw
{
namespace
{
bool starts_with(const char* text, const char* prefix)
{
  return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

template <class T>
T read_at(std::ifstream& file, uint64_t offset)
{
  T value{};
  file.seekg(static_cast<std::streamoff>(offset));
  file.read(reinterpret_cast<char*>(&value), sizeof value);
  return value;
}
} // namespace

ProgramMpiUse program_mpi_use(const std::string& path)
{
  std::ifstream file(path, std::ios::binary);
  auto header = read_at<Elf64_Ehdr>(file, 0);
  if (not file || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
    throw std::runtime_error(path + ": not a 64-bit ELF file");
  ProgramMpiUse use;
  for (int i = 0; i < header.e_shnum; ++i) {
    auto section = read_at<Elf64_Shdr>(file, header.e_shoff + static_cast<uint64_t>(i) * header.e_shentsize);
    if (section.sh_type != SHT_DYNSYM || section.sh_entsize == 0)
      continue;
    auto strings =
        read_at<Elf64_Shdr>(file, header.e_shoff + static_cast<uint64_t>(section.sh_link) * header.e_shentsize);
    std::string names(strings.sh_size, '\0');
    file.seekg(static_cast<std::streamoff>(strings.sh_offset));
    file.read(names.data(), static_cast<std::streamsize>(names.size()));
    for (uint64_t s = 0; s < section.sh_size / section.sh_entsize; ++s) {
      auto symbol = read_at<Elf64_Sym>(file, section.sh_offset + s * section.sh_entsize);
      if (symbol.st_shndx != SHN_UNDEF || symbol.st_name >= names.size())
        continue;
      const char* name = names.c_str() + symbol.st_name;
      if (starts_with(name, "bxisim_MPI_") || starts_with(name, "bxisim_PMPI_"))
        use.bxisim_mpi = true;
      else if (starts_with(name, "MPI_") || starts_with(name, "PMPI_") || starts_with(name, "ompi_mpi_"))
        use.foreign_symbols.emplace_back(name);
    }
  }
  if (not file)
    throw std::runtime_error(path + ": cannot read its symbol table");
  return use;
}

std::string foreign_mpi_message(const std::string& program, const ProgramMpiUse& use)
{
  return program + " calls " + use.foreign_symbols.front() +
         " directly: it was built against another MPI's mpi.h (OpenMPI's, MPICH's or SimGrid's), whose calls bxisim "
         "cannot run. Rebuild it with bxicc/bxicxx (mpicc's place), which use bxisim's mpi.h.";
}

} // namespace bxisim::mw
