/* Runs that never end by themselves; argv[1] says how, for rank argv[2] (the others return 0 after
 * printing "rank N started"):
 *   spin  : busy-waits on a flag no one sets, without ever calling the simulator
 *   sleep : sleeps one simulated second at a time, forever
 *   print : prints a line, then sleeps one simulated second, forever */
#include <bxisim/rank.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int flag_no_one_sets;

__attribute__((noinline)) void spin_on_flag(void)
{
  while (!flag_no_one_sets) {
  }
}

int main(int argc, char** argv)
{
  if (argc < 3)
    return 2;
  int me = bxisim_rank();
  printf("rank %d started\n", me);
  fflush(stdout);
  if (me != atoi(argv[2]) && strcmp(argv[2], "all") != 0)
    return 0;
  usleep(5);
  if (strcmp(argv[1], "spin") == 0)
    spin_on_flag();
  if (strcmp(argv[1], "sleep") == 0)
    for (;;)
      sleep(1);
  if (strcmp(argv[1], "print") == 0)
    for (long tick = 0;; ++tick) {
      printf("tick %ld\n", tick);
      sleep(1);
    }
  return 0;
}
