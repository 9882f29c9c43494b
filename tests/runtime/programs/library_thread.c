/* A Portals call from a thread that a library created for the rank (an OpenMP runtime's team member), which
 * runs outside the simulation: bxisim refuses it with a message. */
#include "portals_check.h"

#include <omp.h>

int main(void)
{
  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  open_matching_interface(&ni, &eq);
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 1) {
    ptl_event_t event;
    PtlEQGet(eq, &event);
  }
  return 0;
}
