// What a rank sees of its process: its own pid, its node's hostname, exit() ending only itself (after
// running its exit handlers), no fork or exec, and host commands (system, popen, posix_spawn).

#include "ProcessState.hpp"
#include "RankEnd.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "ThreadInterposition.hpp"
#include "runtime/launch/CrashReport.hpp"
#include "runtime/launch/Rank.hpp"

#include <fmt/format.h>
#include <simgrid/Exception.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cerrno>
#include <csetjmp>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <spawn.h>
#include <sys/utsname.h>
#include <unistd.h>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_runtime);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_process, bxisim_runtime,
                                "What ranks see of their process: exit, signals, process creation");

namespace
{
using bxisim::os::running_rank;
using bxisim::runtime::Rank;

/**
 * Ends the calling rank: its last CPU burst is simulated and its exit code recorded, then control
 * jumps back to where the rank actor called main (RankActor.cpp), skipping the rank's frames as
 * exit() would. A jump rather than an exception: exit() is noexcept and its callers may be C.
 * Returns when the caller is not a rank's main thread.
 */
void end_rank(int status, bool run_exit_handlers)
{
  Rank* rank = running_rank();
  if (rank == nullptr || not rank->exit_jump_armed)
    return;
  if (run_exit_handlers) // the rank's own code: it may print, or call the simulator
    rank->process_state().run_exit_handlers();
  bxisim::os::end_process_from_thread(*rank, status & 0xff); // from a thread it created: does not return
  bxisim::os::set_running_rank(nullptr);
  rank->process_state().save_globals();
  rank->killed_in_libc = bxisim::os::killed_in_last_burst(*rank);
  rank->mark_ended(status & 0xff);
  rank->exit_jump_armed = false;
  std::longjmp(rank->exit_jump, 1);
}

/** A rank may not fork or exec: the child would be a second copy of the whole simulator, or replace it. */
int refuse_process_creation(Rank& rank, const char* call, const char* what)
{
  XBT_ERROR("rank %d called %s%s: ranks of bxisim cannot fork or exec (the child would be a copy of the whole "
            "simulator, not a process of the simulated machine; exec would replace the simulator); the call fails "
            "with ENOSYS. system, popen and posix_spawn run their command on the host.",
            rank.index(), call, what);
  errno = ENOSYS;
  return -1;
}

/**
 * system, popen and posix_spawn start a new program at once (glibc spawns it with vfork semantics: no copy of the
 * simulator runs): a rank's command runs on the host, outside the simulated machine, as under mpirun or smpirun
 * (`mkdir -p` of an output folder, say), while the simulation waits; it takes no simulated time. Said once for each of
 * these calls (one `said` per instantiation).
 */
template <typename Call>
auto run_on_host(Rank& rank, const char* call, const char* what, Call real_call) -> decltype(real_call())
{
  static bool said = false;
  if (not said) {
    said = true;
    XBT_INFO("rank %d called %s%s: the command runs on the host, outside the simulation, and takes no simulated "
             "time (said once for each of these calls).",
             rank.index(), call, what);
  }
  bxisim::os::SimulatorCall outside; // the rank's code does not run meanwhile: its wait is not its computation
  return real_call();
}

std::string quoted(const char* text)
{
  return text != nullptr ? std::string("(\"") + text + "\")" : std::string("()");
}
} // namespace

bool bxisim::os::killed_in_last_burst(Rank& rank)
{
  try {
    rank.simulate_burst(rank.end_burst());
  } catch (const simgrid::ForcefulKillException&) {
    return true;
  }
  return false;
}

void bxisim::os::end_rank_by_signal(Rank& rank, int signal_number)
{
  if (not rank.exit_jump_armed)
    return;
  set_running_rank(nullptr);
  rank.process_state().save_globals();
  rank.killed_in_libc = killed_in_last_burst(rank);
  rank.mark_killed_by(signal_number);
  rank.exit_jump_armed = false;
  std::longjmp(rank.exit_jump, 1);
}

void bxisim::os::leave_killed_rank(Rank& rank)
{
  leave_killed_thread(); // a simulated thread of the rank leaves through its own start
  if (not rank.exit_jump_armed)
    return;
  set_running_rank(nullptr);
  rank.killed_in_libc  = true;
  rank.exit_jump_armed = false;
  std::longjmp(rank.exit_jump, 1);
}

