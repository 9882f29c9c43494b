// A function-local static that a rank's main thread and a thread of its OpenMP team reach at once: the one that
// comes second waits for the other's initialization on libstdc++'s guard, a futex made through syscall(). argv[1]
// "team_first": the team's thread initializes while main waits (in simulated time; the team's thread wakes it with
// the kernel's FUTEX_WAKE, in real time); "main_first": main initializes while the team's thread waits in the kernel
// (main's FUTEX_WAKE must reach it). Prints key=value lines.
#include <omp.h>

#include <cstdio>
#include <cstring>

namespace
{
void work(long iterations) // real work in either thread: not a clock (main's is simulated)
{
  volatile long sink = 0;
  for (long i = 0; i < iterations; ++i)
    sink = sink + i;
}

constexpr long kDelay = 40000000; // tens of milliseconds on any machine

struct Table {
  int values[64];
  int built_by;
  Table() : built_by(omp_get_thread_num())
  {
    work(kDelay);
    for (int i = 0; i < 64; ++i)
      values[i] = i * i;
  }
};

const Table& table()
{
  static Table built;
  return built;
}
} // namespace

int main(int argc, char** argv)
{
  bool team_first = argc > 1 && std::strcmp(argv[1], "team_first") == 0;
  int seen[2]     = {-1, -1};
#pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num();
    if ((me == 0) == team_first) // the other one comes first
      work(kDelay / 4);
    seen[me] = table().values[7];
  }
  std::printf("main=%d team=%d built_by=%s\n", seen[0], seen[1], table().built_by == 0 ? "main" : "team");
  return 0;
}
