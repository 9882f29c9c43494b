/* A Portals program that bootstraps with PMI-1 only, as the Portals 4 reference implementation's tests
 * and Hydra-launched programs do: every rank publishes its physical NIC address under a PMI key,
 * commits, meets the others at PMI_Barrier, reads every address back, then Puts its rank number to
 * the next rank of the ring (logical addressing over the map built from PMI) and checks what the
 * previous rank sent. Prints, per rank: its PMI rank and size, its clique (ranks of its node), the
 * value received, and the simulated time the Put arrived.
 *
 *   pmi_ring                 the ring
 *   pmi_ring abort CODE      rank 1 calls PMI_Abort(CODE) after the barrier; the others wait forever
 *   pmi_ring misuse          the PMI errors a program can get: calls before PMI_Init, an absent key,
 *                            a buffer too small, another key space
 *   pmi_ring barrier         each rank first sleeps rank x 1 us, then prints the simulated times it enters
 *                            and leaves a PMI_Barrier
 *   pmi_ring puts_then_barrier
 *                            rank 0 Puts 8 messages to rank 1 and goes to a PMI_Barrier without waiting for
 *                            their ACKs; after it, rank 1 prints how many had arrived, without waiting (the
 *                            Portals 4 reference suite's tests count on the launcher's barrier for that)
 */
