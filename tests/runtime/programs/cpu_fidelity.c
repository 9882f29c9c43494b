/* Timing fidelity of CPU-time injection (docs/running.md, "Computation"). Ranks pair up (even rank r
 * with r + 1). Each even rank times its first Puts one by one (PtlPut with an ACK, then the wait for
 * the ACK), then plays `iterations` rounds of ping-pong of `size` bytes with its partner, timing each
 * round. It prints
 *   first=<us> second=<us> third=<us> median_half=<us> mean_half=<us>
 * Times are simulated microseconds read with clock_gettime; the median is over rounds. */
#include <bxisim/rank.h>
#include <portals4.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    int rc_ = (call);                                                                                                  \
    if (rc_ != PTL_OK) {                                                                                               \
      fprintf(stderr, "rank %d: %s failed: %d\n", bxisim_rank(), #call, rc_);                                          \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

static double now_us(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static ptl_handle_eq_t eq;

static void wait_for(ptl_event_kind_t kind)
{
  ptl_event_t event;
  do
    CHECK(PtlEQWait(eq, &event));
  while (event.type != kind);
}

static int by_value(const void* a, const void* b)
{
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv)
{
  size_t size    = argc > 1 ? (size_t)atol(argv[1]) : 8;
  int iterations = argc > 2 ? atoi(argv[2]) : 100;
  int rank = bxisim_rank(), partner = rank ^ 1;
  if (partner >= bxisim_size()) {
    fprintf(stderr, "run an even number of ranks\n");
    return 1;
  }
  ptl_handle_ni_t ni;
  ptl_pt_index_t pt;
  ptl_process_t me, peer;
  CHECK(PtlInit());
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &ni));
  CHECK(PtlEQAlloc(ni, 64, &eq));
  CHECK(PtlPTAlloc(ni, 0, eq, 0, &pt));
  CHECK(PtlGetPhysId(ni, &me));
  char* buffer = calloc(size ? size : 1, 1);
  ptl_me_t entry;
  memset(&entry, 0, sizeof entry);
  entry.start             = buffer;
  entry.length            = size;
  entry.ct_handle         = PTL_CT_NONE;
  entry.uid               = PTL_UID_ANY;
  entry.options           = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE;
  entry.match_id.phys.nid = PTL_NID_ANY;
  entry.match_id.phys.pid = PTL_PID_ANY;
  ptl_handle_me_t me_handle;
  CHECK(PtlMEAppend(ni, pt, &entry, PTL_PRIORITY_LIST, NULL, &me_handle));
  ptl_md_t md;
  memset(&md, 0, sizeof md);
  md.start     = buffer;
  md.length    = size;
  md.eq_handle = eq;
  md.ct_handle = PTL_CT_NONE;
  md.options   = PTL_MD_EVENT_SEND_DISABLE;
  ptl_handle_md_t md_handle;
  CHECK(PtlMDBind(ni, &md, &md_handle));
  char key[32];
  snprintf(key, sizeof key, "id-%d", rank);
  bxisim_kv_put(key, &me, sizeof me);
  snprintf(key, sizeof key, "id-%d", partner);
  bxisim_kv_get(key, &peer, sizeof peer, NULL);
  bxisim_barrier();

  double single[3] = {0, 0, 0};
  if (rank % 2 == 0)
    for (int i = 0; i < 3; ++i) {
      double start = now_us();
      CHECK(PtlPut(md_handle, 0, size, PTL_ACK_REQ, peer, pt, 0, 0, NULL, 0));
      wait_for(PTL_EVENT_ACK);
      single[i] = now_us() - start;
    }
  else
    for (int i = 0; i < 3; ++i)
      wait_for(PTL_EVENT_PUT);
  bxisim_barrier();

  double* rounds = malloc(sizeof(double) * (size_t)iterations);
  double begin   = now_us();
  for (int i = 0; i < iterations; ++i) {
    double start = now_us();
    if (rank % 2 == 0) {
      CHECK(PtlPut(md_handle, 0, size, PTL_NO_ACK_REQ, peer, pt, 0, 0, NULL, 0));
      wait_for(PTL_EVENT_PUT);
    } else {
      wait_for(PTL_EVENT_PUT);
      CHECK(PtlPut(md_handle, 0, size, PTL_NO_ACK_REQ, peer, pt, 0, 0, NULL, 0));
    }
    rounds[i] = now_us() - start;
  }
  double mean = (now_us() - begin) / iterations / 2;
  qsort(rounds, (size_t)iterations, sizeof(double), by_value);
  if (rank % 2 == 0)
    printf("first=%.6f second=%.6f third=%.6f median_half=%.6f mean_half=%.6f\n", single[0], single[1], single[2],
           rounds[iterations / 2] / 2, mean);
  ptl_event_t pending;
  while (PtlMDRelease(md_handle) == PTL_IN_USE)
    PtlEQGet(eq, &pending);
  free(rounds);
  free(buffer);
  PtlNIFini(ni);
  PtlFini();
  return 0;
}
