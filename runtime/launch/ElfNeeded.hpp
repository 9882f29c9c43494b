#pragma once
// The libraries an ELF file names in its dynamic section (DT_NEEDED), read from the file itself: the
// rank copies of a run with privatized libraries ask it of every copy, and a patchelf process per
// question cost milliseconds per rank.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace bxisim::runtime
{

/** Reads a T at `offset` of an ELF file's `image`; false when the image is too short (a truncated file). */
template <typename T>
bool read_at(const std::string& image, uint64_t offset, T& value)
{
  if (offset > image.size() || image.size() - offset < sizeof(T))
    return false;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return true;
}

/** The bytes of the file at `path`, read at once (empty when it cannot be read). Reading OpenMPI's
 * library character by character (istreambuf_iterator) took a tenth of a mixed-level run. */
std::string read_file(const std::string& path);

/** DT_NEEDED entries of the 64-bit ELF file at `path`, in order; empty when it has no dynamic section.
 * Throws config::ConfigError when the file cannot be read or its headers point past its end. */
std::vector<std::string> elf_needed(const std::string& path);

} // namespace bxisim::runtime
