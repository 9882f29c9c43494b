#include "ProgramCopies.hpp"

#include "ElfFile.hpp"
#include "ElfNeeded.hpp"
#include "FortranRuntimeNames.hpp"
#include "HostCommand.hpp"
#include "PlainMpiNames.hpp"
#include "UniqueSymbols.hpp"
#include "config/ConfigError.hpp"
#include "runtime/os/CodePages.hpp"
#include "runtime/os/SimulatorDescriptors.hpp"

#include <boost/algorithm/string.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <deque>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <unistd.h>

namespace bxisim::runtime
{

namespace fs = std::filesystem;

namespace
{
/** Runs patchelf with `arguments`; returns its standard output. Throws on failure. */
std::string patchelf(std::vector<std::string> arguments)
{
  arguments.insert(arguments.begin(), BXISIM_PATCHELF);
  HostCommandResult result = run_host_command(arguments, true);
  if (not result.started)
    throw config::ConfigError("cannot run " BXISIM_PATCHELF);
  if (not result.succeeded)
    throw config::ConfigError(
        fmt::format("patchelf failed on {}: {}", arguments.back(), boost::trim_copy(result.output)));
  return boost::trim_copy(result.output);
}

std::vector<std::string> library_path()
{
  std::vector<std::string> folders;
  if (const char* library_path = std::getenv("LD_LIBRARY_PATH")) {
    boost::split(folders, std::string(library_path), boost::is_any_of(":"));
    folders.erase(std::remove(folders.begin(), folders.end(), ""), folders.end());
  }
  return folders;
}

constexpr std::array<const char*, 5> kSystemFolders = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib",
                                                       "/usr/lib", "/usr/local/lib"};

/** The folders the dynamic loader looks in for what the file `needing` needs or opens, before its cache and the
 *  system's folders: its DT_RPATH, LD_LIBRARY_PATH, its DT_RUNPATH. */
std::vector<std::string> own_search_folders(const std::string& needing)
{
  auto [before, after]             = elf_search_path(needing);
  std::vector<std::string> folders = before;
  auto variable                    = library_path();
  folders.insert(folders.end(), variable.begin(), variable.end());
  folders.insert(folders.end(), after.begin(), after.end());
  return folders;
}

/** The folders the dynamic loader looks in, in its order, for what the file `needing` needs. */
std::vector<std::string> loader_folders(const std::string& needing)
{
  std::vector<std::string> folders = own_search_folders(needing);
  folders.insert(folders.end(), kSystemFolders.begin(), kSystemFolders.end());
  return folders;
}

/** Where --privatize-lib looks: next to the program, then where the loader would. */
std::vector<std::string> search_folders(const std::string& program)
{
  std::vector<std::string> folders = {fs::absolute(program).parent_path().string()};
  auto loader                      = loader_folders(program);
  folders.insert(folders.end(), loader.begin(), loader.end());
  return folders;
}

/** The file the dynamic loader loads for `name` from `folders` (loader_folders); empty when none is found (the loader
 *  then says so as the rank loads). */
std::string loaded_file(const std::string& name, const std::vector<std::string>& folders)
{
  if (name.find('/') != std::string::npos)
    return fs::is_regular_file(name) ? fs::absolute(name).string() : "";
  for (const auto& folder : folders)
    if (fs::is_regular_file(fs::path(folder) / name))
      return (fs::path(folder) / name).string();
  return "";
}

bool in_system_folder(const std::string& path)
{
  return boost::starts_with(path, "/lib/") || boost::starts_with(path, "/usr/lib/");
}

/** Whether the ELF file calls bxisim's MPI (its mpi.h names every function bxisim_MPI_...; from Fortran, the bindings'
 *  mpi_x_), Portals or PMI, or bxisim's own functions: it was built for bxisim, or at least calls MPI per process.
 *  (Plain MPI_x names alone do not tell: another MPI's C libraries call them too.) */
bool calls_bxisim(const std::string& path)
{
  auto file    = ElfFile::read(path);
  auto symbols = file ? file->dynamic_symbols() : std::nullopt;
  // MPI's Fortran bindings too (gfortran's names: mpi_comm_rank_), which a library built with bxif90 calls
  auto fortran_mpi = [](std::string_view name) {
    return (boost::starts_with(name, "mpi_") || boost::starts_with(name, "pmpi_")) && boost::ends_with(name, "_");
  };
  return symbols && std::any_of(symbols->begin(), symbols->end(), [&](const SymbolEntry& entry) {
           return entry.symbol.st_shndx == SHN_UNDEF &&
                  (boost::starts_with(entry.name, "bxisim_") || boost::starts_with(entry.name, "Ptl") ||
                   boost::starts_with(entry.name, "PMI") || fortran_mpi(entry.name));
         });
}

constexpr int kRankDigits = 7;

/** One file relinked for the placeholder rank 0000000: each rank's copy is it with the digits rewritten in place. */
struct Relinked {
  std::string file;
  std::vector<size_t> rank_digits; // where the placeholder rank's digits lie in it
};

/** What a run's copies are made of (one run per process), kept for the libraries the ranks open with dlopen. */
struct RunCopies {
  RunFolder* folder = nullptr;
  std::string program;
  std::vector<PrivatizedLibrary> libraries;
  std::vector<Relinked> relinked;                      // the program, then `libraries`, in order
  std::map<std::string, std::vector<ByteEdit>> edits;  // per original file: what each copy of it needs changed
  std::map<std::string, std::string> original_by_name; // file name of a copy in a rank's folder -> its original
  // Libraries opened with dlopen: their relinked files (file name "opened-...") and the opened ones they need.
  struct Opened {
    Relinked relinked;
    std::vector<std::string> needs; // originals of the opened libraries it needs, copied with it
  };
  std::map<std::string, Opened> opened;         // by original
  std::set<std::pair<int, std::string>> made;   // (rank, original) copies already in the rank's folder
  std::set<std::pair<int, std::string>> shared; // (rank, original) opened copies whose code is mapped from the run's
  std::map<std::string, bool> built_for_bxisim; // by original: calls bxisim or needs a library that does
  std::optional<bool> renames_fortran_runtime;  // found once the libraries are known (renames_fortran_runtime())
  // Open for the whole run on the files the copies map their code from (share_code_of_rank_copies): the program as it
  // was when the run started, even if it is rebuilt meanwhile.
  std::map<std::string, int> code_sources;
};
RunCopies run;

std::string rank_link(int which)
{
  return fmt::format("{}/{:0{}d}", run.folder->sub_folder("by-rank"), which, kRankDigits);
}

/** The rank's folder under its fixed-width link (made here once). */
std::string linked_rank_folder(int rank)
{
  std::string link   = rank_link(rank);
  std::string target = run.folder->rank_folder(rank);
  if (symlink(target.c_str(), link.c_str()) == 0)
    run.folder->add_file(link);
  else if (errno != EEXIST)
    throw config::ConfigError(fmt::format("cannot create {}: {}", link, std::strerror(errno)));
  return link;
}

/** Whether the run gives each rank its own libgfortran, under names of its own (FortranRuntimeNames.hpp). */
bool renames_fortran_runtime()
{
  if (not run.renames_fortran_runtime) {
    auto library                = std::find_if(run.libraries.begin(), run.libraries.end(),
                                               [](const PrivatizedLibrary& l) { return l.soname == kFortranRuntime; });
    auto file                   = library == run.libraries.end() ? std::nullopt : ElfFile::read(library->path);
    run.renames_fortran_runtime = file && fortran_runtime_renamable(*file);
  }
  return *run.renames_fortran_runtime;
}

/** Copies `original` into `destination_folder` as `name` (its own file name by default), with the edits every copy of
 *  it needs (found once per original). */
std::string copy_with_edits(const std::string& destination_folder, const std::string& original,
                            const std::string& name = "")
{
  std::string destination =
      (fs::path(destination_folder) / (name.empty() ? fs::path(original).filename().string() : name)).string();
  RunFolder::copy_file(original, destination);
  run.folder->add_file(destination);
  auto known = run.edits.find(original);
  if (known == run.edits.end()) {
    std::vector<ByteEdit> found;
    if (auto file = ElfFile::read(original)) {
      found           = unique_symbols_rebound_global(*file);
      auto redirected = plain_mpi_calls_redirected(*file, original);
      found.insert(found.end(), redirected.begin(), redirected.end());
      if (renames_fortran_runtime()) {
        auto renamed = fortran_runtime_names_renamed(*file, original);
        found.insert(found.end(), renamed.begin(), renamed.end());
      }
    }
    known = run.edits.emplace(original, std::move(found)).first;
  }
  apply_edits(destination, known->second);
  return destination;
}

/** Where the placeholder rank's digits lie in `file`. */
Relinked find_rank_digits(const std::string& file)
{
  std::string placeholder = rank_link(0);
  std::ifstream input(file, std::ios::binary);
  std::string image((std::istreambuf_iterator<char>(input)), std::istreambuf_iterator<char>());
  Relinked entry{file, {}};
  for (size_t at = image.find(placeholder); at != std::string::npos; at = image.find(placeholder, at + 1))
    entry.rank_digits.push_back(at + placeholder.size() - kRankDigits);
  return entry;
}

/** Copies a relinked file into the rank's folder and writes the rank's digits into it; returns the copy's path. */
std::string copy_for_rank(const Relinked& relinked, int rank)
{
  std::string link   = linked_rank_folder(rank);
  std::string digits = link.substr(link.size() - kRankDigits);
  std::string copy   = (fs::path(run.folder->rank_folder(rank)) / fs::path(relinked.file).filename()).string();
  RunFolder::copy_file(relinked.file, copy);
  run.folder->add_file(copy);
  std::vector<ByteEdit> rank_digits;
  for (size_t offset : relinked.rank_digits)
    rank_digits.push_back({offset, digits});
  apply_edits(copy, rank_digits);
  return copy;
}

/** The path of the rank's copy of a relinked file, as the rank's copies name it (through its fixed-width link). */
std::string rank_path_of(const Relinked& relinked, int rank)
{
  return linked_rank_folder(rank) + "/" + fs::path(relinked.file).filename().string();
}

/** A file name for the copies of `original` that no other original's copies have in a rank's folder: `prefix` and
 *  its own name, numbered from 2 when taken; recorded. */
std::string unique_copy_name(const std::string& prefix, const std::string& original)
{
  std::string own  = fs::path(original).filename().string();
  std::string name = prefix + own;
  for (int n = 2; run.original_by_name.count(name) > 0 && run.original_by_name.at(name) != original; ++n)
    name = fmt::format("{}{}-{}", prefix, n, own);
  run.original_by_name.emplace(name, original);
  return name;
}

/** Whether `needed`, a DT_NEEDED entry of the file `needing` (an original, not a copy: its $ORIGIN is the original's
 *  folder), names `library`: by its soname, or, when it has none, by the file the loader finds for the entry (the
 *  linker writes the path it was given, or the file's name for `-lname`). */
bool names(const std::string& needed, const PrivatizedLibrary& library, const std::string& needing)
{
  if (not library.soname.empty())
    return needed == library.soname;
  if (needed.find('/') == std::string::npos && needed != fs::path(library.path).filename().string())
    return false;
  std::string file = loaded_file(needed, loader_folders(needing));
  std::error_code error;
  return not file.empty() && fs::equivalent(file, library.path, error) && not error;
}

std::string soname_of(const std::string& library)
{
  auto sonames = elf_dynamic_strings(library, DT_SONAME);
  return sonames.empty() ? fs::path(library).filename().string() : sonames.front();
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

bool fortran_runtime_needed(const std::string& program, const std::vector<PrivatizedLibrary>& libraries)
{
  auto needs = [](const std::string& file) {
    auto needed = elf_needed(file);
    return std::find(needed.begin(), needed.end(), kFortranRuntime) != needed.end();
  };
  return needs(program) || std::any_of(libraries.begin(), libraries.end(),
                                       [&](const PrivatizedLibrary& library) { return needs(library.path); });
}

std::vector<std::string> libraries_built_for_bxisim(const std::string& program)
{
  std::vector<std::string> read;                         // the libraries found, in the order found
  std::map<std::string, std::vector<std::string>> needs; // what each needs, as files
  std::map<std::string, std::string> by_name; // a name already loaded is not looked for again, as by the loader
  std::deque<std::string> to_read = {fs::absolute(program).string()}; // breadth first, as the loader
  while (not to_read.empty()) {
    std::string file = to_read.front();
    to_read.pop_front();
    std::vector<std::string> folders = loader_folders(file);
    for (const auto& name : elf_needed(file)) {
      auto known          = by_name.find(name);
      std::string library = known != by_name.end() ? known->second : loaded_file(name, folders);
      by_name.emplace(name, library);
      if (library.empty() || in_system_folder(library)) // the system's libraries were not built for bxisim
        continue;
      needs[file].push_back(library);
      if (needs.count(library) == 0) {
        needs[library];
        read.push_back(library);
        to_read.push_back(library);
      }
    }
  }
  std::vector<std::string> found;
  for (const auto& library : read)
    if (calls_bxisim(library))
      found.push_back(library);
  // A library that needs one of them reaches the rank's copy only from a copy of its own (else it binds the
  // original, loaded once for all): the whole chain up to the program.
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& library : read)
      if (std::find(found.begin(), found.end(), library) == found.end() &&
          std::any_of(needs[library].begin(), needs[library].end(), [&found](const std::string& needed) {
            return std::find(found.begin(), found.end(), needed) != found.end();
          })) {
        found.push_back(library);
        grew = true;
      }
  }
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
  return {found, patchelf({"--print-soname", found})};
}

