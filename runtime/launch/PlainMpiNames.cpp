#include "PlainMpiNames.hpp"

#include "config/ConfigError.hpp"
#include "middleware/ProgramCheck.hpp"

#include <xbt/log.h>

#include <fmt/format.h>

#include <algorithm>
#include <dlfcn.h>
#include <elf.h>
#include <string>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(bxisim_launch);

namespace bxisim::runtime
{
namespace
{
bool starts_with(std::string_view text, std::string_view prefix)
{
  return text.substr(0, prefix.size()) == prefix;
}

/** `text` with the edits that fall inside it applied. */
std::string edited(const ElfFile& file, std::string_view text, const std::vector<ByteEdit>& edits)
{
  std::string result(text);
  uint64_t first = file.offset_of(text);
  for (const auto& edit : edits)
    if (edit.offset >= first && edit.offset + edit.bytes.size() <= first + text.size())
      result.replace(edit.offset - first, edit.bytes.size(), edit.bytes);
  return result;
}

} // namespace

std::vector<ByteEdit> plain_mpi_calls_redirected(const ElfFile& file, const std::string& path)
{
  std::vector<ByteEdit> edits;
  auto symbols = file.dynamic_symbols();
  // Only in code built with bxisim's mpi.h (calling some bxisim_MPI_x): another MPI's code calls the plain names too,
  // with its own handles (ProgramCheck refuses it).
  if (not symbols || std::none_of(symbols->begin(), symbols->end(), [](const SymbolEntry& entry) {
        return entry.symbol.st_shndx == SHN_UNDEF &&
               (starts_with(entry.name, "bxisim_MPI_") || starts_with(entry.name, "bxisim_PMPI_"));
      }))
    return edits;
  for (const auto& entry : *symbols)
    if (entry.symbol.st_shndx == SHN_UNDEF && not mw::plain_call_alias(std::string(entry.name)).empty())
      edits.push_back({file.offset_of(entry.name) + (entry.name[0] == 'P' ? 1 : 0), "BXI"}); // only "MPI" changes
  if (edits.empty())
    return edits;
  // The linker stores a name that ends another inside it (MPI_x inside bxisim_MPI_x): every name an edit touches must
  // still name something bxisim defines, and no defined name nor dynamic string may change.
  auto refuse = [&](std::string_view touched) {
    throw config::ConfigError(fmt::format(
        "{} calls MPI functions by their plain names (MPI_x: code compiled without bxisim's mpi.h, or with its "
        "earlier one behind macros of its own), and the name {} shares their bytes: bxisim cannot point those calls "
        "to its MPI, and they would reach SimGrid's SMPI. Rebuild it with bxicc, bxicxx or bxif90.",
        path, touched));
  };
  for (const auto& entry : *symbols)
    for (const auto& edit : edits)
      if (not entry.name.empty() && overlaps(file, entry.name, edit)) {
        uint64_t first = file.offset_of(entry.name);
        if (edit.offset < first || edit.offset + edit.bytes.size() > first + entry.name.size())
          refuse(entry.name); // a name that begins or ends inside "MPI"
        std::string renamed = edited(file, entry.name, edits);
        if (entry.symbol.st_shndx != SHN_UNDEF || dlsym(RTLD_DEFAULT, renamed.c_str()) == nullptr)
          refuse(entry.name);
      }
  for (const auto& text : dynamic_section_strings(file))
    for (const auto& edit : edits)
      if (overlaps(file, text, edit))
        refuse(text);
  XBT_VERB("%s calls %zu MPI function(s) by their plain names (code compiled without bxisim's mpi.h, or with its "
           "earlier one behind macros of its own): they go to bxisim's MPI",
           path.c_str(), edits.size());
  return edits;
}

} // namespace bxisim::runtime
