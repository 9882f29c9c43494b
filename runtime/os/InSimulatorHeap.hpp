#pragma once
// Bookkeeping of the simulator's that rank code triggers without a simulator call (a barrier or a semaphore made in a
// library's constructor, inside the dynamic loader's lock while the rank loads its program, where another rank must
// not run; a thread_local object's destructor registered): what it allocates goes to the simulator's heap, not to
// the rank's (RankHeap.hpp).

#include "RankHeap.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

namespace bxisim::os
{

/** While it lives, what is allocated goes to the simulator's heap; then the running rank's again. */
struct InSimulatorHeap {
  InSimulatorHeap() { select_heap(nullptr); }
  ~InSimulatorHeap()
  {
    runtime::Rank* rank = running_rank();
    select_heap(rank != nullptr ? rank->heap() : nullptr);
  }
  InSimulatorHeap(const InSimulatorHeap&)            = delete;
  InSimulatorHeap& operator=(const InSimulatorHeap&) = delete;
};

} // namespace bxisim::os
