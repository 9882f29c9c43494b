// Exceptions handled across simulator calls: every rank (and two threads of each) sleeps inside a catch block while
// the others throw and catch their own, then rethrows (`throw;`) and checks it is its own exception; rank 0 sleeps in
// a destructor run while its exception unwinds the stack, and counts the exceptions in flight after the sleep, as
// rank 1 does in plain code. Prints key=value lines.
#include <bxisim/rank.h>

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

namespace
{
/** Throws `name`, sleeps `micros` in the handler, rethrows: 1 when the rethrown exception is the one thrown. */
int rethrow_own(const std::string& name, unsigned micros)
{
  try {
    try {
      throw std::runtime_error(name);
    } catch (const std::exception&) {
      usleep(micros); // the others run meanwhile, and handle their own
      bool current_own = false;
      try {
        std::rethrow_exception(std::current_exception());
      } catch (const std::exception& current) {
        current_own = name == current.what();
      }
      if (not current_own)
        return 0;
      throw;
    }
  } catch (const std::exception& rethrown) {
    return name == rethrown.what() ? 1 : 0;
  }
}

int in_flight_after_sleep = -1;

struct SleepsInItsDestructor {
  ~SleepsInItsDestructor()
  {
    usleep(20);
    in_flight_after_sleep = std::uncaught_exceptions();
  }
};
} // namespace

int main()
{
  int rank         = bxisim_rank();
  std::string name = "rank" + std::to_string(rank);
  int own          = rethrow_own(name, 10 + 10 * static_cast<unsigned>(rank));

  int threads_own[2] = {0, 0};
  std::thread threads[2];
  for (int i = 0; i < 2; ++i)
    threads[i] = std::thread([&threads_own, &name, i] {
      threads_own[i] = rethrow_own(name + "-thread" + std::to_string(i), 5 + 10 * static_cast<unsigned>(i));
    });
  int main_own = rethrow_own(name + "-main", 10);
  for (auto& thread : threads)
    thread.join();

  if (rank == 0) {
    try {
      SleepsInItsDestructor guard;
      throw 1;
    } catch (int) {
    }
  } else {
    usleep(10);
    in_flight_after_sleep = std::uncaught_exceptions();
  }
  std::printf("own=%d thread0_own=%d thread1_own=%d main_own=%d in_flight=%d\n", own, threads_own[0], threads_own[1],
              main_own, in_flight_after_sleep);
  return 0;
}
