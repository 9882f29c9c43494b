#pragma once
// Mutexes (LockInterposition.cpp) and read-write locks (RwLockInterposition.cpp) that another rank, or another
// thread of the rank, holds: waited for in simulated time.

namespace bxisim::os
{

/**
 * Called (with a message naming the ranks and the fix) when a rank has polled a mutex another rank holds
 * for a simulated second: the holder most likely waits for the poller, which would poll for ever. It
 * must not return (the run ends). nullptr: the rank polls on.
 */
void set_endless_lock_wait_handler(void (*handler)(const char* message));
/** Calls that handler, if any. */
void report_endless_lock_wait(const char* message);

/** A lock wait polls as a spinning CPU would: the first poll sleeps this long (simulated seconds), ... */
constexpr double kFirstLockPoll = 10e-9;
/** ... and polling longer than this is not a lock held across a short call: the holder waits for the poller. */
constexpr double kLongestLockWait = 1.0;
/** Sleeps the next poll of a lock wait, `waited` seconds long so far; both grow (up to 1 us a poll). */
void sleep_lock_poll(double& delay, double& waited);

} // namespace bxisim::os
