/* A shared library that reads the clock while it holds a lock of its own, as libxml2's
 * xmlInitParser does: every rank shares this one copy, and so its lock. */
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
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

/* Calls `inside` while it holds the mutex (a library that calls back into the program under its lock, as libgfortran
 * did around a print whose list called MPI): a rank that calls the simulator there keeps the lock. */
void locked_call(void (*inside)(void))
{
  pthread_mutex_lock(&lock);
  inside();
  pthread_mutex_unlock(&lock);
}

/* The same under a read-write lock: a rank that wants to write while another reads waits in simulated time
 * (bxisim's pthread_rwlock_wrlock). */
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;

double rwlock_clock_gettime(int writer)
{
  struct timespec now;
  if (writer)
    pthread_rwlock_wrlock(&rwlock);
  else
    pthread_rwlock_rdlock(&rwlock);
  clock_gettime(CLOCK_MONOTONIC, &now);
  pthread_rwlock_unlock(&rwlock);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* The same under a lock made of a futex whose system calls are made inline, as the C library's own locks do, which
 * bxisim cannot see (it sees those made through syscall()): a rank that wants it while another holds it blocks the
 * thread of every rank in the kernel (what the watchdog then reports). */
static int futex_word; /* 0: free, 1: taken */

static long inline_futex(int* word, int operation, int value)
{
  long result;
  register long timeout __asm__("r10") = 0;
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "0"((long)SYS_futex), "D"(word), "S"((long)operation), "d"((long)value), "r"(timeout)
                   : "rcx", "r11", "memory");
  return result;
}

double futex_clock_gettime(void)
{
  struct timespec now;
  while (__sync_lock_test_and_set(&futex_word, 1))
    inline_futex(&futex_word, FUTEX_WAIT, 1);
  clock_gettime(CLOCK_MONOTONIC, &now);
  __sync_lock_release(&futex_word);
  inline_futex(&futex_word, FUTEX_WAKE, 1);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* The same through the C library's syscall(), as libstdc++ makes its futex calls: bxisim sees those, and a rank that
 * wants the lock while another holds it waits in simulated time. */
static int syscall_futex_word;

double syscall_futex_clock_gettime(void)
{
  struct timespec now;
  while (__sync_lock_test_and_set(&syscall_futex_word, 1))
    syscall(SYS_futex, &syscall_futex_word, FUTEX_WAIT, 1, NULL, NULL, 0);
  clock_gettime(CLOCK_MONOTONIC, &now);
  __sync_lock_release(&syscall_futex_word);
  syscall(SYS_futex, &syscall_futex_word, FUTEX_WAKE, 1, NULL, NULL, 0);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}
