#pragma once
// A rank killed because the job ends (MPI_Abort, a crash, a deadlock, a limit) leaves through SimGrid's
// ForcefulKillException, which unwinds its stack through the program's frames and runs the destructors of its
// objects. One of them may call std::terminate: std::thread's, for a thread that is still joinable (the rank was
// killed in join(), or in an MPI call before it). That aborted the whole simulator ("the simulator crashed") where the
// job should end with its own report. The terminate handler installed here makes such a rank leave as a killed one.

namespace bxisim::os
{

/** SimGrid's Actor::kill_all, for bxisim's own ends of the job: noted first, so that std::terminate in a rank's
 * unwinding is taken for the kill's. */
void kill_every_actor();

/** The engine ends the actors still running itself (a deadlock, the end of the simulation). */
void note_every_actor_killed();

/** Installs the handler (after SimGrid's, which it calls for any other std::terminate). */
void install_killed_rank_termination();

} // namespace bxisim::os
