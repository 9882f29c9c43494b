#include "CopyEdits.hpp"

#include "config/ConfigError.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace bxisim::runtime
{

std::vector<std::string_view> dynamic_section_strings(const ElfFile& file)
{
  std::vector<std::string_view> strings;
  for (int64_t tag : {DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH})
    if (auto found = file.dynamic_strings(tag))
      strings.insert(strings.end(), found->begin(), found->end());
  return strings;
}

bool overlaps(const ElfFile& file, std::string_view text, const ByteEdit& edit)
{
  uint64_t first = file.offset_of(text);
  return edit.offset < first + text.size() && first < edit.offset + edit.bytes.size();
}

void apply_edits(const std::string& copy, const std::vector<ByteEdit>& edits)
{
  if (edits.empty())
    return;
  int descriptor = ::open(copy.c_str(), O_WRONLY | O_CLOEXEC);
  bool written   = descriptor >= 0;
  for (const auto& edit : edits)
    written = written && ::pwrite(descriptor, edit.bytes.data(), edit.bytes.size(), static_cast<off_t>(edit.offset)) ==
                             static_cast<ssize_t>(edit.bytes.size());
  int error = errno;
  if (descriptor >= 0)
    ::close(descriptor);
  if (not written)
    throw config::ConfigError(fmt::format("cannot write {}, a rank's copy: {}. Check that the temporary folder "
                                          "(TMPDIR) is writable and has space.",
                                          copy, std::strerror(error)));
}

} // namespace bxisim::runtime