#include <bxisim/rank.h>
#include <pmi.h>
#include <portals4.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call, ok)                                                                                                \
  do {                                                                                                                 \
    int rc_ = (call);                                                                                                  \
    if (rc_ != (ok)) {                                                                                                 \
      fprintf(stderr, "%s failed: %d\n", #call, rc_);                                                                  \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

static int misuse(void)
{
  int value = 0;
  char name[256], small[4], got[64];
  /* before PMI_Init */
  printf("rank before init: %d\n", PMI_Get_rank(&value));
  PMI_BOOL initialized = PMI_TRUE;
  CHECK(PMI_Initialized(&initialized), PMI_SUCCESS);
  printf("initialized before init: %d\n", initialized);
  int spawned = -1;
  CHECK(PMI_Init(&spawned), PMI_SUCCESS);
  CHECK(PMI_Initialized(&initialized), PMI_SUCCESS);
  printf("initialized after init: %d, spawned %d\n", initialized, spawned);
  CHECK(PMI_KVS_Get_my_name(name, sizeof name), PMI_SUCCESS);
  printf("name too small: %d\n", PMI_KVS_Get_my_name(small, sizeof small));
  printf("absent key: %d\n", PMI_KVS_Get(name, "never-put", got, sizeof got));
  printf("other space: %d\n", PMI_KVS_Put("another-space", "k", "v"));
  CHECK(PMI_KVS_Put(name, "k", "a value longer than four bytes"), PMI_SUCCESS);
  printf("value too long for the buffer: %d\n", PMI_KVS_Get(name, "k", small, sizeof small));
  printf("spawn: %d\n", PMI_Spawn_multiple(0, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL));
  CHECK(PMI_Finalize(), PMI_SUCCESS);
  printf("rank after finalize: %d\n", PMI_Get_rank(&value));
  return 0;
}

/* Ranks reach the barrier at different times; each leaves when the last has arrived, plus the launcher's time. */
static int barrier_times(void)
{
  int spawned, rank;
  CHECK(PMI_Init(&spawned), PMI_SUCCESS);
  CHECK(PMI_Get_rank(&rank), PMI_SUCCESS);
  struct timespec pause = {0, 1000L * rank};
  nanosleep(&pause, NULL);
  double enter = bxisim_time();
  CHECK(PMI_Barrier(), PMI_SUCCESS);
  double leave = bxisim_time();
  printf("barrier_enter=%.12f barrier_leave=%.12f\n", enter, leave);
  CHECK(PMI_Finalize(), PMI_SUCCESS);
  return 0;
}

/* Logical NI over the map published through PMI (every rank's physical address under "address-N"). */
static ptl_handle_ni_t logical_ni_from_pmi(int rank, int size)
{
  int name_max, key_max, value_max;
  CHECK(PMI_KVS_Get_name_length_max(&name_max), PMI_SUCCESS);
  CHECK(PMI_KVS_Get_key_length_max(&key_max), PMI_SUCCESS);
  CHECK(PMI_KVS_Get_value_length_max(&value_max), PMI_SUCCESS);
  char* name  = malloc((size_t)name_max);
  char* key   = malloc((size_t)key_max);
  char* value = malloc((size_t)value_max);
  CHECK(PMI_KVS_Get_my_name(name, name_max), PMI_SUCCESS);

  ptl_handle_ni_t ni;
  ptl_process_t me;
  CHECK(PtlInit(), PTL_OK);
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni), PTL_OK);
  CHECK(PtlGetPhysId(ni, &me), PTL_OK);
  snprintf(key, (size_t)key_max, "address-%d", rank);
  snprintf(value, (size_t)value_max, "%u:%u", me.phys.nid, me.phys.pid);
  CHECK(PMI_KVS_Put(name, key, value), PMI_SUCCESS);
  CHECK(PMI_KVS_Commit(name), PMI_SUCCESS);
  CHECK(PMI_Barrier(), PMI_SUCCESS);

  ptl_process_t* map = malloc(sizeof(ptl_process_t) * (size_t)size);
  for (int i = 0; i < size; ++i) {
    snprintf(key, (size_t)key_max, "address-%d", i);
    CHECK(PMI_KVS_Get(name, key, value, value_max), PMI_SUCCESS);
    unsigned nid, pid;
    if (sscanf(value, "%u:%u", &nid, &pid) != 2)
      exit(3);
    map[i].phys.nid = nid;
    map[i].phys.pid = pid;
  }
  CHECK(PtlSetMap(ni, (ptl_size_t)size, map), PTL_OK);
  free(map);
  free(value);
  free(key);
  free(name);
  return ni;
}

/* An entry on `pt` that takes Puts from anyone into `start` and counts them on `counter`, without events. */
static void append_counted_entry(ptl_handle_ni_t ni, ptl_pt_index_t pt, void* start, ptl_size_t length,
                                 ptl_handle_ct_t counter)
{
  ptl_me_t entry = {.start       = start,
                    .length      = length,
                    .ct_handle   = counter,
                    .uid         = PTL_UID_ANY,
                    .options     = PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_SUCCESS_DISABLE,
                    .match_id    = {.rank = PTL_RANK_ANY},
                    .match_bits  = 0,
                    .ignore_bits = 0};
  ptl_handle_me_t handle;
  CHECK(PtlMEAppend(ni, pt, &entry, PTL_PRIORITY_LIST, NULL, &handle), PTL_OK);
}

/* The reference suite's pattern: Puts whose ACKs nobody waits for, then the launcher's barrier, after which the
 * target counts on having them all. */
static int puts_then_barrier(void)
{
  enum { kPuts = 8 };
  int spawned, rank, size;
  CHECK(PMI_Init(&spawned), PMI_SUCCESS);
  CHECK(PMI_Get_rank(&rank), PMI_SUCCESS);
  CHECK(PMI_Get_size(&size), PMI_SUCCESS);
  ptl_handle_ni_t ni = logical_ni_from_pmi(rank, size);
  ptl_pt_index_t pt;
  ptl_handle_ct_t counter;
  CHECK(PtlCTAlloc(ni, &counter), PTL_OK);
  CHECK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 0, &pt), PTL_OK);
  long word = 0;
  if (rank == 1) {
    append_counted_entry(ni, pt, &word, sizeof word, counter);
  }
  CHECK(PMI_Barrier(), PMI_SUCCESS);
  if (rank == 0) {
    ptl_md_t descriptor = {.start     = &word,
                           .length    = sizeof word,
                           .options   = PTL_MD_EVENT_CT_ACK,
                           .eq_handle = PTL_EQ_NONE,
                           .ct_handle = counter};
    ptl_handle_md_t md;
    CHECK(PtlMDBind(ni, &descriptor, &md), PTL_OK);
    ptl_process_t target = {.rank = 1};
    for (int i = 0; i < kPuts; ++i)
      CHECK(PtlPut(md, 0, sizeof word, PTL_CT_ACK_REQ, target, pt, 0, 0, NULL, 0), PTL_OK);
  }
  CHECK(PMI_Barrier(), PMI_SUCCESS);
  if (rank == 1) {
    ptl_ct_event_t arrived;
    CHECK(PtlCTGet(counter, &arrived), PTL_OK);
    printf("arrived after the barrier: %lu of %d at %.9f s\n", (unsigned long)arrived.success, kPuts, bxisim_time());
  }
  CHECK(PMI_Barrier(), PMI_SUCCESS); /* rank 0's ACKs are in before its NI goes */
  PtlNIFini(ni);
  PtlFini();
  CHECK(PMI_Finalize(), PMI_SUCCESS);
  return 0;
}

