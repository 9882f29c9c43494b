// elf_needed reads the libraries an ELF file needs as the dynamic loader (and patchelf) would, through ElfFile.

#include "config/ConfigError.hpp"
#include "runtime/launch/ElfFile.hpp"
#include "runtime/launch/ElfNeeded.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

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

TEST(ElfFile, ATruncatedFileAnswersNothingPastItsEnd)
{
  std::ifstream original(program("openmp_regions"), std::ios::binary);
  std::string image((std::istreambuf_iterator<char>(original)), std::istreambuf_iterator<char>());
  auto whole = bxisim::runtime::ElfFile::read(program("openmp_regions"));
  ASSERT_TRUE(whole);
  ASSERT_TRUE(whole->segments() && whole->sections() && whole->dynamic_entries());
  // Cut inside the program headers, in the middle and by one byte: a question whose answer lies past the cut has none,
  // and none reads past it (ASan builds check that).
  std::string path = bxisim::test::temporary_path("truncated.so");
  for (size_t length : {size_t{100}, image.size() / 2, image.size() - 1}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(image.data(), static_cast<std::streamsize>(length));
    auto cut = bxisim::runtime::ElfFile::read(path);
    ASSERT_TRUE(cut) << length << " bytes: the ELF header is whole";
    EXPECT_EQ(cut->size(), length);
    EXPECT_FALSE(cut->sections()) << length << " bytes: the section headers are at the file's end";
    EXPECT_FALSE(cut->string_at(length));
    if (length == 100) { // the program headers are cut
      EXPECT_FALSE(cut->segments());
      EXPECT_THROW(elf_needed(path), bxisim::config::ConfigError);
    } else { // what lies before the cut is read as in the whole file
      EXPECT_EQ(elf_needed(path), elf_needed(program("openmp_regions"))) << length;
    }
  }
}
