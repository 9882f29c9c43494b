// A rank's /proc/<pid> is the process's, and its /proc/self/exe its program. getpid() gives each rank a number of
// its own (1000 + rank), so a program reading /proc/<getpid()>/status (its memory) opened nothing, and LLVM's OpenMP
// runtime, which reads /proc/<getpid()>/maps, stopped the rank with an assertion; /proc/self/exe named bxisim, so
// programs looking for files beside their executable looked beside bxisim; /proc/self/cmdline and /proc/self/comm gave
// bxisim's command line and name (mpiP reports a Fortran program's command from there): they are files of the rank's
// own folder, written at the first open. The paths are rewritten for the calls
// that open files (open, openat, fopen, their 64-bit and fortified names), and /proc/self/exe is the program for the
// calls that resolve links (readlink, readlinkat, realpath, canonicalize_file_name, and the fortified names that
// -D_FORTIFY_SOURCE makes of them when the length is not a constant).

#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace
{
using bxisim::runtime::Rank;

/**
 * The file of the rank's own folder that stands for its /proc/self/cmdline or comm (the arguments, each ended by a
 * null byte; the program's name, 15 characters at most, and a newline), written the first time; empty when `self_path`
 * is neither or the rank has no folder.
 */
std::string rank_process_file(Rank& rank, const std::string& self_path)
{
  bool cmdline = self_path == "/proc/self/cmdline";
  if ((not cmdline && self_path != "/proc/self/comm") || rank.process_state().own_folder().empty() ||
      rank.process_state().command_line() == nullptr)
    return {};
  bxisim::os::SimulatorCall call; // writing it is the simulator's work, not the rank's computation
  const std::vector<std::string>& command = *rank.process_state().command_line();
  std::string file = rank.process_state().own_folder() + (cmdline ? "/proc-cmdline" : "/proc-comm");
  if (access(file.c_str(), F_OK) == 0)
    return file;
  std::string content;
  if (cmdline) {
    for (const auto& argument : command)
      content.append(argument).push_back('\0');
  } else if (not command.empty()) {
    std::string name = command.front().substr(command.front().rfind('/') + 1);
    content          = name.substr(0, 15) + "\n"; // the kernel's TASK_COMM_LEN, less its null
  }
  int descriptor = BXISIM_REAL(open)(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
  if (descriptor < 0)
    return {};
  bool written = write(descriptor, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  close(descriptor);
  return written ? file : std::string();
}

/**
 * `path` with /proc/<a rank's pid> made /proc/self, and /proc/self/cmdline and comm the rank's, from a rank's code;
 * empty when there is nothing to change.
 */
std::string own_proc_path(const char* path)
{
  if (path == nullptr || std::strncmp(path, "/proc/", 6) != 0)
    return {};
  Rank* rank = bxisim::os::running_rank();
  if (rank == nullptr)
    return {};
  if (std::strcmp(path, "/proc/self/cmdline") == 0 || std::strcmp(path, "/proc/self/comm") == 0)
    return rank_process_file(*rank, path); // nothing allocated for other paths: that would be in the rank's heap
  if (std::strncmp(path, "/proc/self/", 11) == 0)
    return {};
  const char* digits = path + 6;
  char* end          = nullptr;
  long pid           = std::strtol(digits, &end, 10);
  if (end == digits || (*end != '/' && *end != '\0'))
    return {};
  if (pid < Rank::kFirstSimulatedPid || pid >= Rank::kFirstSimulatedPid + rank->size())
    return {};
  std::string self = std::string("/proc/self") + end;
  std::string own  = rank_process_file(*rank, self); // every rank's command line is the job's: its own will do
  return own.empty() ? self : own;
}

/** The rank's program when `path` (made /proc/self by own_proc_path) is the link /proc/self/exe of a rank's code. */
const std::string* program_of_link(const char* path)
{
  Rank* rank = bxisim::os::running_rank();
  if (rank == nullptr || path == nullptr || std::strcmp(path, "/proc/self/exe") != 0 ||
      rank->process_state().program_path().empty())
    return nullptr;
  return &rank->process_state().program_path();
}

/** The mode argument of open and openat, present when a file may be created. */
mode_t mode_of(int flags, va_list arguments)
{
  return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(arguments, mode_t) : 0;
}
} // namespace

extern "C" {

int open(const char* path, int flags, ...)
{
  va_list arguments;
  va_start(arguments, flags);
  mode_t mode = mode_of(flags, arguments);
  va_end(arguments);
  std::string own = own_proc_path(path);
  return BXISIM_REAL(open)(own.empty() ? path : own.c_str(), flags, mode);
}

// On 64-bit Linux open64 is open (glibc makes one the other's alias, as here).
int open64(const char* path, int flags, ...) __attribute__((alias("open")));

int openat(int directory, const char* path, int flags, ...)
{
  va_list arguments;
  va_start(arguments, flags);
  mode_t mode = mode_of(flags, arguments);
  va_end(arguments);
  std::string own = own_proc_path(path);
  return BXISIM_REAL(openat)(directory, own.empty() ? path : own.c_str(), flags, mode);
}

// The forms _FORTIFY_SOURCE makes of open calls without a mode (distributions build with it).
int __open_2(const char* path, int flags)
{
  std::string own = own_proc_path(path);
  return BXISIM_REAL(__open_2)(own.empty() ? path : own.c_str(), flags);
}

int __open64_2(const char* path, int flags)
{
  std::string own = own_proc_path(path);
  return BXISIM_REAL(__open64_2)(own.empty() ? path : own.c_str(), flags);
}

int __openat_2(int directory, const char* path, int flags)
{
  std::string own = own_proc_path(path);
  return BXISIM_REAL(__openat_2)(directory, own.empty() ? path : own.c_str(), flags);
}

int openat64(int directory, const char* path, int flags, ...) __attribute__((alias("openat")));

int __openat64_2(int directory, const char* path, int flags)
{
  std::string own = own_proc_path(path);
  return BXISIM_REAL(__openat64_2)(directory, own.empty() ? path : own.c_str(), flags);
}

FILE* fopen(const char* path, const char* mode)
{
  std::string own = own_proc_path(path);
  return BXISIM_REAL(fopen)(own.empty() ? path : own.c_str(), mode);
}

FILE* fopen64(const char* path, const char* mode)
{
  std::string own = own_proc_path(path);
  return BXISIM_REAL(fopen64)(own.empty() ? path : own.c_str(), mode);
}

ssize_t readlink(const char* path, char* buffer, size_t size) noexcept
{
  std::string own     = own_proc_path(path);
  const char* checked = own.empty() ? path : own.c_str();
  if (const std::string* program = program_of_link(checked)) {
    size_t length = std::min(size, program->size()); // no terminating null, as readlink
    std::memcpy(buffer, program->data(), length);
    return static_cast<ssize_t>(length);
  }
  return BXISIM_REAL(readlink)(checked, buffer, size);
}

ssize_t readlinkat(int directory, const char* path, char* buffer, size_t size) noexcept
{
  if (path[0] == '/') // an absolute path names the same file whatever the directory
    return readlink(path, buffer, size);
  return BXISIM_REAL(readlinkat)(directory, path, buffer, size);
}

ssize_t __readlink_chk(const char* path, char* buffer, size_t size, size_t buffer_size) noexcept
{
  if (size > buffer_size)
    __chk_fail();
  return readlink(path, buffer, size);
}

ssize_t __readlinkat_chk(int directory, const char* path, char* buffer, size_t size, size_t buffer_size) noexcept
{
  if (size > buffer_size)
    __chk_fail();
  return readlinkat(directory, path, buffer, size);
}

char* realpath(const char* path, char* resolved) noexcept
{
  std::string own     = own_proc_path(path);
  const char* checked = own.empty() ? path : own.c_str();
  if (const std::string* program = program_of_link(checked))
    return BXISIM_REAL(realpath)(program->c_str(), resolved); // the program's path may hold links itself
  return BXISIM_REAL(realpath)(checked, resolved);
}

char* __realpath_chk(const char* path, char* resolved, size_t resolved_size) noexcept
{
  if (resolved_size < PATH_MAX)
    __chk_fail();
  return realpath(path, resolved);
}

char* canonicalize_file_name(const char* path) noexcept
{
  return realpath(path, nullptr);
}

} // extern "C"
