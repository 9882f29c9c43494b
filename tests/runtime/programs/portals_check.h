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

#endif
