/* CHECK(call): a Portals call that must succeed; otherwise the program names it and exits 1. Shared
 * by the test programs that include it (each is otherwise a standalone program built with bxicc). */
#ifndef BXISIM_TEST_PORTALS_CHECK_H
#define BXISIM_TEST_PORTALS_CHECK_H

#include <portals4.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                                    \
  do {                                                                                                                 \
    int rc_ = (call);                                                                                                  \
    if (rc_ != PTL_OK) {                                                                                               \
      fprintf(stderr, "%s failed: %d\n", #call, rc_);                                                                  \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

/* Initializes Portals and a matching, physically addressed interface with an event queue of 64
 * entries; returns this process's id. */
static inline ptl_process_t open_matching_interface(ptl_handle_ni_t* ni, ptl_handle_eq_t* eq)
{
  ptl_process_t me;
  CHECK(PtlInit());
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, ni));
  CHECK(PtlGetPhysId(*ni, &me));
  CHECK(PtlEQAlloc(*ni, 64, eq));
  return me;
}

/* Exposes `length` bytes at `start` on portal table entry 0 to any process, whatever the match bits,
 * for the operations in `options` (PTL_ME_OP_PUT, PTL_ME_OP_GET and event options), counted by `ct`. */
static inline void expose_counted_to_anyone(ptl_handle_ni_t ni, ptl_handle_eq_t eq, void* start, ptl_size_t length,
                                            unsigned int options, ptl_handle_ct_t ct)
{
  ptl_pt_index_t pt;
  CHECK(PtlPTAlloc(ni, 0, eq, 0, &pt));
  ptl_me_t entry = {.start       = start,
                    .length      = length,
                    .ct_handle   = ct,
                    .uid         = PTL_UID_ANY,
                    .options     = options,
                    .match_id    = {.phys = {.nid = PTL_NID_ANY, .pid = PTL_PID_ANY}},
                    .match_bits  = 0,
                    .ignore_bits = ~0ull,
                    .min_free    = 0};
  ptl_handle_me_t handle;
  CHECK(PtlMEAppend(ni, pt, &entry, PTL_PRIORITY_LIST, NULL, &handle));
}

static inline void expose_to_anyone(ptl_handle_ni_t ni, ptl_handle_eq_t eq, void* start, ptl_size_t length,
                                    unsigned int options)
{
  expose_counted_to_anyone(ni, eq, start, length, options, PTL_CT_NONE);
}

/* A memory descriptor of `length` bytes at `start`, its events in `eq` and counted by `ct` as `options` say. */
static inline ptl_handle_md_t bind_counted(ptl_handle_ni_t ni, ptl_handle_eq_t eq, void* start, ptl_size_t length,
                                           unsigned int options, ptl_handle_ct_t ct)
{
  ptl_md_t buffer = {.start = start, .length = length, .options = options, .eq_handle = eq, .ct_handle = ct};
  ptl_handle_md_t md;
  CHECK(PtlMDBind(ni, &buffer, &md));
  return md;
}

#endif
