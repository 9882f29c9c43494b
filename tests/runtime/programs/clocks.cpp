// Sleeps with the function named by argv[1] for argv[2] seconds and prints how far each clock moved
// (spin: reads the clock until that much time has passed; timed_kernels: times that many short computations).
#include <bxisim/rank.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <poll.h>
#include <sched.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/timeb.h>
#include <thread>
#include <unistd.h>

// ftime is obsolete, and still in programs: read here as they read it.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace
{
long spin_reads = 0;

double seconds(const timespec& time)
{
  return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_nsec) * 1e-9;
}

void sleep_with(const char* how, double duration)
{
  if (std::strcmp(how, "nanosleep") == 0) {
    timespec request{static_cast<time_t>(duration),
                     static_cast<long>((duration - static_cast<time_t>(duration)) * 1e9)};
    nanosleep(&request, nullptr);
  } else if (std::strcmp(how, "usleep") == 0) {
    usleep(static_cast<useconds_t>(duration * 1e6));
  } else if (std::strcmp(how, "sleep") == 0) {
    sleep(static_cast<unsigned>(duration));
  } else if (std::strcmp(how, "chrono") == 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(duration));
  } else if (std::strcmp(how, "select") == 0) { // without descriptors: old code's sleep
    timeval timeout{static_cast<time_t>(duration),
                    static_cast<suseconds_t>((duration - static_cast<time_t>(duration)) * 1e6)};
    select(0, nullptr, nullptr, nullptr, &timeout);
  } else if (std::strcmp(how, "pselect") == 0) {
    timespec timeout{static_cast<time_t>(duration),
                     static_cast<long>((duration - static_cast<time_t>(duration)) * 1e9)};
    pselect(0, nullptr, nullptr, nullptr, &timeout, nullptr);
  } else if (std::strcmp(how, "poll") == 0) {
    poll(nullptr, 0, static_cast<int>(duration * 1e3));
  } else if (std::strcmp(how, "ppoll") == 0) {
    timespec timeout{static_cast<time_t>(duration),
                     static_cast<long>((duration - static_cast<time_t>(duration)) * 1e9)};
    ppoll(nullptr, 0, &timeout, nullptr);
  } else if (std::strcmp(how, "poll_pipe") == 0) { // an empty pipe until the timeout, then a byte in it
    int ends[2];
    if (pipe(ends) != 0)
      std::exit(3);
    pollfd readable{ends[0], POLLIN, 0};
    std::printf("empty_pipe_poll=%d\n", poll(&readable, 1, static_cast<int>(duration * 1e3)));
    fd_set set;
    FD_ZERO(&set);
    FD_SET(ends[0], &set);
    timeval none{0, 100000};
    int empty = select(ends[0] + 1, &set, nullptr, nullptr, &none);
    std::printf("empty_pipe_select=%d still_set=%d\n", empty, FD_ISSET(ends[0], &set) ? 1 : 0);
    if (write(ends[1], "x", 1) != 1)
      std::exit(3);
    FD_SET(ends[0], &set);
    timeval long_one{100, 0};
    int full = select(ends[0] + 1, &set, nullptr, nullptr, &long_one);
    std::printf("full_pipe_select=%d set=%d\n", full, FD_ISSET(ends[0], &set) ? 1 : 0);
    std::printf("full_pipe_poll=%d\n", poll(&readable, 1, -1));
  } else if (std::strcmp(how, "spin") == 0) { // waits for time to pass by reading the clock, doing nothing else
    timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
      clock_gettime(CLOCK_MONOTONIC, &now);
      ++spin_reads;
    } while (seconds(now) - seconds(start) < duration);
  } else if (std::strcmp(how, "timed_kernels") == 0) { // times `duration` short kernels (ELPA's timers), no wait
    volatile double sum = 0;
    for (long kernel = 0; kernel < static_cast<long>(duration); ++kernel) {
      timespec before, after;
      clock_gettime(CLOCK_MONOTONIC, &before);
      for (int i = 0; i < 100; ++i)
        sum = sum + i * 0.5;
      clock_gettime(CLOCK_MONOTONIC, &after);
      spin_reads += 2;
    }
  } else {
    std::fprintf(stderr, "unknown sleep function %s\n", how);
    std::exit(2);
  }
}
} // namespace

int main(int argc, char** argv)
{
  if (argc != 3)
    return 2;
  double duration = std::atof(argv[2]);
  timespec monotonic0, realtime0;
  timeval tv0;
  clock_gettime(CLOCK_MONOTONIC, &monotonic0);
  clock_gettime(CLOCK_REALTIME, &realtime0);
  gettimeofday(&tv0, nullptr);
  time_t t0 = time(nullptr);
  timespec calendar0;
  timespec_get(&calendar0, TIME_UTC);
  timeb ftime0;
  ftime(&ftime0);
  auto steady0 = std::chrono::steady_clock::now();
  auto system0 = std::chrono::system_clock::now();

  sleep_with(argv[1], duration);
  sched_yield();

  timespec monotonic1, realtime1;
  timeval tv1;
  clock_gettime(CLOCK_MONOTONIC, &monotonic1);
  clock_gettime(CLOCK_REALTIME, &realtime1);
  gettimeofday(&tv1, nullptr);
  time_t t1 = time(nullptr);
  timespec calendar1;
  timespec_get(&calendar1, TIME_UTC);
  timeb ftime1;
  ftime(&ftime1);
  auto steady1 = std::chrono::steady_clock::now();
  auto system1 = std::chrono::system_clock::now();

  std::printf("monotonic=%.9f\n", seconds(monotonic1) - seconds(monotonic0));
  std::printf("realtime=%.9f\n", seconds(realtime1) - seconds(realtime0));
  std::printf("gettimeofday=%.6f\n",
              static_cast<double>(tv1.tv_sec - tv0.tv_sec) + static_cast<double>(tv1.tv_usec - tv0.tv_usec) * 1e-6);
  std::printf("time=%ld\n", static_cast<long>(t1 - t0));
  std::printf("timespec_get=%.9f\n", seconds(calendar1) - seconds(calendar0));
  std::printf("ftime=%.3f\n",
              static_cast<double>(ftime1.time - ftime0.time) + (ftime1.millitm - ftime0.millitm) * 1e-3);
  std::printf("calendar_start=%.9f\n", seconds(calendar0)); // the simulated calendar starts at the epoch, as time()
  std::printf("steady_clock=%.9f\n", std::chrono::duration<double>(steady1 - steady0).count());
  std::printf("system_clock=%.9f\n", std::chrono::duration<double>(system1 - system0).count());
  std::printf("bxisim_time=%.9f\n", bxisim_time());
  std::printf("spin_reads=%ld\n", spin_reads);
  return 0;
}
