#pragma once
// The real-time signals bxisim takes for itself. Ranks run on the simulator's thread: a rank that
// blocks signals must not block these (SignalInterposition leaves them out of its masks).

#include <csignal>

namespace bxisim::os
{

/** Wakes the run supervisor; asks the simulator's thread for a backtrace when a run is stopped. */
inline int supervisor_signal()
{
  return SIGRTMIN + 2;
}

/** Pauses a rank that has run its own code too long without calling the simulator (busy-wait). */
inline int preemption_signal()
{
  return SIGRTMIN + 3;
}

/** Removes bxisim's signals from `set`. */
inline void remove_simulator_signals(sigset_t& set)
{
  for (int number : {supervisor_signal(), preemption_signal()})
    sigdelset(&set, number);
}

} // namespace bxisim::os