std::string make_rank_copies(RunFolder& folder, int rank, const std::string& program,
                             const std::vector<PrivatizedLibrary>& libraries)
{
  if (run.folder == nullptr) {
    run.folder    = &folder;
    run.program   = fs::absolute(program).string();
    run.libraries = libraries;
    run.original_by_name.emplace(fs::path(program).filename().string(), run.program);
    run.code_sources[run.program] = os::move_to_simulator_range(::open(run.program.c_str(), O_RDONLY | O_CLOEXEC));
  }
  if (libraries.empty())
    return copy_with_edits(folder.rank_folder(rank), run.program);

  // A rank's copies name each other by absolute paths through `<run>/by-rank/NNNNNNN`, a link to the rank's folder of
  // fixed width: one relinked set is made per run with rank 0000000, and each rank's copies are that set with the
  // digits rewritten in place (patchelf per rank cost 17 ms per rank with two libraries). Paths, not $ORIGIN: the
  // loader matches a library's version requirements (libgomp's) by the name it was needed by, unexpanded.
  // One patchelf edit per call: patchelf 0.14 corrupts the dynamic string table when one call both sets a soname and
  // replaces needed entries, or replaces an entry the file does not have.
  std::string placeholder = rank_link(0);
  if (run.relinked.empty()) {
    std::string relinked_folder        = folder.sub_folder("relinked");
    std::vector<std::string> files     = {copy_with_edits(relinked_folder, program)};
    std::vector<std::string> originals = {run.program};
    for (const auto& library : libraries) {
      originals.push_back(library.path);
      // Two libraries of one file name from different folders (needed by their paths) get copies of their own
      files.push_back(copy_with_edits(relinked_folder, library.path, unique_copy_name("", library.path)));
      // Not the original's soname: a library left shared that needs it by name gets the shared original.
      if (not library.soname.empty())
        patchelf({"--set-soname", library.soname + ".bxisim-rank-copy", files.back()});
    }
    // A library is needed by its soname, or by its path when it has none and was linked by path (`cc main.c
    // ./libfoo.so`: the loader reads a relative one from the working folder, as here).
    for (size_t f = 0; f < files.size(); ++f)
      for (const auto& needed : elf_needed(files[f]))
        for (size_t i = 0; i < libraries.size(); ++i)
          if (names(needed, libraries[i], originals[f]))
            patchelf(
                {"--replace-needed", needed, placeholder + "/" + fs::path(files[i + 1]).filename().string(), files[f]});
    for (const auto& file : files)
      run.relinked.push_back(find_rank_digits(file));
  }
  std::string program_copy;
  for (const auto& relinked : run.relinked) {
    std::string copy = copy_for_rank(relinked, rank);
    if (program_copy.empty())
      program_copy = copy;
  }
  return program_copy;
}

