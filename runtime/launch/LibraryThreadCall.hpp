#pragma once
// Portals and MPI calls from a real thread: one that a library created for a rank (an OpenMP runtime's team, a
// library's helper thread). SimGrid does not run such a thread, so it cannot wait in simulated time, and asking
// SimGrid who calls would crash: such calls end the run with a message naming the rank that created the thread.

namespace bxisim::runtime
{

/** Whether the calling thread is one that SimGrid does not run (never the simulator's own thread inside a run). */
bool on_library_thread();

/** Ends the run (kUnsupportedExitCode) saying that a library's thread called `interface` ("a Portals function",
 * "MPI_Send"), which rank created that thread, and which threads may make such calls. */
[[noreturn]] void refuse_library_thread_call(const char* interface);

} // namespace bxisim::runtime
