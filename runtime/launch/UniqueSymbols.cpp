#include "UniqueSymbols.hpp"

#include <cstddef>
#include <elf.h>

namespace bxisim::runtime
{

std::vector<ByteEdit> unique_symbols_rebound_global(const ElfFile& file)
{
  std::vector<ByteEdit> rebindings;
  auto symbols = file.dynamic_symbols();
  if (not symbols)
    return rebindings;
  for (const auto& [symbol, name, offset] : *symbols)
    if (ELF64_ST_BIND(symbol.st_info) == STB_GNU_UNIQUE && symbol.st_shndx != SHN_UNDEF)
      rebindings.push_back(
          {offset + offsetof(Elf64_Sym, st_info),
           std::string(1, static_cast<char>(ELF64_ST_INFO(STB_GLOBAL, ELF64_ST_TYPE(symbol.st_info))))});
  return rebindings;
}

} // namespace bxisim::runtime
