#include "StaticTls.hpp"

#include "ElfNeeded.hpp"

#include <boost/align/align_up.hpp>
#include <fmt/format.h>
#include <xbt/log.h>

#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
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
  std::string image = read_file(path);
  Elf64_Ehdr header{};
  if (not read_at(image, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64)
    return 0;
  uint64_t block    = 0;
  bool initial_exec = false;
  for (size_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    if (not read_at(image, header.e_phoff + i * header.e_phentsize, segment))
      return 0;
    if (segment.p_type == PT_TLS)
      block = boost::alignment::align_up(segment.p_memsz, std::max<uint64_t>(segment.p_align, 1));
    if (segment.p_type != PT_DYNAMIC)
      continue;
    for (uint64_t at = segment.p_offset; at + sizeof(Elf64_Dyn) <= segment.p_offset + segment.p_filesz;
         at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn entry{};
      if (not read_at(image, at, entry) || entry.d_tag == DT_NULL)
        break;
      if (entry.d_tag == DT_FLAGS && (entry.d_un.d_val & DF_STATIC_TLS) != 0)
        initial_exec = true;
    }
  }
  return initial_exec ? block : 0;
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
  std::ifstream listing("/proc/self/cmdline", std::ios::binary); // a size of 0 to stat: read_file cannot read it
  std::string command_line((std::istreambuf_iterator<char>(listing)), std::istreambuf_iterator<char>());
  std::vector<char*> arguments;
  for (size_t at = 0; at < command_line.size(); at = command_line.find('\0', at) + 1)
    arguments.push_back(command_line.data() + at);
  arguments.push_back(nullptr);
  std::string value = fmt::format("{}{}{}={}", current, current.empty() ? "" : ":", kTunable,
                                  bytes + kGlibcDefaultSurplus); // the default's share stays for other libraries
  setenv("GLIBC_TUNABLES", value.c_str(), 1);
  XBT_VERB("starting again with GLIBC_TUNABLES=%s", value.c_str());
  execv("/proc/self/exe", arguments.data());
  XBT_WARN("could not start again with GLIBC_TUNABLES=%s (%s): ranks past the first few may fail to load their "
           "copies of a library that uses static TLS",
           value.c_str(), std::strerror(errno));
}

} // namespace bxisim::runtime
