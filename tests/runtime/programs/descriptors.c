/* The descriptor numbers a rank gets: a file opened before any Portals traffic and after a Put to the next rank
 * (the simulator's own files, opened for its options, must not take the low numbers a process would get), and
 * its limit of open files. */
#include "portals_check.h"

#include <bxisim/rank.h>

#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

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
  printf("before=%d after=%d soft_limit=%lld hard_limit=%lld\n", before, first_free_descriptor(),
         (long long)limit.rlim_cur, (long long)limit.rlim_max);
  CHECK(PtlMDRelease(md));
  CHECK(PtlNIFini(ni));
  PtlFini();
  return 0;
}
