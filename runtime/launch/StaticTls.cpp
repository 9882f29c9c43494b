#include "StaticTls.hpp"

#include "ElfFile.hpp"
#include "StartAgain.hpp"

#include <boost/align/align_up.hpp>
#include <fmt/format.h>
#include <xbt/log.h>

#include <elf.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(bxisim_launch);

namespace bxisim::runtime
{

namespace
{
constexpr uint64_t kGlibcDefaultSurplus = 512; // glibc.rtld.optional_static_tls's default
constexpr std::string_view kTunable     = "glibc.rtld.optional_static_tls";
} // namespace

uint64_t static_tls_bytes(const std::string& path)
{
  auto file = ElfFile::read(path);
  if (not file)
    return 0;
  auto segments = file->segments();
  auto entries  = file->dynamic_entries();
  if (not segments || not entries)
    return 0;
  bool initial_exec = std::any_of(entries->begin(), entries->end(), [](const Elf64_Dyn& entry) {
    return entry.d_tag == DT_FLAGS && (entry.d_un.d_val & DF_STATIC_TLS) != 0;
  });
  for (const auto& segment : *segments)
    if (segment.p_type == PT_TLS && initial_exec)
      return boost::alignment::align_up(segment.p_memsz, std::max<uint64_t>(segment.p_align, 1));
  return 0;
}

void reserve_static_tls(uint64_t bytes)
{
  if (bytes <= kGlibcDefaultSurplus)
    return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  std::string current  = tunables != nullptr ? tunables : "";
  if (current.find(kTunable) != std::string::npos) {
    XBT_VERB("GLIBC_TUNABLES sets %s already (%s); the ranks' copies need %llu bytes", kTunable.data(), current.c_str(),
             static_cast<unsigned long long>(bytes));
    return;
  }
  std::string value = fmt::format("{}{}{}={}", current, current.empty() ? "" : ":", kTunable,
                                  bytes + kGlibcDefaultSurplus); // the default's share stays for other libraries
  setenv("GLIBC_TUNABLES", value.c_str(), 1);
  XBT_VERB("starting again with GLIBC_TUNABLES=%s", value.c_str());
  start_again();
  XBT_WARN("could not start again with GLIBC_TUNABLES=%s (%s): ranks past the first few may fail to load their "
           "copies of a library that uses static TLS",
           value.c_str(), std::strerror(errno));
}

} // namespace bxisim::runtime
