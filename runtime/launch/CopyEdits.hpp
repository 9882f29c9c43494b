#pragma once
// Bytes bxisim changes in each rank's copy of a program or library, found once in the original (ElfFile) and
// written into every copy in place: symbols rebound (UniqueSymbols.hpp), plain MPI names redirected
// (PlainMpiNames.hpp), the rank's digits in the paths of relinked copies (ProgramCopies.cpp).

#include "ElfFile.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bxisim::runtime
{

struct ByteEdit {
  uint64_t offset = 0;
  std::string bytes;
};

/** The dynamic section's strings (needed libraries, soname, search paths): no edit of a name may touch them. */
std::vector<std::string_view> dynamic_section_strings(const ElfFile& file);

/** Whether `edit` changes a byte of `text`, a view `file` handed out. */
bool overlaps(const ElfFile& file, std::string_view text, const ByteEdit& edit);

/** Writes `edits` into `copy`. Throws config::ConfigError, naming the fix, when the copy cannot be written. */
void apply_edits(const std::string& copy, const std::vector<ByteEdit>& edits);

} // namespace bxisim::runtime
