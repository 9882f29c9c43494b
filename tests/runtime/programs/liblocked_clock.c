/* A shared library that reads the clock while it holds a lock of its own, as libxml2's
 * xmlInitParser does: every rank shares this one copy, and so its lock. */
#include <pthread.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

long locked_clock_read(void)
{
  pthread_mutex_lock(&lock);
  time_t now = time(NULL);
  pthread_mutex_unlock(&lock);
  return (long)now;
}

/* The same with clock_gettime, which switches to the simulator: a rank that waits for the lock meanwhile
 * blocks every rank (what the watchdog then reports). */
double locked_clock_gettime(void)
{
  struct timespec now;
  pthread_mutex_lock(&lock);
  clock_gettime(CLOCK_MONOTONIC, &now);
  pthread_mutex_unlock(&lock);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}
