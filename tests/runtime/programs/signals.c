/* Signals a rank sends itself, and signals it must not be able to send.
 *   handled        : a SA_SIGINFO handler for SIGUSR1, reached by kill, raise, sigqueue, pthread_kill
 *   unhandled R SIG: rank R sends itself signal number SIG with kill(getpid(), SIG); every rank then
 *                    prints "rank N done"
 *   ignored        : SIGTERM ignored, SIGCHLD by default: both raised, the rank goes on
 *   outside        : kill() of the host's processes and of process groups fails
 *   timers         : alarm, ualarm and setitimer (1 ms of wall time), then 0.2 s of the rank's own code: their
 *                    signal would end the whole simulator */
#define _GNU_SOURCE
#include <bxisim/rank.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int count;
static int last_value;
static int last_pid;

static void on_usr1(int number, siginfo_t* info, void* context)
{
  (void)context;
  if (number == SIGUSR1)
    count++;
  last_pid = info->si_pid;
  if (info->si_code == SI_QUEUE)
    last_value = info->si_value.sival_int;
}

int main(int argc, char** argv)
{
  const char* what = argc > 1 ? argv[1] : "";
  int me           = bxisim_rank();
  if (strcmp(what, "handled") == 0) {
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = on_usr1;
    action.sa_flags     = SA_SIGINFO;
    sigaction(SIGUSR1, &action, NULL);
    kill(getpid(), SIGUSR1);
    usleep(10); /* the other ranks install their handlers (or not) meanwhile */
    raise(SIGUSR1);
    union sigval value;
    value.sival_int = 100 + me;
    sigqueue(getpid(), SIGUSR1, value);
    pthread_kill(pthread_self(), SIGUSR1);
    printf("count=%d value=%d pid=%d own_pid=%d\n", count, last_value, last_pid, (int)getpid());
  } else if (strcmp(what, "unhandled") == 0 && argc > 3) {
    usleep(10);
    if (me == atoi(argv[2])) {
      kill(getpid(), atoi(argv[3]));
      printf("rank %d survived its signal\n", me);
    }
    usleep(10);
  } else if (strcmp(what, "ignored") == 0) {
    signal(SIGTERM, SIG_IGN);
    raise(SIGTERM);
    raise(SIGCHLD);
    printf("ignored=yes\n");
  } else if (strcmp(what, "outside") == 0) {
    errno            = 0;
    int parent       = kill(getppid(), SIGCONT);
    int parent_errno = errno;
    errno            = 0;
    int init         = kill(1, 0);
    int init_errno   = errno;
    errno            = 0;
    int group        = kill(0, SIGCONT);
    int group_errno  = errno;
    int other        = kill(1000 + (me + 1) % bxisim_size(), 0);
    printf("parent=%d/%s init=%d/%s group=%d/%s other_exists=%d\n", parent, strerrorname_np(parent_errno), init,
           strerrorname_np(init_errno), group, strerrorname_np(group_errno), other);
  } else if (strcmp(what, "timers") == 0) {
    alarm(1);
    ualarm(1000, 0);
    struct itimerval every_ms = {{0, 1000}, {0, 1000}}, before;
    int set                   = setitimer(ITIMER_REAL, &every_ms, &before);
    setitimer(ITIMER_PROF, &every_ms, NULL);
    /* 0.2 s of the host's CPU time in the rank's own code: a real timer's signal would come meanwhile */
    struct timespec start, now;
    syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, &start);
    volatile unsigned long spins = 0;
    do {
      for (int i = 0; i < 1000000; ++i)
        spins++;
      syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, &now);
    } while ((now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) * 1e-9 < 0.2);
    printf("timers_set=%d alarm_left=%u\n", set, alarm(0));
  }
  printf("rank %d done\n", me);
  return 0;
}
