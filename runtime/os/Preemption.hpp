#pragma once
// Busy-waits on memory: `while (!flag) {}` on a flag that a Put, an atomic or another rank writes.
//
// Ranks run one at a time and switch only inside simulator calls, so a rank that waits for memory
// without calling bxisim keeps every other rank and every NIC from running: the flag is never written
// and simulated time never advances (a real machine runs them all at once). When no rank has called
// the simulator for --preempt-after seconds of wall time, the supervisor (runtime/launch/
// RunSupervisor.hpp) interrupts the rank in its code with a signal and bxisim pauses it where it is,
// as an operating system's scheduler would: its CPU time so far is simulated as at a call (or, when
// computation is not simulated, its simulated time advances by kBusyWaitStep), the others run, and
// the rank resumes. From then on that rank is paused after every kBusyWaitQuantum of wall time in its
// own code, so that the wait sees the write within a step (or a quantum of CPU time).
//
// Without CPU simulation a step is added only if the rank may be waiting: a pause that finds its registers where two
// earlier pauses of the same stretch of its code found them (os/ProgressProbe.hpp), or one that comes after no rank has
// called the simulator for --preempt-after. A rank that computes for less between two calls, while a transfer is on
// the wire or another rank sleeps, keeps exact times.
//
// A rank is only paused where it runs the code of its own copy of the program: inside libc, bxisim or
// a library it may hold a lock another rank needs (malloc's, stdio's), so the signal then waits for the
// next quantum.

#include <chrono>

namespace bxisim::os
{

/** The simulated time a pause adds when computation is not simulated: how often the wait looks. */
constexpr double kBusyWaitStep = 1e-7;
/** Once a rank has been found busy-waiting, how long (wall time) it runs its own code before the next pause.
 * Short: a wait on memory that another thread of the rank, or a transfer, ends after many steps costs this much wall
 * time per step (1 ms made MPICH's thread tests, whose barrier spins, take minutes); each pause costs a signal. */
constexpr auto kBusyWaitQuantum = std::chrono::microseconds(100);

/** Installs the handler of `signal_number` on the simulator's thread's process (call once, before ranks run). */
void install_preemption_handler(int signal_number);

/**
 * From a function bxisim interposes without calling the simulator (a CPU-time clock read): pauses the
 * running rank now if a preemption signal found it outside its own code since its last simulator call,
 * and `caller` (the function's return address) is in its own code, where a pause is as safe as in the
 * signal. On some hosts (virtual machines) a signal to a running thread is only delivered when it next
 * enters the kernel: a loop that reads the thread's CPU clock (a system call) is then always found in it.
 */
void pause_if_preempted_in_call(const void* caller);

/**
 * From the supervisor's thread, before it sends the signal: the value of simulator_transitions() it
 * saw; the rank is paused only if nothing has moved since (the rank it meant is still in its code).
 * `after_long_quiet`: no rank has called the simulator for --preempt-after, so the rank may be waiting
 * whatever its registers say (os/ProgressProbe.hpp).
 */
void expect_preemption_at(unsigned long transitions, bool after_long_quiet);

/**
 * From the supervisor's thread: whether a signal it sent has not reached the handler yet (the rank is inside a
 * long system call, which the signal does not interrupt). The signal is a real-time one, queued: one sent every
 * quantum piled up, and when the call returned they all ran nested on the rank's stack until it overflowed (a 2
 * GiB pwrite of OMPIO, MPICH io/i_bigtype). The supervisor then sends none, and marks the one it sends.
 */
bool preemption_signal_pending();
void note_preemption_signal_sent();
void note_preemption_signal_lost();

} // namespace bxisim::os
