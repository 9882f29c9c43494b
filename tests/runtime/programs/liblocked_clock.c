/* A shared library that reads the clock while it holds a lock of its own, as libxml2's
 * xmlInitParser does: every rank shares this one copy, and so its lock. */
#include <pthread.h>
#include <semaphore.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

long locked_clock_read(void)
{
  pthread_mutex_lock(&lock);
  time_t now = time(NULL);
  pthread_mutex_unlock(&lock);
  return (long)now;
}

/* The same with clock_gettime, which switches to the simulator: a rank that waits for the mutex meanwhile
 * waits in simulated time (bxisim's pthread_mutex_lock). */
double locked_clock_gettime(void)
{
  struct timespec now;
  pthread_mutex_lock(&lock);
  clock_gettime(CLOCK_MONOTONIC, &now);
  pthread_mutex_unlock(&lock);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* Sleeps a simulated millisecond while it holds the mutex: another rank that wants the mutex waits for it. */
void locked_sleep(void)
{
  pthread_mutex_lock(&lock);
  usleep(1000);
  pthread_mutex_unlock(&lock);
}

/* The same under a semaphore, which bxisim does not interpose (nor read-write locks, condition
 * variables...): a rank that waits for it meanwhile blocks the thread of every rank (what the watchdog then
 * reports). */
static sem_t semaphore;

__attribute__((constructor)) static void make_semaphore(void)
{
  sem_init(&semaphore, 0, 1);
}

double semaphore_clock_gettime(void)
{
  struct timespec now;
  while (sem_wait(&semaphore) != 0) /* a signal (the watchdog's backtrace) interrupts it */
    ;
  clock_gettime(CLOCK_MONOTONIC, &now);
  sem_post(&semaphore);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}