bool built_for_bxisim_or_needs_one(const std::string& library)
{
  if (in_system_folder(library)) // the system's libraries were not built for bxisim
    return false;
  auto known = run.built_for_bxisim.find(library);
  if (known != run.built_for_bxisim.end())
    return known->second;
  run.built_for_bxisim[library] = false; // a library that needs itself through others
  bool built                    = calls_bxisim(library);
  if (not built) {
    std::vector<std::string> folders = loader_folders(library);
    for (const auto& needed : elf_needed(library)) {
      // One of the program's libraries built for bxisim, loaded already: the loader takes it by its name
      bool privatized =
          std::any_of(run.libraries.begin(), run.libraries.end(),
                      [&](const PrivatizedLibrary& library_known) { return names(needed, library_known, library); });
      std::string file = privatized ? "" : loaded_file(needed, folders);
      if (privatized || (not file.empty() && built_for_bxisim_or_needs_one(file))) {
        built = true;
        break;
      }
    }
  }
  run.built_for_bxisim[library] = built;
  return built;
}

namespace
{
/** The relinked file of an opened library (and of the opened libraries it needs), made once per run. */
const RunCopies::Opened& relinked_opened(const std::string& original)
{
  auto known = run.opened.find(original);
  if (known != run.opened.end())
    return known->second;
  // A file name of its own in the ranks' folders, beside the program's copies
  RunCopies::Opened& opened = run.opened[original];
  std::string copy = copy_with_edits(run.folder->sub_folder("opened"), original, unique_copy_name("opened-", original));
  patchelf({"--set-soname", soname_of(original) + ".bxisim-rank-copy", copy});
  std::string placeholder          = rank_link(0);
  std::vector<std::string> folders = loader_folders(original);
  for (const auto& needed : elf_needed(original)) {
    std::string target;
    for (size_t i = 0; i < run.libraries.size() && target.empty(); ++i)
      if (names(needed, run.libraries[i], original))
        target = fs::path(run.relinked.at(i + 1).file).filename().string();
    std::string file = target.empty() ? loaded_file(needed, folders) : "";
    if (not file.empty() && built_for_bxisim_or_needs_one(file)) {
      target = fs::path(relinked_opened(file).relinked.file).filename().string();
      opened.needs.push_back(file);
    }
    if (not target.empty())
      patchelf({"--replace-needed", needed, placeholder + "/" + target, copy});
  }
  opened.relinked = find_rank_digits(copy);
  return opened;
}
} // namespace

