// elf_needed reads the libraries an ELF file needs as the dynamic loader (and patchelf) would.

#include "config/ConfigError.hpp"
#include "runtime/launch/ElfNeeded.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

using bxisim::runtime::elf_needed;
using testing::ElementsAre;

namespace
{
std::string program(const std::string& name)
{
  return std::string(BXISIM_TEST_PROGRAMS) + "/" + name;
}
} // namespace

TEST(ElfNeeded, ListsWhatAProgramAndALibraryNeedInOrder)
{
  EXPECT_THAT(elf_needed(program("openmp_regions")), ElementsAre("libgomp.so.1", "libc.so.6"));
  EXPECT_THAT(elf_needed(program("liblocked_clock.so")), ElementsAre("libc.so.6"));
  // the same answer as patchelf's for a program that needs a library of the build
  auto listing                    = bxisim::test::run_command("patchelf --print-needed " + program("privatize"));
  std::vector<std::string> needed = elf_needed(program("privatize"));
  std::string joined;
  for (const auto& name : needed)
    joined += name + "\n";
  EXPECT_EQ(joined, listing.output);
}

TEST(ElfNeeded, ANonElfFileIsAnError)
{
  std::string path = bxisim::test::temporary_path("not-elf.so");
  std::ofstream(path) << "just text\n";
  EXPECT_THROW(elf_needed(path), bxisim::config::ConfigError);
  EXPECT_THROW(elf_needed(bxisim::test::temporary_path("missing.so")), bxisim::config::ConfigError);
}
