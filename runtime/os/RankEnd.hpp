#pragma once
// Ending the rank whose code runs, as a process ends: by exit() (exit handlers run), by _exit(), or
// by a signal it does not handle.

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

} // namespace bxisim::os
