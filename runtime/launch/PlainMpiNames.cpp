#include "PlainMpiNames.hpp"

#include "middleware/ProgramCheck.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <elf.h>
#include <string>
#include <utility>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(bxisim_launch);

namespace bxisim::runtime
{
namespace
{
using ByteRange = std::pair<uint64_t, uint64_t>; // [first, last)

/** The bytes of the dynamic strings that must not change: defined symbols' names, the dynamic section's strings. */
std::vector<ByteRange> strings_kept(const ElfFile& file, const std::vector<SymbolEntry>& symbols)
{
  std::vector<ByteRange> kept;
  for (const auto& entry : symbols)
    if (entry.symbol.st_shndx != SHN_UNDEF && not entry.name.empty())
      kept.emplace_back(file.offset_of(entry.name), file.offset_of(entry.name) + entry.name.size());
  auto entries = file.dynamic_entries();
  if (not entries)
    return kept;
  std::optional<uint64_t> strings;
  for (const auto& entry : *entries)
    if (entry.d_tag == DT_STRTAB)
      strings = file.file_offset(entry.d_un.d_ptr);
  for (const auto& entry : *entries)
    if (strings &&
        (entry.d_tag == DT_NEEDED || entry.d_tag == DT_SONAME || entry.d_tag == DT_RPATH || entry.d_tag == DT_RUNPATH))
      if (auto text = file.string_at(*strings + entry.d_un.d_val))
        kept.emplace_back(file.offset_of(*text), file.offset_of(*text) + text->size());
  return kept;
}
} // namespace

std::vector<ByteEdit> plain_mpi_calls_redirected(const ElfFile& file, const std::string& path)
{
  std::vector<ByteEdit> edits;
  auto symbols = file.dynamic_symbols();
  if (not symbols)
    return edits;
  std::vector<ByteRange> kept;
  bool kept_known = false;
  int left        = 0;
  for (const auto& entry : *symbols) {
    if (entry.symbol.st_shndx != SHN_UNDEF || entry.name.empty())
      continue;
    std::string name(entry.name);
    std::string alias = mw::plain_call_alias(name);
    if (alias.empty())
      continue;
    if (not kept_known) {
      kept       = strings_kept(file, *symbols);
      kept_known = true;
    }
    // MPI_x -> BXI_x, PMPI_x -> PBXI_x: only "MPI" changes.
    uint64_t first = file.offset_of(entry.name) + (name[0] == 'P' ? 1 : 0);
    uint64_t last  = first + 3;
    if (std::any_of(kept.begin(), kept.end(),
                    [&](const ByteRange& range) { return first < range.second && range.first < last; })) {
      ++left;
      continue;
    }
    edits.push_back({first, "BXI"});
  }
  if (not edits.empty())
    XBT_VERB("%s calls %zu MPI function(s) by their plain names (a macro of its own in place of mpi.h's): they go to "
             "bxisim's MPI",
             path.c_str(), edits.size());
  if (left > 0)
    XBT_WARN("%s calls %d MPI function(s) by plain names that share their bytes with another of its strings: those "
             "calls go to SimGrid's SMPI, not to bxisim's MPI, and may crash. Build it without its own macros over "
             "mpi.h's MPI_ names.",
             path.c_str(), left);
  return edits;
}

} // namespace bxisim::runtime
