// Uncaught exceptions: rank argv[2] throws, by argv[1]: std (a std::runtime_error), int, custom (a
// type of its own, not a std::exception). The other ranks sleep, then print "rank N done".
#include <bxisim/rank.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <unistd.h>

struct Custom {
  int value;
};

int main(int argc, char** argv)
{
  if (argc > 2 && bxisim_rank() == std::atoi(argv[2])) {
    usleep(10);
    if (std::strcmp(argv[1], "std") == 0)
      throw std::runtime_error("nothing went right");
    if (std::strcmp(argv[1], "int") == 0)
      throw 42;
    throw Custom{7};
  }
  sleep(1);
  std::printf("rank %d done\n", bxisim_rank());
  return 0;
}
