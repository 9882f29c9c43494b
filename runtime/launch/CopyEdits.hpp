#pragma once
// Bytes bxisim changes in each rank's copy of a program or library, found once in the original (ElfFile) and
// written into every copy in place: symbols rebound (UniqueSymbols.hpp), plain MPI names redirected
// (PlainMpiNames.hpp), the rank's digits in the paths of relinked copies (ProgramCopies.cpp).

#include <cstdint>
#include <string>
#include <vector>

namespace bxisim::runtime
{

struct ByteEdit {
  uint64_t offset = 0;
  std::string bytes;
};

/** Writes `edits` into `copy`. Throws config::ConfigError, naming the fix, when the copy cannot be written. */
void apply_edits(const std::string& copy, const std::vector<ByteEdit>& edits);

} // namespace bxisim::runtime
