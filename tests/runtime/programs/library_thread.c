/* A Portals call from a thread that a library created for the rank (an OpenMP runtime's team member), which
 * runs outside the simulation: bxisim refuses it with a message. With "late", the call comes after a few
 * milliseconds of real time, while the rank's main thread waits for an event that only that call would bring: the
 * simulation has deadlocked by then. With "spin", the thread spins for ever while main waits: a deadlock, whose
 * report names the rank's library threads, and the thread's spinning on the rank's memory as the run ends is not
 * a crash. */
#include "portals_check.h"

#include <omp.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int never_set;

static double wall_seconds(void)
{
  struct timespec now;
  syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID,
          &now); /* the host's CPU clock (a system call): it advances in real time */
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

int main(int argc, char** argv)
{
  const char* mode = argc > 1 ? argv[1] : "";
  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  open_matching_interface(&ni, &eq);
#pragma omp parallel num_threads(2)
  {
    ptl_event_t event;
    if (omp_get_thread_num() == 0 && mode[0] != '\0') {
      PtlEQWait(eq, &event); /* nothing ever comes */
    } else if (omp_get_thread_num() == 1) {
      if (strcmp(mode, "spin") == 0)
        while (!never_set) {
        }
      if (strcmp(mode, "late") == 0)
        for (double start = wall_seconds(); wall_seconds() - start < 0.005;) {
        }
      PtlEQGet(eq, &event);
    }
  }
  return 0;
}
