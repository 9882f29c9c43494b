#pragma once
// What a rank does in simulated time that ends at a set date (a sleep: nanosleep, the clock reads of a spinning
// rank, a lock's poll, PMI's barrier latency; a computation: a CPU burst, bxisim_compute), counted while it
// lasts. Such a rank runs again at that date and may then write memory another rank waits on, so a rank
// preempted in its own code lets simulated time pass only while timed work, or a Portals operation, is under
// way (os/Preemption.cpp).

#include <ctime>

namespace bxisim::os
{

/** Sleeps `seconds` of simulated time in the calling rank's simulator call. */
void sleep_rank(double seconds);

/** Computes `flops` on the calling rank's core in its simulator call. */
void execute_rank(double flops);

/** From a rank's code: the simulated seconds from now to `deadline` on `clock` (negative when it has passed), for
 * the timed waits that take an absolute time. */
double seconds_until(clockid_t clock, const timespec& deadline);

/** `seconds` as a timespec, rounded to the nanosecond. */
timespec to_timespec(double seconds);

/** How many ranks are in a sleep_rank or an execute_rank now. */
unsigned ranks_in_timed_work();

} // namespace bxisim::os
