#pragma once
// Ending the rank whose code runs, as a process ends: by exit() (exit handlers run), by _exit(), or
// by a signal it does not handle.

#include "SimulatorCall.hpp"

#include <simgrid/Exception.hpp>

namespace bxisim::runtime
{
class Rank;
}

namespace bxisim::os
{

/**
 * Ends `rank` (the running one) killed by `signal_number`: its last CPU burst is simulated, no exit
 * handler runs, and control returns to where the rank actor called main. Returns only when the rank
 * is not inside its main (a constructor of the program, say).
 */
void end_rank_by_signal(runtime::Rank& rank, int signal_number);

/**
 * Simulates the ending rank's last CPU burst; true when the job ended meanwhile (another rank's MPI_Abort killed it
 * while the burst ran: two ranks aborting at the same simulated time). The kill cannot leave through exit(), which is
 * noexcept: the caller leaves through the rank's (or the thread's) exit jump, where the kill is thrown again.
 */
bool killed_in_last_burst(runtime::Rank& rank);

/**
 * For the libc functions glibc declares noexcept (clock_gettime, gettimeofday, time, sched_yield):
 * SimGrid kills a rank (the job ends: MPI_Abort, a crash, a limit) by throwing in its actor, and an
 * exception leaving a noexcept function calls std::terminate, which aborted the whole simulator when
 * the kill landed while OpenMPI read the clock. Such a function calls this instead, after catching
 * the kill: the rank jumps back to where its actor called main, which throws the kill again from
 * there (RankActor.cpp). Returns only when the rank is not inside its main; the caller then rethrows.
 */
void leave_killed_rank(runtime::Rank& rank);

/**
 * For the functions glibc declares noexcept: runs `body`; a kill of the rank inside it (the job ends)
 * must not leave through them (std::terminate), so the rank leaves through its exit jump instead, see
 * leave_killed_rank. The jump is taken outside the catch handler.
 */
template <typename Body>
auto surviving_kill(const char* what, Body body) -> decltype(body())
{
  runtime::Rank* rank = running_rank();
  try {
    return body();
  } catch (const simgrid::ForcefulKillException&) {
  }
  if (rank != nullptr)
    leave_killed_rank(*rank);
  throw simgrid::ForcefulKillException(what); // outside main: as before
}

} // namespace bxisim::os
