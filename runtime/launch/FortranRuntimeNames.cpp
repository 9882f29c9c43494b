#include "FortranRuntimeNames.hpp"

#include <xbt/log.h>

#include <elf.h>

#include <algorithm>
#include <string_view>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(bxisim_launch);

namespace bxisim::runtime
{
namespace
{
constexpr std::string_view kPrefix  = "_gfortran_";
constexpr std::string_view kRenamed = "hE"; // in place of "gf", at the name's second byte
} // namespace

bool fortran_runtime_renamable(const ElfFile& file)
{
  auto entries = file.dynamic_entries();
  return entries &&
         std::any_of(entries->begin(), entries->end(), [](const Elf64_Dyn& e) { return e.d_tag == DT_GNU_HASH; });
}

std::vector<ByteEdit> fortran_runtime_names_renamed(const ElfFile& file, const std::string& path)
{
  std::vector<ByteEdit> edits;
  auto symbols = file.dynamic_symbols();
  if (not symbols)
    return edits;
  std::vector<std::string_view> others = dynamic_section_strings(file); // what no edit may touch, and other names
  for (const auto& entry : *symbols)
    if (entry.name.substr(0, kPrefix.size()) == kPrefix)
      edits.push_back({file.offset_of(entry.name) + 1, std::string(kRenamed)});
    else if (not entry.name.empty())
      others.push_back(entry.name);
  auto shared = [&](const ByteEdit& edit) {
    return std::any_of(others.begin(), others.end(), [&](std::string_view text) { return overlaps(file, text, edit); });
  };
  auto kept = std::remove_if(edits.begin(), edits.end(), shared);
  if (kept != edits.end())
    XBT_VERB("%s: %zu name(s) of libgfortran share their bytes with other names: they keep calling the shared copy",
             path.c_str(), static_cast<size_t>(edits.end() - kept));
  edits.erase(kept, edits.end());
  std::sort(edits.begin(), edits.end(), [](const ByteEdit& a, const ByteEdit& b) { return a.offset < b.offset; });
  edits.erase(std::unique(edits.begin(), edits.end(),
                          [](const ByteEdit& a, const ByteEdit& b) { return a.offset == b.offset; }),
              edits.end()); // two symbols of one name (versions) share their string
  return edits;
}

} // namespace bxisim::runtime
