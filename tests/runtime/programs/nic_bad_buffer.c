/* A buffer that is not the rank's memory, given to Portals: rank 0 Gets 4 KiB from rank 1 into a read-only page
 * ("get": rank 0's NIC cannot write the reply), or Puts 4 KiB into rank 1's entry on a read-only page ("put": rank 1's
 * NIC cannot write the data). The NIC's copy faults; the run must name the rank whose buffer it is. */
#include <bxisim/rank.h>
#include <portals4.h>

#include "portals_check.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define BYTES 4096

static unsigned char data[BYTES];

int main(int argc, char** argv)
{
  int put = argc > 1 && strcmp(argv[1], "put") == 0;
  if (bxisim_size() != 2 || argc != 2 || (!put && strcmp(argv[1], "get") != 0)) {
    fprintf(stderr, "usage: bxisim run -n 2 nic_bad_buffer get|put\n");
    return 2;
  }
  unsigned char* read_only = mmap(NULL, BYTES, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (read_only == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  ptl_process_t me = open_matching_interface(&ni, &eq);
  int rank         = bxisim_rank();
  if (rank == 1) {
    expose_to_anyone(ni, eq, put ? read_only : data, BYTES, PTL_ME_OP_PUT | PTL_ME_OP_GET);
    bxisim_kv_put("target", &me, sizeof me);
  }
  bxisim_barrier(); /* exposed */
  if (rank == 0) {
    ptl_process_t target;
    bxisim_kv_get("target", &target, sizeof target, NULL);
    ptl_md_t md = {
        .start = put ? data : read_only, .length = BYTES, .options = 0, .eq_handle = eq, .ct_handle = PTL_CT_NONE};
    ptl_handle_md_t handle;
    CHECK(PtlMDBind(ni, &md, &handle));
    if (put)
      CHECK(PtlPut(handle, 0, BYTES, PTL_ACK_REQ, target, 0, 0, 0, NULL, 0));
    else
      CHECK(PtlGet(handle, 0, BYTES, target, 0, 0, 0, NULL));
    ptl_event_t event;
    do /* the SEND event of a Put comes first */
      CHECK(PtlEQWait(eq, &event));
    while (event.type != PTL_EVENT_REPLY && event.type != PTL_EVENT_ACK);
    printf("event=%d\n", (int)event.type);
  }
  bxisim_barrier(); /* done */
  return 0;
}
