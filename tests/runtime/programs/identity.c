/* Who and where each rank is, and the key/value store: each rank puts its pid under its rank's key,
 * then reads its right neighbour's after a barrier (and its left neighbour's before: that get blocks
 * until the neighbour puts it). */
#define _GNU_SOURCE /* program_invocation_short_name */
#include <bxisim/rank.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

int main(void)
{
  int rank = bxisim_rank();
  int size = bxisim_size();
  char host[64];
  gethostname(host, sizeof(host));
  struct utsname names;
  uname(&names);
  char proc[64], exe[512] = {0};
  snprintf(proc, sizeof proc, "/proc/%d/status", (int)getpid()); /* the process's own, as programs read it */
  FILE* status    = fopen(proc, "r");
  int proc_opened = status != NULL;
  if (proc_opened)
    fclose(status);
  ssize_t exe_length                   = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[exe_length > 0 ? exe_length : 0] = '\0';
  char cmdline[512] = {0}, comm[32] = {0}; /* the first argument (the program as given), and the name */
  FILE* cmdline_file = fopen("/proc/self/cmdline", "r");
  if (cmdline_file != NULL) {
    size_t got   = fread(cmdline, 1, sizeof cmdline - 1, cmdline_file);
    cmdline[got] = '\0';
    fclose(cmdline_file);
  }
  snprintf(proc, sizeof proc, "/proc/%d/comm", (int)getpid());
  FILE* comm_file = fopen(proc, "r");
  if (comm_file != NULL) {
    if (fgets(comm, sizeof comm, comm_file) != NULL)
      comm[strcspn(comm, "\n")] = '\0';
    fclose(comm_file);
  }
  char key[32];
  snprintf(key, sizeof(key), "pid-%d", rank);
  int pid   = (int)getpid();
  int put   = bxisim_kv_put(key, &pid, sizeof(pid));
  int again = bxisim_kv_put(key, &pid, sizeof(pid));

  int left_pid = -1;
  snprintf(key, sizeof(key), "pid-%d", (rank + size - 1) % size);
  size_t left_size = 0;
  int got_left     = bxisim_kv_get(key, &left_pid, sizeof(left_pid), &left_size);
  bxisim_barrier();
  int right_pid = -1;
  snprintf(key, sizeof(key), "pid-%d", (rank + 1) % size);
  bxisim_kv_get(key, &right_pid, sizeof(right_pid), NULL);
  char small[1];
  size_t full   = 0;
  int truncated = bxisim_kv_get(key, small, sizeof(small), &full);
  bxisim_barrier();

  printf("rank=%d size=%d node=%d local_rank=%d local_size=%d host=%s uname=%s pid=%d left_pid=%d right_pid=%d put=%d "
         "again=%d got=%d size_left=%zu truncated=%d full=%zu proc_status=%d exe=%s invocation=%s cmdline=%s comm=%s\n",
         rank, size, bxisim_node_id(), bxisim_local_rank(), bxisim_local_size(), host, names.nodename, pid, left_pid,
         right_pid, put, again, got_left, left_size, truncated, full, proc_opened, exe, program_invocation_short_name,
         cmdline, comm);
  return 0;
}