int main(int argc, char** argv)
{
  if (argc > 1 && strcmp(argv[1], "misuse") == 0)
    return misuse();
  if (argc > 1 && strcmp(argv[1], "barrier") == 0)
    return barrier_times();
  if (argc > 1 && strcmp(argv[1], "puts_then_barrier") == 0)
    return puts_then_barrier();
  int spawned, rank, size, clique_size;
  CHECK(PMI_Init(&spawned), PMI_SUCCESS);
  CHECK(PMI_Get_rank(&rank), PMI_SUCCESS);
  CHECK(PMI_Get_size(&size), PMI_SUCCESS);
  CHECK(PMI_Get_clique_size(&clique_size), PMI_SUCCESS);
  int* clique = malloc(sizeof(int) * (size_t)clique_size);
  CHECK(PMI_Get_clique_ranks(clique, clique_size), PMI_SUCCESS);
  ptl_handle_ni_t ni = logical_ni_from_pmi(rank, size);
  if (argc > 2 && strcmp(argv[1], "abort") == 0 && rank == 1)
    PMI_Abort(atoi(argv[2]), "rank 1 gives up");

  ptl_pt_index_t pt;
  ptl_handle_ct_t arrived, sent;
  ptl_handle_md_t md;
  int received = -1, mine = rank;
  CHECK(PtlCTAlloc(ni, &arrived), PTL_OK);
  CHECK(PtlCTAlloc(ni, &sent), PTL_OK);
  CHECK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 0, &pt), PTL_OK);
  append_counted_entry(ni, pt, &received, sizeof received, arrived);
  ptl_md_t descriptor = {.start     = &mine,
                         .length    = sizeof mine,
                         .options   = PTL_MD_EVENT_CT_ACK,
                         .eq_handle = PTL_EQ_NONE,
                         .ct_handle = sent};
  CHECK(PtlMDBind(ni, &descriptor, &md), PTL_OK);
  CHECK(PMI_Barrier(), PMI_SUCCESS); /* every entry is appended before anyone Puts */
  ptl_process_t next = {.rank = (ptl_rank_t)((rank + 1) % size)};
  CHECK(PtlPut(md, 0, sizeof mine, PTL_CT_ACK_REQ, next, pt, 0, 0, NULL, 0), PTL_OK);
  ptl_ct_event_t counted;
  CHECK(PtlCTWait(arrived, 1, &counted), PTL_OK);
  double arrival = bxisim_time();
  CHECK(PtlCTWait(sent, 1, &counted), PTL_OK);

  printf("pmi rank %d of %d (bxisim rank %d), spawned %d, clique", rank, size, bxisim_rank(), spawned);
  for (int i = 0; i < clique_size; ++i)
    printf(" %d", clique[i]);
  printf(", received %d at %.9f s\n", received, arrival);
  CHECK(PMI_Barrier(), PMI_SUCCESS);
  PtlNIFini(ni);
  PtlFini();
  CHECK(PMI_Finalize(), PMI_SUCCESS);
  return received == (rank + size - 1) % size ? 0 : 4;
}
