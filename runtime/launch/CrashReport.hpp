#pragma once
// What a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) during the simulation turns into: the
// output ranks wrote so far, a report naming the rank and the signal, a backtrace, the temporary
// folder removed, and exit code kCrashExitCode. Without it a crash in one rank's code would kill
// the process with no word of which rank, and leave the temporary folder behind.

#include "RunFolder.hpp"

namespace bxisim::runtime
{

/** Installs the handlers (on an alternate stack: a rank may crash by overflowing its actor's stack). */
void install_crash_report(const RunFolder& folder);

class Rank;

/** Before the run: the actor with SimGrid pid `pid` runs `rank`, so that a crash inside one of that rank's
 * calls to the simulator names the rank. */
void note_rank_actor(long pid, Rank& rank);

/** From the run's verdict on (its end, or a deadlock): a thread of a library (an OpenMP team's) that still runs a
 * rank's code may fault as the ranks' memory goes away. That is not a crash of the run, whose verdict is given: such a
 * thread stops where it faulted, and the process exits with the verdict's code. */
void note_simulation_over();

/** Ends the run at once, from any thread (one that SimGrid does not know included): prints `message`
 * with the ranks' output so far, removes the temporary folder, exits with kUnsupportedExitCode. */
[[noreturn]] void abort_unsupported(const char* message);

/** Whether abort_unsupported is ending the run (its message printed, the folder being removed): a deadlock found
 *  meanwhile is not the run's verdict, the refusal is (a library thread's refused call, made as the ranks wait). */
bool run_ending_by_refusal();

} // namespace bxisim::runtime
