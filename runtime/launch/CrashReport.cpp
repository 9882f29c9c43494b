#include "CrashReport.hpp"

#include "CrashHeadline.hpp"
#include "CrashSourceLines.hpp"

#include "ExitCodes.hpp"
#include "OutputRouter.hpp"
#include "Rank.hpp"
#include "portals/core/NicMemoryAccess.hpp"
#include "runtime/os/SimulatorCall.hpp"
#include "runtime/os/ThreadInterposition.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/config.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <execinfo.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace bxisim::runtime
{

namespace
{
// Prepared before any crash: a signal handler must not allocate.
std::vector<std::string> files_to_remove;
std::vector<std::string> folders_to_remove;
bool keep_folder = false;
std::string folder_path;
std::vector<Rank*> rank_of_actor; // by SimGrid pid

/** The rank whose actor runs now, in the simulator's code (a call it made), or nullptr. */
Rank* rank_of_running_actor()
{
  const simgrid::s4u::Actor* actor = simgrid::s4u::Actor::self(); // reads the running context: no allocation
  if (actor == nullptr)
    return nullptr;
  auto pid = static_cast<size_t>(actor->get_pid());
  return pid < rank_of_actor.size() ? rank_of_actor[pid] : nullptr;
}

void print(int fd, const char* text)
{
  ssize_t ignored = write(fd, text, std::strlen(text));
  (void)ignored;
}

void remove_folder_or_say_kept(int fd)
{
  if (keep_folder) {
    char line[512];
    std::snprintf(line, sizeof(line), "bxisim: kept the temporary folder %s (--keep-temps).\n", folder_path.c_str());
    print(fd, line);
  } else {
    for (const auto& file : files_to_remove)
      unlink(file.c_str());
    for (const auto& folder : folders_to_remove)
      rmdir(folder.c_str());
  }
}

size_t rank_stack_bytes = 0; // SimGrid's contexts/stack-size, read before any crash

/** The KiB of `rank`'s stack when `fault` lies at its end (the guard page below it, or just above): an overflow. */
size_t overflowed_stack_kib(const Rank& rank, int signal_number, const siginfo_t* info)
{
  constexpr uintptr_t kNear = 64 * 1024;
  if (signal_number != SIGSEGV || info == nullptr || rank.stack.top == 0 || rank_stack_bytes == 0)
    return 0;
  auto fault    = reinterpret_cast<uintptr_t>(info->si_addr);
  uintptr_t end = rank.stack.top > rank_stack_bytes ? rank.stack.top - rank_stack_bytes : 0;
  return fault + kNear >= end && fault < end + kNear ? rank_stack_bytes / 1024 : 0;
}

/** The rank whose memory the NIC was copying when `fault` happened, if it lies in that memory. */
NicAccessSite nic_access_at(int signal_number, const siginfo_t* info)
{
  const portals::NicMemoryAccess* access = portals::nic_memory_access_under_way();
  if (access == nullptr || info == nullptr || (signal_number != SIGSEGV && signal_number != SIGBUS))
    return {};
  auto fault  = reinterpret_cast<uintptr_t>(info->si_addr);
  auto inside = [access, fault](const portals::ProcessMemory& memory) {
    auto first = reinterpret_cast<uintptr_t>(memory.address);
    return memory.known && (memory.scattered || (fault >= first && fault - first < access->bytes));
  };
  for (bool writes : {true, false}) {
    const portals::ProcessMemory& memory = writes ? access->written : access->read;
    if (inside(memory))
      return NicAccessSite{static_cast<int>(memory.process), writes, memory.address, access->bytes, access->what};
  }
  return {};
}

std::atomic<bool> simulation_over{false};
std::atomic<bool> ending_by_refusal{false};
struct sigaction crash_action {
};

void on_crash(int signal_number, siginfo_t* info, void*)
{
  const Rank* library_thread_of = os::creator_of_this_thread(); // a real thread that a library of this rank made
  if (library_thread_of != nullptr && simulation_over.load()) {
    sigaction(signal_number, &crash_action, nullptr); // SA_RESETHAND: the simulator's own faults stay reported
    for (;;)
      pause();
  }
  const Rank* rank = library_thread_of != nullptr ? library_thread_of : os::running_rank();
  os::set_running_rank(nullptr); // what follows must reach the real libc
  OutputRouter::drain_after_crash();
  int fd = OutputRouter::original_stderr_fd();

  char line[1024];
  auto site = [signal_number, info](const Rank* of) {
    return of != nullptr
               ? CrashSite{of->index(), of->node_name().c_str(), overflowed_stack_kib(*of, signal_number, info)}
               : CrashSite{};
  };
  NicAccessSite nic_access = nic_access_at(signal_number, info);
  if (nic_access.rank >= 0)
    nic_access_headline(line, sizeof(line), strsignal(signal_number), simgrid::s4u::Engine::get_clock(), info->si_addr,
                        nic_access);
  else
    crash_headline(line, sizeof(line), strsignal(signal_number), simgrid::s4u::Engine::get_clock(), site(rank),
                   site(rank != nullptr ? nullptr : rank_of_running_actor()), site(os::last_rank_in_code()));
  print(fd, line);
  print(fd, "Backtrace (innermost first):\n");
  void* frames[64];
  int count = backtrace(frames, 64);
  backtrace_symbols_fd(frames, count, fd);
  print_program_source_lines(frames, count, fd, folder_path.c_str());

  remove_folder_or_say_kept(fd);
  _exit(kCrashExitCode);
}
} // namespace

void abort_unsupported(const char* message)
{
  ending_by_refusal.store(true);
  os::set_running_rank(nullptr);
  OutputRouter::drain_after_crash();
  int fd = OutputRouter::original_stderr_fd();
  print(fd, message);
  remove_folder_or_say_kept(fd);
  _exit(kUnsupportedExitCode);
}

bool run_ending_by_refusal()
{
  return ending_by_refusal.load();
}

void note_simulation_over()
{
  simulation_over.store(true);
}

void note_rank_actor(long pid, Rank& rank)
{
  auto index = static_cast<size_t>(pid);
  if (rank_of_actor.size() <= index)
    rank_of_actor.resize(index + 1, nullptr);
  rank_of_actor[index] = &rank;
}

void install_crash_report(const RunFolder& folder)
{
  files_to_remove   = folder.files();
  folders_to_remove = folder.folders();
  keep_folder       = folder.kept();
  folder_path       = folder.path();

  void* warm_up[1];
  backtrace(warm_up, 1); // loads libgcc now: it would allocate in the handler otherwise

  static std::vector<char> alternate_stack(1 << 16);
  stack_t stack{};
  stack.ss_sp   = alternate_stack.data();
  stack.ss_size = alternate_stack.size();
  sigaltstack(&stack, nullptr);

  rank_stack_bytes          = static_cast<size_t>(simgrid::config::get_value<int>("contexts/stack-size")) * 1024;
  crash_action.sa_sigaction = on_crash;
  crash_action.sa_flags     = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&crash_action.sa_mask);
  for (int signal_number : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT})
    sigaction(signal_number, &crash_action, nullptr);
}

} // namespace bxisim::runtime
