#pragma once
// Threads that ranks create. A rank's program may start threads (pthread_create, std::thread); they
// are real threads, outside the simulation. bxisim remembers which rank created each, to name it when
// such a thread calls a function that only a rank's main thread may call.

namespace bxisim::runtime
{
class Rank;
}

namespace bxisim::os
{

/** The rank whose code created the calling thread, or nullptr (a rank's main thread, the simulator's
 * threads, threads created by no rank). */
runtime::Rank* creator_of_this_thread();

} // namespace bxisim::os
