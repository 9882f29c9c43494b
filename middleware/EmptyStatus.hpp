#pragma once
// The statuses MPI gives without a message: the empty status (MPI-3.1 3.7.3) of an inactive request or a completed
// nonblocking collective, and that of a receive from MPI_PROC_NULL (3.11).

#include <mpi.h>

namespace bxisim::mw
{

/** Source `source`, tag MPI_ANY_TAG, count 0, not cancelled; the error field MPI_SUCCESS for the empty status,
 *  left as the program had it for a receive from MPI_PROC_NULL (a single completion, 3.2.5). */
inline void set_empty_status(MPI_Status* status, int source = MPI_ANY_SOURCE)
{
  if (status == MPI_STATUS_IGNORE)
    return;
  status->MPI_SOURCE = source;
  status->MPI_TAG    = MPI_ANY_TAG;
  if (source == MPI_ANY_SOURCE)
    status->MPI_ERROR = MPI_SUCCESS;
  for (int& word : status->MPI_internal) // count and cancelled flag
    word = 0;
}

} // namespace bxisim::mw
