#pragma once
// The libraries an ELF file names in its dynamic section (DT_NEEDED), read from the file itself: the
// rank copies of a run with privatized libraries ask it of every copy, and a patchelf process per
// question cost milliseconds per rank.

#include <string>
#include <vector>

namespace bxisim::runtime
{

/** DT_NEEDED entries of the 64-bit ELF file at `path`, in order; empty when it has no dynamic section.
 * Throws config::ConfigError when the file cannot be read or its headers point past its end. */
std::vector<std::string> elf_needed(const std::string& path);

} // namespace bxisim::runtime
