#pragma once
// The libraries an ELF file names in its dynamic section (DT_NEEDED), read from the file itself: the
// rank copies of a run with privatized libraries ask it of every copy, and a patchelf process per
// question cost milliseconds per rank.

#include <cstdint>
#include <string>
#include <vector>

namespace bxisim::runtime
{

/** The strings of the dynamic entries of kind `tag` (DT_NEEDED, DT_RUNPATH, ...) of the 64-bit ELF file at `path`, in
 * order; empty when it has none. Throws config::ConfigError when the file cannot be read or its headers point past
 * its end. */
std::vector<std::string> elf_dynamic_strings(const std::string& path, int64_t tag);

/** DT_NEEDED entries of the 64-bit ELF file at `path`, in order (elf_dynamic_strings). */
std::vector<std::string> elf_needed(const std::string& path);

/** The folders the dynamic loader looks in for what the file at `path` needs before LD_LIBRARY_PATH (DT_RPATH, when
 * there is no DT_RUNPATH) and after it (DT_RUNPATH), `$ORIGIN` replaced by the file's folder. */
struct ElfSearchPath {
  std::vector<std::string> before_library_path;
  std::vector<std::string> after_library_path;
};
ElfSearchPath elf_search_path(const std::string& path);

} // namespace bxisim::runtime
