#pragma once
// SimGrid 3.32 keeps the communications a rank completed by a test in its list of activities.
//
// An actor's isend and irecv are put in its ActorImpl::activities_ (a std::list), and only a wait takes them out
// (CommImpl::finish removes them for the simcalls that wait): SMPI's MPI_Test, Testall, Testany and Testsome complete
// requests with ActivityImpl::test, so each request a program completed by a test stayed there until the rank ended,
// and every later completion scanned the whole list (std::list::remove). Wall time grew with the square of the number
// of tested requests (TeaLeaf's Jacobi halos at smpi: 51 s against 19 s at message; `smpirun` does the same). SimGrid
// 3.34 keeps a set. After an SMPI call, when the calling actor's list has grown, the activities of it that are over
// (neither waiting, ready nor running) are dropped from it: nobody waits for them any more (their end was handled as
// they ended), and whoever still holds one (SMPI's request) keeps its own reference. No simulated time changes.
//
// The list is reached through SimGrid's internal layout (offset 192 of ActorImpl in Debian's 3.32, with C++17 and
// libstdc++), checked before each use: a list whose links do not hold together, or a blocking activity where none
// can be, turns the pruning off for the run (said at verbose level), the run going on as SimGrid alone would.

namespace bxisim::runtime
{

/** Drops the finished activities from the calling actor's list when it has grown since the last time (cheap
 *  otherwise: one size read). Call from an actor, outside any simcall, after an SMPI call. */
void release_tested_activities();

} // namespace bxisim::runtime
