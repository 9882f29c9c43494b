/* A named semaphore shared by the ranks (processes of a node, in a real run), name given as argv[1]: rank 0 creates
 * it at 0 and waits on it; rank 1 opens it after 30 us of sleep and posts it, then rank 0's timed wait expires 20 us
 * later. Prints key=value lines, simulated times in ns. Two ranks. */
#include "deadline.h"
#include "elapsed.h"

#include <bxisim/rank.h>

#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv)
{
  const char* name = argc > 1 ? argv[1] : "/bxisim-named-semaphore";
  if (bxisim_rank() == 0) {
    sem_unlink(name);
    sem_t* semaphore = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
    if (semaphore == SEM_FAILED) {
      perror("sem_open");
      return 1;
    }
    bxisim_barrier();
    long long start = now_ns();
    sem_wait(semaphore);
    long long posted         = now_ns() - start;
    struct timespec deadline = deadline_in(CLOCK_REALTIME, 20000);
    start                    = now_ns();
    int timed                = sem_timedwait(semaphore, &deadline);
    int error                = errno;
    long long late           = now_ns() - start;
    printf("posted_after=%lld timed_out=%d timed_out_after=%lld\n", posted, timed == -1 && error == ETIMEDOUT, late);
    bxisim_barrier();
    sem_close(semaphore);
    sem_unlink(name);
  } else {
    bxisim_barrier();
    usleep(30);
    sem_t* semaphore = sem_open(name, 0);
    if (semaphore == SEM_FAILED) {
      perror("sem_open");
      return 1;
    }
    sem_post(semaphore);
    int value = -1;
    sem_getvalue(semaphore, &value);
    printf("opened=1 value_after_post=%d\n", value);
    bxisim_barrier();
    sem_close(semaphore);
  }
  return 0;
}
