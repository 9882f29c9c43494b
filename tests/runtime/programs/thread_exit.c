/* exit() from a thread the rank created ends the rank as it ends a process: its exit handlers run (in that
 * thread), its main thread (waiting in pthread_join, or sleeping a simulated second with "sleep") and its other
 * threads stop there, and the rank's exit code is the thread's. Rank r's thread exits with r + 3 after 10 us. */
#include <bxisim/rank.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void said_at_exit(void)
{
  printf("exit_handler_at=%.9f\n", bxisim_time());
}

static void* exiting(void* unused)
{
  (void)unused;
  usleep(10);
  exit(bxisim_rank() + 3);
}

static void* sleeping(void* unused)
{
  (void)unused;
  sleep(1);
  printf("other_thread_woke=1\n");
  return NULL;
}

int main(int argc, char** argv)
{
  int main_sleeps = argc > 1 && strcmp(argv[1], "sleep") == 0;
  atexit(said_at_exit);
  pthread_t exiter, sleeper;
  pthread_create(&sleeper, NULL, sleeping, NULL);
  pthread_create(&exiter, NULL, exiting, NULL);
  if (main_sleeps)
    sleep(1);
  else
    pthread_join(exiter, NULL);
  printf("main_went_on=1\n");
  return 0;
}
