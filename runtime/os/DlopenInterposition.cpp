// dlopen from a rank's code. Under mpirun each process loads its own copy of a plugin; here the loader would load one
// for all ranks, whose globals they would share: a plugin built for bxisim (it calls MPI, Portals or PMI) opened by a
// rank's copy of the program or of its libraries is given the rank's own copy instead (runtime/launch/ProgramCopies).
//
// The loader looks for a bare name in the DT_RPATH and DT_RUNPATH of the object that calls dlopen, which is now this
// interposer: those of the caller's original file are read here, and the library found there is opened by its path.
// dlopen(NULL) from a rank's code gives the rank's copy of the program, its main program: dlsym on it finds the
// program's own functions, as in a process of a program linked with -rdynamic (bxicc's programs export theirs).

#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/CrashReport.hpp"
#include "runtime/launch/ProgramCopies.hpp"
#include "runtime/launch/Rank.hpp"

#include <fmt/format.h>

#include <dlfcn.h>

#include <cstring>
#include <exception>
#include <string>

namespace
{
/** Whether the caller lies in the bxisim executable: its own calls keep the loader's answers unchanged. */
bool in_bxisim(const Dl_info& info)
{
  static Dl_info own = [] {
    Dl_info found{};
    dladdr(reinterpret_cast<const void*>(&in_bxisim), &found);
    return found;
  }();
  return info.dli_fbase == own.dli_fbase;
}
/** Whether the caller is the running rank's own code: one of its copies, from the simulation's thread. */
bool from_rank_code(const Dl_info& info)
{
  bxisim::runtime::Rank* rank = bxisim::os::running_rank();
  if (rank == nullptr || rank->in_library() || rank->program_copy().empty())
    return false;
  try {
    return bxisim::runtime::original_of_copy(info.dli_fname) != info.dli_fname;
  } catch (const std::exception&) {
    return false;
  }
}
} // namespace

extern "C" void* dlopen(const char* file, int mode)
{
  static auto* const real = BXISIM_REAL(dlopen);
  const void* caller      = __builtin_extract_return_addr(__builtin_return_address(0));
  Dl_info info{};
  if (dladdr(caller, &info) == 0 || info.dli_fname == nullptr || info.dli_fname[0] == '\0' || in_bxisim(info))
    return real(file, mode);
  if (file == nullptr) // the main program: for a rank's code, the rank's copy of the program (never made global)
    return from_rank_code(info)
               ? real(bxisim::os::running_rank()->program_copy().c_str(), (mode & ~RTLD_GLOBAL) | RTLD_NOLOAD)
               : real(file, mode);
  bool has_slash              = std::strchr(file, '/') != nullptr;
  bxisim::runtime::Rank* rank = bxisim::os::running_rank();
  std::string found;
  bool from_rank_copy = false;
  try {
    // Only the simulation's thread reads the run's copies (a library thread's caller is taken as it is).
    std::string caller_file = rank != nullptr ? bxisim::runtime::original_of_copy(info.dli_fname) : info.dli_fname;
    from_rank_copy          = rank != nullptr && not rank->in_library() && caller_file != info.dli_fname;
    found                   = bxisim::runtime::library_opened_by(file, caller_file);
  } catch (const std::exception&) { // a caller's file that cannot be read: the loader's own answer
    found.clear();
  }
  if (from_rank_copy && not found.empty() && bxisim::runtime::built_for_bxisim_or_needs_one(found)) {
    std::string copy;
    try {
      bxisim::os::SimulatorCall call; // making the copy is the simulator's work, not the rank's computation
      copy = bxisim::runtime::rank_copy_of_opened_library(rank->index(), found);
    } catch (const std::exception& error) {
      bxisim::runtime::abort_unsupported(
          fmt::format("bxisim: rank {} opens {} (dlopen): a library built for bxisim, of which each rank needs a copy "
                      "of its own, but making it failed: {}",
                      rank->index(), file, error.what())
              .c_str());
    }
    void* handle = real(copy.c_str(), mode);
    if (handle != nullptr) // threads it creates are the rank's, as the program's
      rank->add_own_code_of(bxisim::runtime::rank_copies_built_for_bxisim(rank->index(), copy));
    return handle;
  }
  return real(has_slash || found.empty() ? file : found.c_str(), mode);
}
