#include "RankActor.hpp"

#include "OutputRouter.hpp"
#include "ProgramCopies.hpp"
#include "hw/actors/StackShadow.hpp"
#include "middleware/RankMpi.hpp"
#include "runtime/os/CodePages.hpp"
#include "runtime/os/KilledRankTermination.hpp"
#include "runtime/os/RankCpuClock.hpp"
#include "runtime/os/RealFunctions.hpp"
#include "runtime/os/SimulatorCall.hpp"
#include "runtime/os/ThreadInterposition.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <dlfcn.h>
#include <unistd.h>

#include <csetjmp>
#include <cstdlib>
#include <ctime>
#include <cxxabi.h>
#include <exception>
#include <filesystem>
#include <fmt/format.h>
#include <typeinfo>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_runtime);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_rank, bxisim_runtime, "Rank actors: loading programs and running main");

namespace bxisim::runtime
{

namespace
{
using MainFunction = int (*)(int, char**, char**);

/**
 * Calls main; exit() in the rank longjmps back here (ProcessInterposition.cpp). Kept free of objects
 * with destructors, which a longjmp would skip.
 */
int call_main(Rank& rank, MainFunction main_function, int argc, char** argv)
{
  if (setjmp(rank.exit_jump) != 0) {
    hw::forget_frames_below_caller(rank.stack);
    return rank.exit_code();
  }
  rank.exit_jump_armed = true;
  // Returning from main is exit(code): the rank's exit handlers run, then exit() jumps back above.
  exit(main_function(argc, argv, environ));
}

/** A C++ name as written in the source (`mangled` itself when it is not one). */
std::string demangled(const char* mangled)
{
  int status       = 0;
  char* readable   = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && readable != nullptr ? readable : mangled;
  std::free(readable);
  return name;
}

/** The loader's message with the C++ name of an undefined symbol added ("undefined symbol: _ZTV6Solver (vtable for
 *  Solver)"). */
std::string with_readable_symbol(std::string why)
{
  const std::string marker = "undefined symbol: ";
  auto start               = why.find(marker);
  if (start == std::string::npos)
    return why;
  start += marker.size();
  auto end           = why.find_first_of(" ,\t", start);
  std::string symbol = why.substr(start, end == std::string::npos ? std::string::npos : end - start);
  std::string name   = demangled(symbol.c_str());
  if (name != symbol)
    why.insert(start + symbol.size(), " (" + name + ")");
  return why;
}

/** In a catch (...) block: the exception's type and, for a std::exception, its what(). */
std::string describe_current_exception()
{
  std::string type = "of unknown type";
  if (const std::type_info* info = abi::__cxa_current_exception_type())
    type = demangled(info->name());
  try {
    throw;
  } catch (const std::exception& error) {
    return fmt::format("{}: {}", type, error.what());
  } catch (...) {
    return type;
  }
}

/** What the current exception, thrown by the simulator into a rank's call, means for the program ("" when it
 * explains itself). */
std::string explain_current_exception()
{
  try {
    throw;
  } catch (const simgrid::NetworkFailureException&) {
    return " SimGrid failed a transfer of this rank. SMPI 3.32 does so when the program cancels a send after a "
           "receive has matched it: it cancels the transfer under way on both sides, where MPI says that such a "
           "send completes and that MPI_Test_cancelled then says false (or when a link of an XML platform goes "
           "down, by its state profile). At --level smpi, cancel only sends that no receive can have matched yet, "
           "or run the program at --level message.";
  } catch (...) {
    return "";
  }
}

double loading_cpu = 0;

double process_cpu_seconds()
{
  timespec now{};
  BXISIM_REAL(clock_gettime)(CLOCK_THREAD_CPUTIME_ID, &now); // the real one, whoever calls
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

/** The CPU-time clocks of the rank's main thread run while it lives (it ends with the process). */
struct CpuClockOfMainThread {
  explicit CpuClockOfMainThread(const Rank& rank) { os::start_cpu_clock(rank); }
  ~CpuClockOfMainThread() { os::stop_cpu_clock(); }
  CpuClockOfMainThread(const CpuClockOfMainThread&)            = delete;
  CpuClockOfMainThread& operator=(const CpuClockOfMainThread&) = delete;
};
} // namespace

double loading_cpu_seconds()
{
  return loading_cpu;
}

void run_rank(Rank& rank, const std::string& program_copy, std::vector<std::string> argv,
              const std::function<bool(Rank&)>& load_first, const std::function<int(Rank&, int)>& after_main)
{
  rank.stack          = hw::actor_stack_from(__builtin_frame_address(0));
  rank.main_actor_pid = simgrid::s4u::this_actor::get_pid();
  hw::forget_all_frames_at_exit(rank.stack);
  rank.mark_running();
  CpuClockOfMainThread cpu_clock(rank);
  rank.process_state().set_own_folder(std::filesystem::path(program_copy).parent_path().string());
  std::vector<char*> pointers;
  for (auto& argument : argv)
    pointers.push_back(argument.data());
  pointers.push_back(nullptr);

  try {
    // Not RTLD_DEEPBIND: a deep-bound copy would find libc's clock_gettime & co. before the
    // bxisim executable's, and time would silently stop being simulated.
    os::enter_rank_code(rank);
    if (load_first && not load_first(rank)) { // its copy of OpenMPI, say: said by load_first
      os::set_running_rank(nullptr);
      rank.process_state().save_globals();
      rank.mark_load_failed();
      return;
    }
    double load_start = process_cpu_seconds();
    void* handle      = dlopen(program_copy.c_str(), RTLD_NOW | RTLD_LOCAL);
    os::set_running_rank(nullptr);
    // Constructors ran as the rank's code: what they set (crtfastmath's flush-to-zero under -Ofast) is the rank's.
    rank.process_state().save_globals();
    if (handle == nullptr) {
      std::string why = with_readable_symbol(dlerror());
      // bxicc links programs as shared objects, which may keep undefined symbols until loaded here
      const char* advice =
          why.find("undefined symbol") != std::string::npos
              ? "The program uses a function or variable that nothing it was linked with defines (a missing object "
                "file or library, or a Fortran BIND(C) name that differs from the C one): link what defines it "
                "(bxicc links a program as a shared object, which the linker lets keep undefined names until it is "
                "loaded: mpicc's link would have failed)"
          : why.find("static TLS") != std::string::npos
              ? "Each rank loads its own copy of the libraries that use static TLS (the OpenMP runtime); bxisim makes "
                "room for them unless GLIBC_TUNABLES sets glibc.rtld.optional_static_tls, as it does here: raise "
                "that value, or leave it out (docs/running.md, OpenMP)"
              : "Build the program with bxicc, bxicxx or bxif90";
      XBT_ERROR("rank %d cannot load %s: %s. %s.", rank.index(), argv.front().c_str(), why.c_str(), advice);
      rank.mark_load_failed();
      return;
    }
    // Otherwise each rank's copies have pages of their own: N copies of the same code in memory (and in the
    // processor's caches, where the program's short code between two MPI calls runs after the other ranks').
    share_code_of_rank_copies(rank.index());
    auto main_function = reinterpret_cast<MainFunction>(dlsym(handle, "main"));
    if (main_function == nullptr) // main compiled hidden (-fvisibility=hidden): the wrappers' exported way in
      main_function = reinterpret_cast<MainFunction>(dlsym(handle, kProgramMainEntry));
    if (main_function == nullptr) {
      XBT_ERROR("rank %d: %s has no exported main function. Build it with bxicc or bxicxx (they keep main exported).",
                rank.index(), argv.front().c_str());
      rank.mark_load_failed();
      return;
    }
    mw::note_fortran_program(handle);
    mw::note_program_copy(rank.index(), reinterpret_cast<const void*>(main_function));
    if (Rank::cpu_settings().simulate && Rank::cpu_settings().measure)
      os::populate_code_of(handle);                // its first pass through each page of code is not its computation
    rank.set_own_code(os::code_ranges_of(handle)); // not before: constructors run under the loader's lock
    rank.set_program_copy(program_copy);
    rank.add_own_code_of(rank_copies_built_for_bxisim(rank.index()));
    loading_cpu += process_cpu_seconds() - load_start;
    XBT_DEBUG("rank %d runs main of %s on %s", rank.index(), program_copy.c_str(), rank.host()->get_cname());
    os::enter_rank_code(rank); // the loader's own work is not the rank's computation
    int code = call_main(rank, main_function, static_cast<int>(argv.size()), pointers.data());
    if (rank.killed_in_libc) // the kill SimGrid threw in a noexcept libc function, thrown again here
      throw simgrid::ForcefulKillException("killed while in a libc function of the rank");
    if (rank.state() != RankState::Ended) { // main returned (exit() already ended the rank)
      os::leave_rank_code(rank);
      rank.mark_ended(code & 0xff);
    }
    os::end_simulated_threads(rank); // the process ends with its main thread
    // Returning from main and exit() both end here: the level checks how the rank left (MPI_Finalize).
    if (after_main && rank.end_signal() == 0) {
      int checked = after_main(rank, rank.exit_code());
      if (checked != rank.exit_code())
        rank.mark_ended(checked & 0xff);
    }
  } catch (const simgrid::ForcefulKillException&) { // the simulation ended with this rank blocked
    hw::forget_frames_below_caller(rank.stack);
    os::set_running_rank(nullptr);
    rank.exit_jump_armed = false;
    if (not rank.ended_by_thread) // else a thread's exit() ended the process, with its code
      rank.mark_killed();
    throw;
  } catch (...) { // an uncaught exception, of any type: std::terminate would abort the process, a crash
    hw::forget_frames_below_caller(rank.stack);
    os::set_running_rank(nullptr);
    rank.process_state().save_globals(); // the simulator ends the run with its own floating-point state
    rank.exit_jump_armed = false;
    FILE* out            = OutputRouter::original_stderr();
    fmt::print(out,
               "bxisim: rank {} crashed (uncaught C++ exception {}) on {} at simulated time {:.9f} s; the other "
               "ranks are stopped.{}\n",
               rank.index(), describe_current_exception(), rank.node_name(), simgrid::s4u::Engine::get_clock(),
               explain_current_exception());
    std::fflush(out);
    rank.mark_crashed();
    os::kill_every_actor();
  }
  XBT_DEBUG("rank %d ended with code %d", rank.index(), rank.exit_code());
}

} // namespace bxisim::runtime