std::string rank_copy_of_opened_library(int rank, const std::string& library)
{
  if (run.folder == nullptr)
    throw std::logic_error("rank_copy_of_opened_library before the ranks' copies were made");
  std::error_code error;
  if (fs::equivalent(library, run.program, error))
    return (fs::path(run.folder->rank_folder(rank)) / fs::path(run.program).filename()).string();
  for (size_t i = 0; i < run.libraries.size(); ++i)
    if (fs::equivalent(library, run.libraries[i].path, error)) // the rank's copy, loaded with the program
      return rank_path_of(run.relinked.at(i + 1), rank);
  const RunCopies::Opened& opened = relinked_opened(library);
  if (run.made.emplace(rank, library).second) {
    for (const auto& needed : opened.needs)
      rank_copy_of_opened_library(rank, needed);
    copy_for_rank(opened.relinked, rank);
  }
  return rank_path_of(opened.relinked, rank);
}

std::vector<std::string> rank_copies_built_for_bxisim(int rank, const std::string& opened)
{
  std::vector<std::string> copies;
  if (run.folder == nullptr)
    return copies;
  if (opened.empty()) {
    for (size_t i = 0; i < run.libraries.size(); ++i)
      if (built_for_bxisim_or_needs_one(run.libraries[i].path))
        copies.push_back(rank_path_of(run.relinked.at(i + 1), rank));
    return copies;
  }
  std::string original = original_of_copy(opened);
  auto found           = run.opened.find(original);
  if (found == run.opened.end())
    return copies;
  copies.push_back(opened);
  for (const auto& needed : found->second.needs)
    for (const auto& copy : rank_copies_built_for_bxisim(rank, rank_path_of(run.opened.at(needed).relinked, rank)))
      copies.push_back(copy);
  return copies;
}

