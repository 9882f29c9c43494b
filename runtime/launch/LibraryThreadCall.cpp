#include "LibraryThreadCall.hpp"

#include "CrashReport.hpp"
#include "Rank.hpp"
#include "runtime/os/ThreadInterposition.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <fmt/format.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

namespace bxisim::runtime
{

bool on_library_thread()
{
  return simgrid::s4u::Actor::self() == nullptr;
}

void refuse_library_thread_call(const char* interface)
{
  const Rank* creator = os::creator_of_this_thread();
  std::string who     = creator != nullptr ? fmt::format("rank {} (node {})", creator->index(), creator->node_name())
                                           : std::string("a thread that no rank created");
  std::string message = fmt::format(
      "bxisim: {} called {} from thread {}, a thread that a library created for it (an OpenMP runtime's team, a "
      "library's helper thread). Such threads run outside the simulation; bxisim carries out the Portals and MPI "
      "calls of a rank's main thread and of the threads the program creates (pthread_create, std::thread, "
      "std::async: simulated threads, docs/running.md \"Threads\"). Make the call from one of those threads: in an "
      "OpenMP region, the master's (#pragma omp master, or omp single in the outermost region, which bxisim gives "
      "the master).\n",
      who, interface, static_cast<long>(syscall(SYS_gettid)));
  abort_unsupported(message.c_str());
}

} // namespace bxisim::runtime
