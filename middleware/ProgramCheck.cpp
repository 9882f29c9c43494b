#include "ProgramCheck.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fstream>
#include <stdexcept>
#include <utility>

namespace bxisim::mw
{
namespace
{
bool starts_with(const char* text, const char* prefix)
{
  return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

template <class T>
T read_at(std::ifstream& file, uint64_t offset)
{
  T value{};
  file.seekg(static_cast<std::streamoff>(offset));
  file.read(reinterpret_cast<char*>(&value), sizeof value);
  return value;
}

// MPI-1 functions MPI-3.0 removed (the "Removed Interfaces" chapter of MPI-3.1) and what replaces each.
constexpr std::pair<const char*, const char*> kRemovedInMpi3[] = {
    {"MPI_Address", "MPI_Get_address"},
    {"MPI_Errhandler_create", "MPI_Comm_create_errhandler"},
    {"MPI_Errhandler_get", "MPI_Comm_get_errhandler"},
    {"MPI_Errhandler_set", "MPI_Comm_set_errhandler"},
    {"MPI_Type_extent", "MPI_Type_get_extent"},
    {"MPI_Type_hindexed", "MPI_Type_create_hindexed"},
    {"MPI_Type_hvector", "MPI_Type_create_hvector"},
    {"MPI_Type_lb", "MPI_Type_get_extent"},
    {"MPI_Type_struct", "MPI_Type_create_struct"},
    {"MPI_Type_ub", "MPI_Type_get_extent"}};
} // namespace

bool is_bxisim_mpi_entry(const char* name)
{
  if (starts_with(name, "bxisim_MPI_") || starts_with(name, "bxisim_PMPI_"))
    return true;
  size_t length = std::strlen(name);
  return (starts_with(name, "mpi_") || starts_with(name, "pmpi_")) && length > 5 && name[length - 1] == '_';
}

std::string plain_call_alias(const std::string& name)
{
  std::string alias;
  if (starts_with(name.c_str(), "MPI_"))
    alias = "BXI_" + name.substr(4);
  else if (starts_with(name.c_str(), "PMPI_"))
    alias = "PBXI_" + name.substr(5);
  return not alias.empty() && dlsym(RTLD_DEFAULT, alias.c_str()) != nullptr ? alias : std::string();
}

namespace
{
bool is_fortran_entry(const char* name)
{
  return not starts_with(name, "bxisim_") && is_bxisim_mpi_entry(name);
}

// A Fortran MPI binding the program would take from the simulator's process although bxisim does not offer
// it: libsimgrid's SMPI defines some (MPI-1's mpi_type_struct_, ...), which a program must never reach; and
// MPI_SIZEOF, which only `use mpi` has. A name nobody defines is left to the loader (a routine of the
// program's own libraries may be called mpi_something_).
bool refused_fortran_binding(const char* name)
{
  if (std::strcmp(name, "mpi_sizeof_") == 0 || std::strcmp(name, "pmpi_sizeof_") == 0)
    return true;
  Dl_info ours{};
  Dl_info found{};
  void* symbol = dlsym(RTLD_DEFAULT, name);
  return symbol != nullptr && dladdr(reinterpret_cast<void*>(&is_fortran_entry), &ours) != 0 &&
         dladdr(symbol, &found) != 0 && found.dli_fbase != ours.dli_fbase;
}

/** MPI_TYPE_STRUCT for mpi_type_struct_ (pmpi_: PMPI_...). */
std::string fortran_mpi_name(const std::string& symbol)
{
  std::string name = symbol.substr(0, symbol.size() - 1);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
  return name;
}
} // namespace

ProgramMpiUse program_mpi_use(const std::string& path)
{
  std::ifstream file(path, std::ios::binary);
  auto header = read_at<Elf64_Ehdr>(file, 0);
  if (not file || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64)
    throw std::runtime_error(path + ": not a 64-bit ELF file");
  ProgramMpiUse use;
  std::vector<std::string> plain_named; // MPI_x, PMPI_x, ompi_mpi_x
  bool calls_bxisim_c_entries = false;  // bxisim_MPI_x: C built with bxisim's mpi.h (any MPI's Fortran calls mpi_x_)
  for (int i = 0; i < header.e_shnum; ++i) {
    auto section = read_at<Elf64_Shdr>(file, header.e_shoff + static_cast<uint64_t>(i) * header.e_shentsize);
    if (section.sh_type != SHT_DYNSYM || section.sh_entsize == 0)
      continue;
    auto strings =
        read_at<Elf64_Shdr>(file, header.e_shoff + static_cast<uint64_t>(section.sh_link) * header.e_shentsize);
    std::string names(strings.sh_size, '\0');
    file.seekg(static_cast<std::streamoff>(strings.sh_offset));
    file.read(names.data(), static_cast<std::streamsize>(names.size()));
    for (uint64_t s = 0; s < section.sh_size / section.sh_entsize; ++s) {
      auto symbol = read_at<Elf64_Sym>(file, section.sh_offset + s * section.sh_entsize);
      if (symbol.st_shndx != SHN_UNDEF || symbol.st_name >= names.size())
        continue;
      const char* name = names.c_str() + symbol.st_name;
      if (is_fortran_entry(name) && refused_fortran_binding(name))
        use.foreign_symbols.emplace_back(name);
      else if (is_bxisim_mpi_entry(name)) {
        use.bxisim_mpi         = true;
        calls_bxisim_c_entries = calls_bxisim_c_entries || starts_with(name, "bxisim_");
      } else if (starts_with(name, "MPI_") || starts_with(name, "PMPI_") || starts_with(name, "ompi_mpi_"))
        plain_named.emplace_back(name);
    }
  }
  if (not file)
    throw std::runtime_error(path + ": cannot read its symbol table");
  // Without any C call through bxisim's mpi.h, plain names are another MPI's calls; with, they are bxisim's functions
  // named by code compiled otherwise (PlainMpiNames.hpp), or functions bxisim's mpi.h does not declare.
  for (auto& name : plain_named)
    (calls_bxisim_c_entries && not plain_call_alias(name).empty() ? use.plain_calls : use.foreign_symbols)
        .push_back(std::move(name));
  return use;
}

namespace
{
/** What to do about one undefined Fortran binding of `function` (MPI_X, from the symbol mpi_x_ or pmpi_x_), or "". */
std::string fortran_advice(const std::string& function)
{
  if (function == "MPI_SIZEOF")
    return "MPI_SIZEOF is a generic procedure of the module mpi: 'use mpi' instead of include 'mpif.h'";
  return ""; // not an MPI-3.1 binding: said once for all of them (unoffered_advice)
}

/** What to do about one MPI_ function bxisim's mpi.h does not declare (MPI_X, from the symbol MPI_X or PMPI_X), or "".
 */
std::string c_advice(const std::string& function)
{
  for (const auto& [removed, replacement] : kRemovedInMpi3)
    if (function == removed)
      return function + " was removed from MPI in MPI-3.0 (OpenMPI 4.1 leaves it out too, unless configured with " +
             "--enable-mpi1-compatibility); use " + replacement + " instead";
  if (starts_with(function.c_str(), "MPIX_"))
    return function + " is an extension of one MPI library (MPIX_), not MPI; bxisim provides MPI-3.1";
  return ""; // not an MPI-3.1 function: said once for all of them (unoffered_advice)
}

/** Sentences of advice, one after the other. */
std::string joined(const std::vector<std::string>& advices)
{
  std::string text;
  for (const auto& advice : advices)
    text += (text.empty() ? "" : "; ") + advice;
  return text;
}

/** "a", "a and b", "a, b and c". */
std::string listed(const std::vector<std::string>& names)
{
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return text;
}

/** The advice for the functions that are simply not in what bxisim offers, in one sentence for all of them. */
std::string unoffered_advice(bool fortran, const std::vector<std::string>& functions)
{
  std::string which = listed(functions) + (functions.size() > 1 ? " are not among them" : " is not one of them");
  if (fortran)
    return "bxisim provides MPI-3.1's Fortran bindings of mpif.h and 'use mpi' (docs/mpi.md); " + which +
           " (the mpi_f08 module and MPI-4.0 functions are not available)";
  return "bxisim provides the MPI-3.1 functions (middleware/mpi_api.list lists them); " + which +
         " (MPI-4.0 functions, sessions, partitioned communication and the large-count _c variants are not "
         "available)";
}
} // namespace

std::string foreign_mpi_message(const std::string& program, const ProgramMpiUse& use)
{
  const std::string& first = use.foreign_symbols.front();
  if (not use.bxisim_mpi && not is_fortran_entry(first.c_str()))
    return program + " calls " + first +
           " directly: it was built against another MPI's mpi.h (OpenMPI's, MPICH's or SimGrid's), whose calls "
           "bxisim cannot run. Rebuild it with bxicc/bxicxx (mpicc's place), which use bxisim's mpi.h.";
  // Built with bxisim's headers, yet it calls functions they do not declare (every one is named, so that one
  // rebuild fixes them all): C took them as implicitly declared functions.
  std::vector<std::string> fortran, c, fortran_advices, c_advices, fortran_unoffered, c_unoffered;
  for (const auto& name : use.foreign_symbols) {
    bool is_fortran = is_fortran_entry(name.c_str());
    auto& names     = is_fortran ? fortran : c;
    if (std::find(names.begin(), names.end(), name) != names.end())
      continue;
    // The MPI function's name: MPI_X for the C symbols MPI_X and PMPI_X, and for the Fortran ones mpi_x_, pmpi_x_.
    std::string function = is_fortran ? fortran_mpi_name(starts_with(name.c_str(), "pmpi_") ? name.substr(1) : name)
                                      : (starts_with(name.c_str(), "PMPI_") ? name.substr(1) : name);
    std::string advice   = is_fortran ? fortran_advice(function) : c_advice(function);
    auto& advices        = is_fortran ? fortran_advices : c_advices;
    names.push_back(is_fortran ? function + " (" + name + ")" : name);
    auto& unoffered         = is_fortran ? fortran_unoffered : c_unoffered;
    auto& said              = advice.empty() ? unoffered : advices;
    const std::string& what = advice.empty() ? function : advice;
    if (std::find(said.begin(), said.end(), what) == said.end())
      said.push_back(what);
  }
  if (not fortran_unoffered.empty())
    fortran_advices.push_back(unoffered_advice(true, fortran_unoffered));
  if (not c_unoffered.empty())
    c_advices.push_back(unoffered_advice(false, c_unoffered));
  std::string message;
  if (not fortran.empty())
    message = program + " calls " + listed(fortran) +
              ", which bxisim's Fortran bindings do not offer: " + listed(fortran_advices) + ".";
  if (not c.empty())
    message += std::string(message.empty() ? "" : " ") + program + " calls " + listed(c) +
               ", which bxisim's mpi.h does not declare (the compiler took " +
               (c.size() > 1 ? "them for implicitly declared functions" : "it for an implicitly declared function") +
               "): " + joined(c_advices) + ".";
  return message;
}

} // namespace bxisim::mw
