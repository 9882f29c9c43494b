/* Sustained traffic for the fault tests: rank 0 Puts argv[1] payloads of random sizes (log-uniform
 * from 1 B to 1 MiB, drawn from the seed argv[2]) to rank 1, one at a time, each waiting for its ACK.
 * Every byte of a payload is a function of (payload number, offset): rank 1 checks each payload when
 * its PUT event arrives (before the initiator can send the next one) and prints how many were intact,
 * the bytes received, and the simulated time the last one arrived. Rank 0 prints the ACK failures. */
#include <bxisim/rank.h>
#include <portals4.h>

#include "portals_check.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_BYTES (1u << 20)

static unsigned char byte_of(uint64_t payload, uint64_t offset)
{
  uint64_t x = (payload + 1) * 0x9E3779B97F4A7C15ull + offset * 0xBF58476D1CE4E5B9ull;
  return (unsigned char)(x >> 56);
}

/* xorshift64*: the same sizes on every rank for the same seed */
static uint64_t next_random(uint64_t* state)
{
  *state ^= *state >> 12;
  *state ^= *state << 25;
  *state ^= *state >> 27;
  return *state * 0x2545F4914F6CDD1Dull;
}

static uint64_t size_of(uint64_t* state)
{
  double unit = (double)(next_random(state) >> 11) * 0x1.0p-53;
  return (uint64_t)exp(unit * log((double)MAX_BYTES)); /* 1 B .. 1 MiB, as many of each order of magnitude */
}

int main(int argc, char** argv)
{
  if (argc < 3 || bxisim_size() != 2) {
    fprintf(stderr, "usage: bxisim run -n 2 lossy_puts COUNT SEED\n");
    return 2;
  }
  long count     = atol(argv[1]);
  uint64_t state = (uint64_t)atoll(argv[2]) | 1;
  static unsigned char buffer[MAX_BYTES];
  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  ptl_process_t me, peer;
  ptl_event_t event;
  CHECK(PtlInit());
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &ni));
  CHECK(PtlGetPhysId(ni, &me));
  CHECK(PtlEQAlloc(ni, 64, &eq));
  char key[32];
  snprintf(key, sizeof key, "id%d", bxisim_rank());
  bxisim_kv_put(key, &me, sizeof me);
  bxisim_barrier();
  snprintf(key, sizeof key, "id%d", 1 - bxisim_rank());
  bxisim_kv_get(key, &peer, sizeof peer, NULL);

  if (bxisim_rank() == 1) {
    expose_to_anyone(ni, eq, buffer, MAX_BYTES, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
    bxisim_barrier();
    long intact = 0, received = 0;
    uint64_t bytes = 0;
    while (received < count) {
      CHECK(PtlEQWait(eq, &event));
      if (event.type != PTL_EVENT_PUT)
        continue;
      uint64_t payload = event.hdr_data;
      int good         = event.ni_fail_type == PTL_NI_OK && payload == (uint64_t)received;
      for (uint64_t i = 0; good && i < event.mlength; ++i)
        good = buffer[i] == byte_of(payload, i);
      intact += good;
      bytes += event.mlength;
      received++;
    }
    printf("intact=%ld received=%ld bytes=%llu last_arrival=%.9f\n", intact, received, (unsigned long long)bytes,
           bxisim_time());
  } else {
    ptl_md_t md = {.start = buffer, .length = MAX_BYTES, .options = 0, .eq_handle = eq, .ct_handle = PTL_CT_NONE};
    ptl_handle_md_t handle;
    CHECK(PtlMDBind(ni, &md, &handle));
    bxisim_barrier();
    long failures = 0;
    for (long p = 0; p < count; ++p) {
      uint64_t size = size_of(&state);
      for (uint64_t i = 0; i < size; ++i)
        buffer[i] = byte_of((uint64_t)p, i);
      CHECK(PtlPut(handle, 0, size, PTL_ACK_REQ, peer, 0, 0, 0, NULL, (ptl_hdr_data_t)p));
      do
        CHECK(PtlEQWait(eq, &event));
      while (event.type != PTL_EVENT_ACK);
      if (event.ni_fail_type != PTL_NI_OK && failures++ == 0)
        fprintf(stderr, "put %ld of %llu B: ACK with ni_fail_type %d\n", p, (unsigned long long)size,
                event.ni_fail_type);
    }
    printf("sent=%ld ack_failures=%ld end=%.9f\n", count, failures, bxisim_time());
  }
  return 0;
}
