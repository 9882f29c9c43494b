// select, pselect, poll and ppoll of ranks, in simulated time. Without descriptors they are sleeps (old code sleeps
// with select(0, NULL, NULL, NULL, &tv) or poll(NULL, 0, ms)): they took wall time, every rank waiting with the
// simulator, and no simulated time. With descriptors, the real call would hold the simulator for its timeout: the
// descriptors are checked without blocking, between sleeps of simulated time, until one is ready or the timeout
// has passed. A call with a zero timeout (OpenMPI's event loop polls so) goes straight to the C library.

#include "RankTimedWork.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include <xbt/log.h>

#include <poll.h>
#include <sys/select.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <limits>
#include <set>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(bxisim_process);

namespace
{
constexpr double kFirstCheck   = 1e-6; // simulated seconds between two checks of the descriptors, doubling
constexpr double kLongestCheck = 1e-3;
constexpr double kLongWait     = 10.0; // said once per rank: a wait on descriptors nothing may ever make ready
constexpr double kForever      = std::numeric_limits<double>::infinity();

void sleep_simulated(double seconds)
{
  if (seconds <= 0)
    return;
  timespec duration = bxisim::os::to_timespec(seconds);
  nanosleep(&duration, nullptr); // bxisim's: simulated, off the CPU
}

/**
 * A wait without descriptor nor timeout: for a signal, which nothing sends in simulated time but another rank's
 * kill(). A millisecond of simulated sleep lets the others run (a loop that calls it again does not spin at one date),
 * then -1 and EINTR, as after a signal; said once per rank.
 */
int wait_for_a_signal(const char* function)
{
  static std::set<int> said;
  if (auto* rank = bxisim::os::running_rank(); rank != nullptr && said.insert(rank->index()).second)
    XBT_WARN("rank %d called %s without descriptors and without a timeout, to wait for a signal: bxisim lets 1 ms of "
             "simulated time pass, then it returns -1 (EINTR) as if one had come. Sleep with nanosleep instead.",
             rank->index(), function);
  sleep_simulated(1e-3);
  errno = EINTR;
  return -1;
}

/** poll and ppoll of no descriptor: a sleep of `seconds` (infinity: a wait for a signal). */
int sleep_without_descriptors(const char* function, double seconds)
{
  if (seconds == kForever)
    return wait_for_a_signal(function);
  sleep_simulated(seconds);
  return 0;
}

/**
 * Waits `timeout` simulated seconds at most (infinity: no limit) for `check` (a non-blocking call: its result, > 0
 * when a descriptor is ready, < 0 on an error) to find something; returns its last result (0: the timeout passed).
 */
template <class Check>
int wait_checking(const char* function, double timeout, Check check)
{
  double waited = 0;
  double step   = kFirstCheck;
  bool said     = false;
  for (;;) {
    int found = check();
    if (found != 0 || waited >= timeout)
      return found;
    double pause = std::min(step, timeout - waited);
    sleep_simulated(pause);
    waited += pause;
    step = std::min(2 * step, kLongestCheck);
    if (waited >= kLongWait && not said) {
      said = true;
      if (auto* rank = bxisim::os::running_rank())
        XBT_WARN("rank %d has waited %g simulated seconds in %s for descriptors that no rank makes ready in simulated "
                 "time (a pipe or a socket of the host): bxisim checks them every millisecond of simulated time.",
                 rank->index(), waited, function);
    }
  }
}

double seconds_of(const timeval* time)
{
  return time == nullptr ? kForever : static_cast<double>(time->tv_sec) + static_cast<double>(time->tv_usec) * 1e-6;
}

double seconds_of(const timespec* time)
{
  return time == nullptr ? kForever : static_cast<double>(time->tv_sec) + static_cast<double>(time->tv_nsec) * 1e-9;
}

bool zero(double seconds)
{
  return seconds == 0;
}

/** select's and pselect's wait: the sets are checked on copies, and written back only with the answer. */
template <class RealSelect>
int select_in_simulated_time(const char* function, int count, fd_set* readable, fd_set* writable, fd_set* failed,
                             double timeout, RealSelect real_select)
{
  if (count == 0 || (readable == nullptr && writable == nullptr && failed == nullptr)) {
    if (timeout == kForever)
      return wait_for_a_signal(function);
    sleep_simulated(timeout);
    return 0;
  }
  fd_set in_read{}, in_write{}, in_fail{};
  if (readable != nullptr)
    in_read = *readable;
  if (writable != nullptr)
    in_write = *writable;
  if (failed != nullptr)
    in_fail = *failed;
  fd_set out_read{}, out_write{}, out_fail{};
  int found = wait_checking(function, timeout, [&] {
    out_read  = in_read;
    out_write = in_write;
    out_fail  = in_fail;
    return real_select(count, readable != nullptr ? &out_read : nullptr, writable != nullptr ? &out_write : nullptr,
                       failed != nullptr ? &out_fail : nullptr);
  });
  if (found < 0)
    return found;
  if (readable != nullptr)
    *readable = out_read; // all clear when the timeout passed
  if (writable != nullptr)
    *writable = out_write;
  if (failed != nullptr)
    *failed = out_fail;
  return found;
}
} // namespace

