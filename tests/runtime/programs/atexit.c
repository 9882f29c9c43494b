/* Exit handlers of a rank: two handlers, the second sleeping in simulated time; argv[1] says how the
 * ranks end (return N, exit N, _exit N). */
#include <bxisim/rank.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int order;

static void first_registered(void)
{
  printf("first_order=%d\n", ++order);
}

static void second_registered(void)
{
  usleep(1000);
  printf("second_order=%d second_time=%.9f\n", ++order, bxisim_time());
}

int main(int argc, char** argv)
{
  atexit(first_registered);
  atexit(second_registered);
  int code = argc > 2 ? atoi(argv[2]) : 0;
  usleep((useconds_t)(10 * bxisim_rank()));
  if (argc > 1 && strcmp(argv[1], "exit") == 0)
    exit(code);
  if (argc > 1 && strcmp(argv[1], "_exit") == 0)
    _exit(code);
  return code;
}