extern "C" {

pid_t getpid() noexcept
{
  if (Rank* rank = running_rank())
    return rank->simulated_pid();
  return BXISIM_REAL(getpid)();
}

int gethostname(char* name, size_t length) noexcept
{
  Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(gethostname)(name, length);
  const std::string& host = rank->node_name();
  if (host.size() + 1 > length) {
    errno = ENAMETOOLONG;
    return -1;
  }
  std::memcpy(name, host.c_str(), host.size() + 1);
  return 0;
}

// The form -D_FORTIFY_SOURCE makes of gethostname into an array of known size with a length that is not a constant.

int __gethostname_chk(char* name, size_t length, size_t name_size) noexcept
{
  if (length > name_size)
    __chk_fail();
  return gethostname(name, length);
}

// The node's name in uname's too: programs group ranks by node with either (hashing the name to split a communicator).
int uname(struct utsname* names) noexcept
{
  int result = BXISIM_REAL(uname)(names);
  Rank* rank = running_rank();
  if (result != 0 || rank == nullptr)
    return result;
  const std::string& host = rank->node_name();
  size_t length           = std::min(host.size(), sizeof(names->nodename) - 1);
  std::memcpy(names->nodename, host.c_str(), length);
  names->nodename[length] = '\0';
  return 0;
}

void exit(int status) noexcept
{
  end_rank(status, true);
  BXISIM_REAL(exit)(status);
  __builtin_unreachable();
}

void _exit(int status)
{
  end_rank(status, false);
  BXISIM_REAL(_exit)(status);
  __builtin_unreachable();
}

void _Exit(int status) noexcept
{
  end_rank(status, false);
  BXISIM_REAL(_Exit)(status);
  __builtin_unreachable();
}

// atexit() (in libc_nonshared.a, linked into the program) and static destructors register here, with
// the handle of the object that registers. Those of the rank's own copies run when the rank ends;
// those of shared libraries (libstdc++, ...) belong to the process.
int __cxa_atexit(void (*handler)(void*), void* argument, void* dso_handle) noexcept
{
  Rank* rank = running_rank();
  if (rank == nullptr || not rank->process_state().belongs_to_rank(dso_handle))
    return BXISIM_REAL(__cxa_atexit)(handler, argument, dso_handle);
  rank->process_state().exit_handlers.push_back({handler, argument});
  return 0;
}

pid_t fork() noexcept
{
  if (Rank* rank = running_rank())
    return refuse_process_creation(*rank, "fork", "()");
  return BXISIM_REAL(fork)();
}

pid_t vfork() noexcept
{
  if (Rank* rank = running_rank())
    return refuse_process_creation(*rank, "vfork", "()");
  return BXISIM_REAL(fork)(); // vfork's child must not return from here: fork is the safe equivalent
}

int system(const char* command)
{
  Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(system)(command);
  return run_on_host(*rank, "system", quoted(command).c_str(), [&] { return BXISIM_REAL(system)(command); });
}

FILE* popen(const char* command, const char* mode)
{
  Rank* rank = running_rank();
  if (rank == nullptr)
    return BXISIM_REAL(popen)(command, mode);
  return run_on_host(*rank, "popen", quoted(command).c_str(), [&] { return BXISIM_REAL(popen)(command, mode); });
}

int execve(const char* path, char* const* argv, char* const* envp) noexcept
{
  if (Rank* rank = running_rank())
    return refuse_process_creation(*rank, "execve", quoted(path).c_str());
  return BXISIM_REAL(execve)(path, argv, envp);
}

int execv(const char* path, char* const* argv) noexcept
{
  if (Rank* rank = running_rank())
    return refuse_process_creation(*rank, "execv", quoted(path).c_str());
  return BXISIM_REAL(execv)(path, argv);
}

int execvp(const char* file, char* const* argv) noexcept
{
  if (Rank* rank = running_rank())
    return refuse_process_creation(*rank, "execvp", quoted(file).c_str());
  return BXISIM_REAL(execvp)(file, argv);
}

int execvpe(const char* file, char* const* argv, char* const* envp) noexcept
{
  if (Rank* rank = running_rank())
    return refuse_process_creation(*rank, "execvpe", quoted(file).c_str());
  return BXISIM_REAL(execvpe)(file, argv, envp);
}

int fexecve(int fd, char* const* argv, char* const* envp) noexcept
{
  if (Rank* rank = running_rank())
    return refuse_process_creation(*rank, "fexecve", "()");
  return BXISIM_REAL(fexecve)(fd, argv, envp);
}

// execl, execlp and execle gather their arguments into a vector first.
namespace
{
std::vector<char*> gather_arguments(const char* first, va_list& rest)
{
  std::vector<char*> arguments{const_cast<char*>(first)};
  while (arguments.back() != nullptr)
    arguments.push_back(va_arg(rest, char*));
  return arguments;
}
} // namespace

int execl(const char* path, const char* argument, ...) noexcept
{
  if (Rank* rank = running_rank())
    return refuse_process_creation(*rank, "execl", quoted(path).c_str());
  va_list rest;
  va_start(rest, argument);
  auto arguments = gather_arguments(argument, rest);
  va_end(rest);
  return BXISIM_REAL(execv)(path, arguments.data());
}

int execlp(const char* file, const char* argument, ...) noexcept
{
  if (Rank* rank = running_rank())
    return refuse_process_creation(*rank, "execlp", quoted(file).c_str());
  va_list rest;
  va_start(rest, argument);
  auto arguments = gather_arguments(argument, rest);
  va_end(rest);
  return BXISIM_REAL(execvp)(file, arguments.data());
}

int execle(const char* path, const char* argument, ...) noexcept
{
  if (Rank* rank = running_rank())
    return refuse_process_creation(*rank, "execle", quoted(path).c_str());
  va_list rest;
  va_start(rest, argument);
  auto arguments    = gather_arguments(argument, rest);
  auto* environment = va_arg(rest, char* const*);
  va_end(rest);
  return BXISIM_REAL(execve)(path, arguments.data(), environment);
}

int posix_spawn(pid_t* pid, const char* path, const posix_spawn_file_actions_t* actions,
                const posix_spawnattr_t* attributes, char* const* argv, char* const* envp)
{
  auto spawn = [&] { return BXISIM_REAL(posix_spawn)(pid, path, actions, attributes, argv, envp); };
  if (Rank* rank = running_rank())
    return run_on_host(*rank, "posix_spawn", quoted(path).c_str(), spawn);
  return spawn();
}

int posix_spawnp(pid_t* pid, const char* file, const posix_spawn_file_actions_t* actions,
                 const posix_spawnattr_t* attributes, char* const* argv, char* const* envp)
{
  auto spawn = [&] { return BXISIM_REAL(posix_spawnp)(pid, file, actions, attributes, argv, envp); };
  if (Rank* rank = running_rank())
    return run_on_host(*rank, "posix_spawnp", quoted(file).c_str(), spawn);
  return spawn();
}

} // extern "C"
