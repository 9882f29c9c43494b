#include "UniqueSymbols.hpp"

#include "ElfFile.hpp"
#include "config/ConfigError.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

namespace bxisim::runtime
{

std::vector<SymbolRebinding> unique_symbols_rebound_global(const std::string& path)
{
  std::vector<SymbolRebinding> rebindings;
  auto file    = ElfFile::read(path);
  auto symbols = file ? file->dynamic_symbols() : std::nullopt;
  if (not symbols)
    return rebindings;
  for (const auto& [symbol, name, offset] : *symbols)
    if (ELF64_ST_BIND(symbol.st_info) == STB_GNU_UNIQUE && symbol.st_shndx != SHN_UNDEF)
      rebindings.push_back({offset + offsetof(Elf64_Sym, st_info),
                            static_cast<unsigned char>(ELF64_ST_INFO(STB_GLOBAL, ELF64_ST_TYPE(symbol.st_info)))});
  return rebindings;
}

void rebind_symbols(const std::string& copy, const std::vector<SymbolRebinding>& rebindings)
{
  if (rebindings.empty())
    return;
  int descriptor = ::open(copy.c_str(), O_WRONLY | O_CLOEXEC);
  bool written   = descriptor >= 0;
  for (const auto& rebinding : rebindings)
    written = written && ::pwrite(descriptor, &rebinding.info, 1, static_cast<off_t>(rebinding.offset)) == 1;
  int error = errno;
  if (descriptor >= 0)
    ::close(descriptor);
  if (not written)
    throw config::ConfigError(fmt::format("cannot give {} its own C++ static locals (writing the copy: {}); check "
                                          "that the temporary folder (TMPDIR) is writable and has space.",
                                          copy, std::strerror(error)));
}

} // namespace bxisim::runtime
