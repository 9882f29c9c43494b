// Static C++ objects of a rank are destroyed when the rank ends (after main returns), as in a process.
#include <bxisim/rank.h>

#include <cstdio>
#include <unistd.h>

struct Global {
  int rank = -1;
  ~Global() { std::printf("destroyed=%d time=%.9f\n", rank, bxisim_time()); }
};
Global global;

int main()
{
  global.rank = bxisim_rank();
  usleep(static_cast<useconds_t>(100 * (1 + bxisim_rank())));
  return 0;
}