extern "C" {

int select(int count, fd_set* readable, fd_set* writable, fd_set* failed, struct timeval* timeout)
{
  if (bxisim::os::running_rank() == nullptr || zero(seconds_of(timeout)) || count < 0)
    return BXISIM_REAL(select)(count, readable, writable, failed, timeout);
  int found = select_in_simulated_time("select", count, readable, writable, failed, seconds_of(timeout),
                                       [](int n, fd_set* r, fd_set* w, fd_set* f) {
                                         timeval now{0, 0};
                                         return BXISIM_REAL(select)(n, r, w, f, &now);
                                       });
  if (found == 0 && timeout != nullptr)
    *timeout = timeval{0, 0}; // Linux leaves the time not slept
  return found;
}

int pselect(int count, fd_set* readable, fd_set* writable, fd_set* failed, const struct timespec* timeout,
            const sigset_t* mask)
{
  if (bxisim::os::running_rank() == nullptr || zero(seconds_of(timeout)) || count < 0)
    return BXISIM_REAL(pselect)(count, readable, writable, failed, timeout, mask);
  return select_in_simulated_time("pselect", count, readable, writable, failed, seconds_of(timeout),
                                  [mask](int n, fd_set* r, fd_set* w, fd_set* f) {
                                    timespec now{0, 0};
                                    return BXISIM_REAL(pselect)(n, r, w, f, &now, mask);
                                  });
}

int poll(struct pollfd* descriptors, nfds_t count, int timeout)
{
  if (bxisim::os::running_rank() == nullptr || timeout == 0)
    return BXISIM_REAL(poll)(descriptors, count, timeout);
  double seconds = timeout < 0 ? kForever : timeout * 1e-3;
  if (count == 0)
    return sleep_without_descriptors("poll", seconds);
  return wait_checking("poll", seconds, [&] { return BXISIM_REAL(poll)(descriptors, count, 0); });
}

int ppoll(struct pollfd* descriptors, nfds_t count, const struct timespec* timeout, const sigset_t* mask)
{
  if (bxisim::os::running_rank() == nullptr || zero(seconds_of(timeout)))
    return BXISIM_REAL(ppoll)(descriptors, count, timeout, mask);
  double seconds = seconds_of(timeout);
  if (count == 0)
    return sleep_without_descriptors("ppoll", seconds);
  timespec now{0, 0};
  return wait_checking("ppoll", seconds, [&] { return BXISIM_REAL(ppoll)(descriptors, count, &now, mask); });
}

// The forms -D_FORTIFY_SOURCE makes of poll and ppoll on an array of known size with a count that is not a constant.

int __poll_chk(struct pollfd* descriptors, nfds_t count, int timeout, size_t descriptors_size)
{
  if (descriptors_size / sizeof(*descriptors) < count)
    __chk_fail();
  return poll(descriptors, count, timeout);
}

int __ppoll_chk(struct pollfd* descriptors, nfds_t count, const struct timespec* timeout, const sigset_t* mask,
                size_t descriptors_size)
{
  if (descriptors_size / sizeof(*descriptors) < count)
    __chk_fail();
  return ppoll(descriptors, count, timeout, mask);
}

} // extern "C"
