// dlopen from a rank's code. Under mpirun each process loads its own copy of a plugin; here the loader would load one
// for all ranks, whose globals they would share: a plugin built for bxisim (it calls MPI, Portals or PMI) opened by a
// rank's copy of the program or of its libraries is given the rank's own copy instead (runtime/launch/ProgramCopies).
//
// The loader looks for a bare name in the DT_RPATH and DT_RUNPATH of the object that calls dlopen, which is now this
// interposer: those of the caller's original file are read here, and the library found there is opened by its path.
// dlopen(NULL) from a rank's code gives the rank's copy of the program, its main program: dlsym on it finds the
// program's own functions, as in a process of a program linked with -rdynamic (bxicc's programs export theirs).
// dlsym(RTLD_DEFAULT) from a rank's code, its libraries' included, searches as a process's global scope would: the
// rank's program first, then the global scope (bxisim's interposed functions), then the rank's copies of libraries.

#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "ThreadInterposition.hpp"
#include "runtime/launch/CrashReport.hpp"
#include "runtime/launch/ProgramCopies.hpp"
#include "runtime/launch/Rank.hpp"

#include <fmt/format.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
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
    if (handle != nullptr) {
      {
        bxisim::os::SimulatorCall call;                                    // the simulator's work, as making the copy
        bxisim::runtime::share_code_of_opened_copies(rank->index(), copy); // the ranks' copies share their code pages
      }
      // threads it creates are the rank's, as the program's
      rank->add_own_code_of(bxisim::runtime::rank_copies_built_for_bxisim(rank->index(), copy));
    }
    return handle;
  }
  return real(has_slash || found.empty() ? file : found.c_str(), mode);
}

using DlsymFunction = void* (*)(void*, const char*);
/** The C library's dlsym, once found (the stub below reads it). */
extern "C" {
__attribute__((used)) DlsymFunction bxisim_real_dlsym = nullptr;
}

/** Finds the C library's dlsym (dlvsym is not interposed). */
extern "C" __attribute__((used)) DlsymFunction bxisim_resolve_real_dlsym()
{
  if (bxisim_real_dlsym == nullptr)
    bxisim_real_dlsym = reinterpret_cast<DlsymFunction>(dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34"));
  if (bxisim_real_dlsym == nullptr)
    bxisim_real_dlsym = reinterpret_cast<DlsymFunction>(dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5"));
  if (bxisim_real_dlsym == nullptr) {
    std::fprintf(stderr, "bxisim: cannot find the C library's dlsym (%s)\n", dlerror());
    std::abort();
  }
  return bxisim_real_dlsym;
}

/**
 * dlsym(RTLD_DEFAULT, name), reached from the stub with the caller's return address still on the stack. For the code of
 * a rank (its program, its libraries, shared ones too, and the threads they create) the search is a process's: its
 * program first. The loader's own search found a shared library's lookups of the program's functions nowhere (the
 * program's copy is loaded locally) and put bxisim's definitions before the program's.
 */
extern "C" __attribute__((used, noinline)) void* bxisim_dlsym_default(void* handle, const char* name)
{
  const void* caller       = __builtin_extract_return_addr(__builtin_return_address(0));
  DlsymFunction real_dlsym = bxisim_resolve_real_dlsym();
  Dl_info info{};
  if (dladdr(caller, &info) == 0 || info.dli_fname == nullptr || in_bxisim(info))
    return real_dlsym(handle, name);
  bxisim::runtime::Rank* rank = bxisim::os::running_rank(); // on the simulation's thread, while a rank's code runs
  if (rank == nullptr)
    rank = bxisim::os::creator_of_this_thread(); // a real thread that a library of the rank made
  if (rank == nullptr || rank->program_copy().empty())
    return real_dlsym(handle, name);
  void* program = dlopen(rank->program_copy().c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (program == nullptr)
    return real_dlsym(handle, name);
  void* in_program_scope = real_dlsym(program, name); // the program's copy, then its libraries' (the rank's copies)
  dlclose(program);
  Dl_info where{};
  if (in_program_scope != nullptr && dladdr(in_program_scope, &where) != 0 && where.dli_fname == rank->program_copy())
    return in_program_scope; // defined by the program itself, which comes first in a process
  if (void* global = real_dlsym(RTLD_DEFAULT, name); global != nullptr)
    return global; // bxisim's interposed functions, the C library, the libraries every rank shares
  if (in_program_scope != nullptr)
    dlerror();             // found in a library of the rank's own: no error left for the program's dlerror() to read
  return in_program_scope; // or nothing, and dlerror() says what was missing
}

// dlsym itself: a stub that jumps (not calls) to the C library's for every handle but RTLD_DEFAULT, so that the C
// library still finds the caller's object from the return address (RTLD_NEXT searches after the caller's object).
asm(R"(
    .text
    .globl dlsym
    .type dlsym, @function
dlsym:
    endbr64
    test %rdi, %rdi
    jz bxisim_dlsym_default
    mov bxisim_real_dlsym(%rip), %rax
    test %rax, %rax
    jz 1f
    jmp *%rax
1:  push %rdi
    push %rsi
    sub $8, %rsp
    call bxisim_resolve_real_dlsym
    add $8, %rsp
    pop %rsi
    pop %rdi
    jmp *%rax
    .size dlsym, .-dlsym
)");
