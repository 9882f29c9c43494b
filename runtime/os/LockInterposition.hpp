#pragma once
// Mutexes of shared libraries that another rank holds: waited for in simulated time
// (LockInterposition.cpp).

namespace bxisim::os
{

/**
 * Called (with a message naming the ranks and the fix) when a rank has polled a mutex another rank holds
 * for a simulated second: the holder most likely waits for the poller, which would poll for ever. It
 * must not return (the run ends). nullptr: the rank polls on.
 */
void set_endless_lock_wait_handler(void (*handler)(const char* message));

} // namespace bxisim::os
