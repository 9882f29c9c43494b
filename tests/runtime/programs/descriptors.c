/* The descriptor numbers a rank gets: a file opened before any Portals traffic and after a Put to the next rank
 * (the simulator's own files, opened for its options, must not take the low numbers a process would get), and
 * its limit of open files. */
#include "portals_check.h"

#include <bxisim/rank.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* How many of the process's descriptors are ranks' output files of --output-dir (rank-N.stdout, rank-N.stderr). */
static int open_output_files(void)
{
  int count    = 0;
  DIR* listing = opendir("/proc/self/fd");
  struct dirent* entry;
  while (listing != NULL && (entry = readdir(listing)) != NULL) {
    char link[300], target[4096];
    snprintf(link, sizeof(link), "/proc/self/fd/%s", entry->d_name);
    ssize_t length = readlink(link, target, sizeof(target) - 1);
    if (length <= 0)
      continue;
    target[length] = '\0';
    count +=
        strstr(target, "/rank-") != NULL && (strstr(target, ".stdout") != NULL || strstr(target, ".stderr") != NULL);
  }
  if (listing != NULL)
    closedir(listing);
  return count;
}

static int first_free_descriptor(void)
{
  int descriptor = open("/dev/null", O_RDONLY);
  close(descriptor);
  return descriptor;
}

int main(void)
{
  int before = first_free_descriptor();

  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  ptl_process_t me = open_matching_interface(&ni, &eq);
  static char landing[8];
  expose_to_anyone(ni, eq, landing, sizeof(landing), PTL_ME_OP_PUT | PTL_ME_EVENT_COMM_DISABLE);
  char key[32];
  snprintf(key, sizeof(key), "id-%d", bxisim_rank());
  bxisim_kv_put(key, &me, sizeof(me));
  bxisim_barrier();
  ptl_process_t next;
  snprintf(key, sizeof(key), "id-%d", (bxisim_rank() + 1) % bxisim_size());
  bxisim_kv_get(key, &next, sizeof(next), NULL);

  static char payload[8] = "payload";
  ptl_md_t description   = {.start = payload, .length = sizeof(payload), .eq_handle = eq, .ct_handle = PTL_CT_NONE};
  ptl_handle_md_t md;
  CHECK(PtlMDBind(ni, &description, &md));
  CHECK(PtlPut(md, 0, sizeof(payload), PTL_ACK_REQ, next, 0, 0, 0, NULL, 0));
  ptl_event_t event;
  do
    CHECK(PtlEQWait(eq, &event));
  while (event.type != PTL_EVENT_ACK);
  bxisim_barrier();

  struct rlimit limit;
  getrlimit(RLIMIT_NOFILE, &limit);
  printf("before=%d after=%d soft_limit=%lld hard_limit=%lld output_files_open=%d\n", before, first_free_descriptor(),
         (long long)limit.rlim_cur, (long long)limit.rlim_max, open_output_files());
  CHECK(PtlMDRelease(md));
  CHECK(PtlNIFini(ni));
  PtlFini();
  return 0;
}
