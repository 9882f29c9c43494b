#pragma once
// A 64-bit ELF file, for what the launcher asks of a program and of the copies of libraries before it loads them
// (their needed libraries, static TLS, memory mappings, exported main, unique symbols). Every read is checked against
// the file's end: a truncated or damaged file answers nothing instead of crashing the launcher.

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bxisim::runtime
{

/** An entry of a symbol table: the symbol, its name (a view into the file) and where the entry lies. */
struct SymbolEntry {
  Elf64_Sym symbol;
  std::string_view name;
  uint64_t offset;
};

class ElfFile
{
 public:
  /** The file at `path`; nullopt when it cannot be read or is not a 64-bit ELF file. Mapped, not read: only the pages
   *  asked about are touched (reading OpenMPI's 6 MB library whole to count its segments took 7 % of a mixed-level
   *  run's CPU, in zeroed and copied pages; character by character, a tenth). */
  static std::optional<ElfFile> read(const std::string& path);

  const Elf64_Ehdr& header() const { return header_; }
  uint64_t size() const { return size_; }

  /** Reads a T at `offset`; false when the file is too short. */
  template <typename T>
  bool read_at(uint64_t offset, T& value) const
  {
    if (not holds(offset, sizeof(T)))
      return false;
    std::memcpy(&value, image_.get() + offset, sizeof(T));
    return true;
  }
  /** Whether [offset, offset + length) lies in the file. */
  bool holds(uint64_t offset, uint64_t length) const { return offset <= size() && size() - offset >= length; }

  /** The program headers; nullopt when they lie past the file's end. */
  std::optional<std::vector<Elf64_Phdr>> segments() const;
  /** The section headers; nullopt when they lie past the file's end or are not of Elf64_Shdr's size. */
  std::optional<std::vector<Elf64_Shdr>> sections() const;
  /** The entries of the dynamic segment before DT_NULL (none without one); nullopt when it lies past the file's end. */
  std::optional<std::vector<Elf64_Dyn>> dynamic_entries() const;
  /** The strings of the dynamic entries of kind `tag` (DT_NEEDED, DT_SONAME, DT_RUNPATH...), in order, as views into
   * the file; nullopt when the entries, their string table or a string lie past the file's end. */
  std::optional<std::vector<std::string_view>> dynamic_strings(int64_t tag) const;
  /** The entries of the dynamic symbol tables (SHT_DYNSYM); nullopt when a table or its strings lie past the file's
   *  end. A name that does not lie in its strings is empty. */
  std::optional<std::vector<SymbolEntry>> dynamic_symbols() const { return symbols_of(SHT_DYNSYM); }
  /** The entries of the full symbol tables (SHT_SYMTAB: none in a stripped file), as dynamic_symbols(). */
  std::optional<std::vector<SymbolEntry>> static_symbols() const { return symbols_of(SHT_SYMTAB); }
  /** Where the bytes of the loaded address `address` are in the file (the dynamic section names its tables so). */
  std::optional<uint64_t> file_offset(Elf64_Addr address) const;
  /** Where `text`, a view this file handed out (a symbol's name, string_at's answer), lies in the file. */
  uint64_t offset_of(std::string_view text) const { return static_cast<uint64_t>(text.data() - image_.get()); }
  /** The NUL-terminated string at `offset`, read up to `offset + limit`; nullopt when it starts past the end, or its
   *  end is not found there. */
  std::optional<std::string_view> string_at(uint64_t offset,
                                            uint64_t limit = std::numeric_limits<uint64_t>::max()) const;

 private:
  std::optional<std::vector<SymbolEntry>> symbols_of(uint32_t section_type) const;
  ElfFile(std::shared_ptr<const char> image, uint64_t size, const Elf64_Ehdr& header)
      : image_(std::move(image)), size_(size), header_(header)
  {
  }

  std::shared_ptr<const char> image_; // the file's read-only mapping, shared by copies of this object
  uint64_t size_;
  Elf64_Ehdr header_;
};

} // namespace bxisim::runtime