namespace
{
/** Maps the read-only pages of `copy` (loaded) from `source` where their bytes are the same (all but `differing`), and
 *  gives back their disk space. */
void share_code(const std::string& copy, const std::string& source,
                const std::vector<std::pair<off_t, std::size_t>>& differing)
{
  void* handle = dlopen(copy.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr)
    return;
  auto [known, added] = run.code_sources.try_emplace(source, -1);
  if (added)
    known->second = os::move_to_simulator_range(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
  auto shared = os::share_read_only_pages(handle, known->second, differing);
  if (not shared.empty())
    os::release_file_ranges(copy, shared);
  dlclose(handle);
}

/** The same for the rank's copy of a relinked file: the run's relinked file but for the rank's digits. */
void share_code_of_relinked(const Relinked& relinked, int rank)
{
  std::vector<std::pair<off_t, std::size_t>> digits;
  for (size_t offset : relinked.rank_digits)
    digits.emplace_back(static_cast<off_t>(offset), kRankDigits);
  share_code(rank_path_of(relinked, rank), relinked.file, digits);
}
} // namespace

void share_code_of_rank_copies(int rank)
{
  if (run.folder == nullptr)
    return;
  if (run.relinked.empty()) { // the program alone, copied from the original with its edits
    std::vector<std::pair<off_t, std::size_t>> edited;
    if (auto edits = run.edits.find(run.program); edits != run.edits.end())
      for (const auto& edit : edits->second)
        edited.emplace_back(static_cast<off_t>(edit.offset), edit.bytes.size());
    share_code((fs::path(run.folder->rank_folder(rank)) / fs::path(run.program).filename()).string(), run.program,
               edited);
    return;
  }
  for (const auto& relinked : run.relinked)
    share_code_of_relinked(relinked, rank);
}

void share_code_of_opened_copies(int rank, const std::string& opened)
{
  auto found = run.opened.find(original_of_copy(opened));
  if (run.folder == nullptr || found == run.opened.end() || not run.shared.emplace(rank, found->first).second)
    return;
  share_code_of_relinked(found->second.relinked, rank);
  for (const auto& needed : found->second.needs)
    share_code_of_opened_copies(rank, rank_path_of(run.opened.at(needed).relinked, rank));
}

std::string original_of_copy(const std::string& path)
{
  auto known  = run.original_by_name.find(fs::path(path).filename().string());
  bool in_run = run.folder != nullptr && boost::starts_with(path, run.folder->path() + "/");
  return in_run && known != run.original_by_name.end() ? known->second : path;
}

std::string library_opened_by(const std::string& name, const std::string& caller)
{
  return loaded_file(name,
                     name.find('/') != std::string::npos ? std::vector<std::string>() : own_search_folders(caller));
}

} // namespace bxisim::runtime
