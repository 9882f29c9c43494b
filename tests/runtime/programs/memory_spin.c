/* A rank that busy-waits on memory its NIC writes (tests/runtime/busy_wait_test.cpp): rank 1 Puts a
 * value into rank 0's buffer after argv[2] microseconds of sleep; rank 0 loops on the buffer without
 * any call ("plain": only preemption lets the NIC write; "blocked": the same, after blocking every
 * signal it can; "plain_after_compute": the same, after rank 0 computed for argv[3] seconds of CPU time before the
 * barrier), or calling sched_yield ("yield") or time() ("time"), and prints the value and when it saw it. Times are
 * simulated, from the end of a common barrier. */
#include <bxisim/rank.h>
#include <portals4.h>

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The host's CPU time of the thread, through a system call (bxisim's clock_gettime would give the simulated one). */
static double host_cpu_time(void)
{
  struct timespec t;
  syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static volatile double sink;

static void compute(double seconds)
{
  double start = host_cpu_time();
  while (host_cpu_time() - start < seconds)
    for (int i = 0; i < 30000; ++i)
      sink = sink * 0.5 + i;
}

int main(int argc, char** argv)
{
  int yield        = argc > 1 && strcmp(argv[1], "yield") == 0;
  int read_time    = argc > 1 && strcmp(argv[1], "time") == 0;
  long delay_us    = argc > 2 ? atol(argv[2]) : 5;
  double computing = argc > 1 && strcmp(argv[1], "plain_after_compute") == 0 && argc > 3 ? atof(argv[3]) : 0;
  if (argc > 1 && strcmp(argv[1], "blocked") == 0) {
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
  }
  int rank = bxisim_rank();
  ptl_handle_ni_t ni;
  ptl_pt_index_t pt;
  ptl_process_t me, peer;
  PtlInit();
  PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &ni);
  PtlPTAlloc(ni, 0, PTL_EQ_NONE, 0, &pt);
  PtlGetPhysId(ni, &me);
  static volatile int64_t flag;
  static int64_t value = 42;
  ptl_le_t le;
  memset(&le, 0, sizeof le);
  le.start     = (void*)&flag;
  le.length    = sizeof flag;
  le.ct_handle = PTL_CT_NONE;
  le.uid       = PTL_UID_ANY;
  le.options   = PTL_LE_OP_PUT;
  ptl_handle_le_t le_handle;
  PtlLEAppend(ni, pt, &le, PTL_PRIORITY_LIST, NULL, &le_handle);
  ptl_md_t md;
  memset(&md, 0, sizeof md);
  md.start     = &value;
  md.length    = sizeof value;
  md.eq_handle = PTL_EQ_NONE;
  md.ct_handle = PTL_CT_NONE;
  ptl_handle_md_t md_handle;
  PtlMDBind(ni, &md, &md_handle);
  char key[32];
  snprintf(key, sizeof key, "id-%d", rank);
  bxisim_kv_put(key, &me, sizeof me);
  snprintf(key, sizeof key, "id-%d", 1 - rank);
  size_t got;
  bxisim_kv_get(key, &peer, sizeof peer, &got);
  if (rank == 0)
    compute(computing);
  bxisim_barrier();
  double start = now();
  if (rank == 1) {
    usleep(delay_us);
    printf("put=%.9f\n", now() - start);
    PtlPut(md_handle, 0, sizeof value, PTL_NO_ACK_REQ, peer, pt, 0, 0, NULL, 0);
  } else {
    while (flag == 0)
      if (yield)
        sched_yield();
      else if (read_time)
        (void)time(NULL);
    printf("value=%ld seen=%.9f\n", (long)flag, now() - start);
  }
  bxisim_barrier();
  PtlNIFini(ni);
  PtlFini();
  return 0;
}
