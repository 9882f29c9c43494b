#include "ProgramCopies.hpp"

#include "ElfNeeded.hpp"
#include "UniqueSymbols.hpp"
#include "config/ConfigError.hpp"

#include <boost/algorithm/string.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sys/wait.h>

namespace bxisim::runtime
{

namespace fs = std::filesystem;

namespace
{
/** Runs patchelf with `arguments`; returns its standard output. Throws on failure. */
std::string patchelf(const std::vector<std::string>& arguments)
{
  std::string command = "'" BXISIM_PATCHELF "'";
  for (const auto& argument : arguments)
    command += " '" + argument + "'";
  command += " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr)
    throw config::ConfigError("cannot run " BXISIM_PATCHELF);
  std::string output;
  std::array<char, 4096> buffer;
  size_t count;
  while ((count = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    output.append(buffer.data(), count);
  int status = pclose(pipe);
  if (not WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw config::ConfigError(fmt::format("patchelf failed on {}: {}", arguments.back(), boost::trim_copy(output)));
  return boost::trim_copy(output);
}

std::vector<std::string> search_folders(const std::string& program)
{
  std::vector<std::string> folders = {fs::absolute(program).parent_path().string()};
  std::string rpath                = patchelf({"--print-rpath", program});
  std::vector<std::string> parts;
  boost::split(parts, rpath, boost::is_any_of(":"));
  for (auto part : parts) {
    boost::replace_all(part, "$ORIGIN", folders.front());
    boost::replace_all(part, "${ORIGIN}", folders.front());
    if (not part.empty())
      folders.push_back(part);
  }
  if (const char* library_path = std::getenv("LD_LIBRARY_PATH")) {
    boost::split(parts, std::string(library_path), boost::is_any_of(":"));
    for (const auto& part : parts)
      if (not part.empty())
        folders.push_back(part);
  }
  for (const char* system :
       {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib", "/usr/local/lib"})
    folders.emplace_back(system);
  return folders;
}
} // namespace

std::vector<std::string> openmp_runtimes_needed(const std::string& program)
{
  static const std::vector<std::string> runtimes = {"libgomp.so.1", "libomp.so", "libomp.so.5", "libiomp5.so"};
  std::vector<std::string> found;
  for (const auto& needed : elf_needed(program))
    if (std::find(runtimes.begin(), runtimes.end(), needed) != runtimes.end())
      found.push_back(needed);
  return found;
}

PrivatizedLibrary find_privatized_library(const std::string& name, const std::string& program)
{
  std::string found;
  if (name.find('/') != std::string::npos) {
    if (fs::is_regular_file(name))
      found = fs::absolute(name).string();
  } else {
    std::vector<std::string> candidates = {name, "lib" + name + ".so"};
    for (const auto& needed : elf_needed(program)) // `gomp` for the libgomp.so.1 the program needs
      if (boost::starts_with(needed, "lib" + name + ".so."))
        candidates.push_back(needed);
    for (const auto& folder : search_folders(program)) {
      for (const auto& candidate : candidates)
        if (fs::is_regular_file(fs::path(folder) / candidate)) {
          found = (fs::path(folder) / candidate).string();
          break;
        }
      if (not found.empty())
        break;
    }
  }
  if (found.empty())
    throw config::ConfigError(fmt::format("--privatize-lib {}: no such library (looked for a file of that name next "
                                          "to the program, in its RUNPATH, in LD_LIBRARY_PATH and in the system "
                                          "folders). Give its path.",
                                          name));
  std::string soname = patchelf({"--print-soname", found});
  if (soname.empty())
    soname = fs::path(found).filename().string();
  return {found, soname};
}

std::string make_rank_copies(RunFolder& folder, int rank, const std::string& program,
                             const std::vector<PrivatizedLibrary>& libraries)
{
  // What each file needs rebound, found once per run (the same for every rank's copy).
  static std::map<std::string, std::vector<SymbolRebinding>> unique_symbols;
  std::string rank_folder = folder.rank_folder(rank);
  auto copy               = [&](const std::string& original) {
    std::string destination = (fs::path(rank_folder) / fs::path(original).filename()).string();
    RunFolder::copy_file(original, destination);
    folder.add_file(destination);
    auto known = unique_symbols.find(original);
    if (known == unique_symbols.end())
      known = unique_symbols.emplace(original, unique_symbols_rebound_global(original)).first;
    rebind_symbols(destination, known->second);
    return destination;
  };
  std::string program_copy = copy(program);
  if (libraries.empty())
    return program_copy;

  // One patchelf edit per call: patchelf 0.14 corrupts the dynamic string table when one call both
  // sets a soname and replaces needed entries, or replaces an entry the file does not have.
  std::vector<std::string> copies = {program_copy};
  for (const auto& library : libraries) {
    copies.push_back(copy(library.path));
    patchelf({"--set-soname", fmt::format("{}.rank{}", library.soname, rank), copies.back()});
  }
  for (const auto& file : copies) {
    std::vector<std::string> needed = elf_needed(file);
    for (size_t i = 0; i < libraries.size(); ++i)
      if (std::find(needed.begin(), needed.end(), libraries[i].soname) != needed.end())
        patchelf({"--replace-needed", libraries[i].soname, copies[i + 1], file});
  }
  return program_copy;
}

} // namespace bxisim::runtime
