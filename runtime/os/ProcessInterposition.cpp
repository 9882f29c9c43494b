// What a rank sees of its process: its own pid, its node's hostname, and exit() ending only itself.

#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include <cerrno>
#include <csetjmp>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace
{
using bxisim::os::running_rank;

/**
 * Ends the calling rank: its last CPU burst is simulated and its exit code recorded, then control
 * jumps back to where the rank actor called main (RankActor.cpp), skipping the rank's frames as
 * exit() would. A jump rather than an exception: exit() is noexcept and its callers may be C.
 * Returns when the caller is not a rank's main thread.
 */
void end_rank(int status)
{
  bxisim::runtime::Rank* rank = running_rank();
  if (rank == nullptr || not rank->exit_jump_armed)
    return;
  bxisim::os::set_running_rank(nullptr);
  rank->simulate_burst(rank->end_burst());
  rank->mark_ended(status & 0xff);
  rank->exit_jump_armed = false;
  std::longjmp(rank->exit_jump, 1);
}
} // namespace

extern "C" {

pid_t getpid() noexcept
{
  if (bxisim::runtime::Rank* rank = running_rank())
    return rank->simulated_pid();
  return BXISIM_REAL(getpid)();
}

int gethostname(char* name, size_t length) noexcept
{
  bxisim::runtime::Rank* rank = running_rank();
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

void exit(int status) noexcept
{
  end_rank(status);
  BXISIM_REAL(exit)(status);
  __builtin_unreachable();
}

void _exit(int status)
{
  end_rank(status);
  BXISIM_REAL(_exit)(status);
  __builtin_unreachable();
}

void _Exit(int status) noexcept
{
  end_rank(status);
  BXISIM_REAL(_Exit)(status);
  __builtin_unreachable();
}

} // extern "C"
