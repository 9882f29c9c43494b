#pragma once
// PMI-1 (runtime/include/pmi.h) over the rank services: what Portals programs written for MPICH's
// Hydra or Slurm use to learn their rank and exchange NIC addresses at start-up.

#include "OpenMpi.hpp" // JobAbort

#include <memory>
#include <vector>

namespace bxisim::runtime
{
class Rank;

/** Prepares PMI for a run of these ranks, before any of them starts; a PMI_Barrier ends `barrier_latency`
 *  seconds of simulated time after the last rank arrives (pmi.barrier_latency). */
void prepare_pmi(const std::vector<std::unique_ptr<Rank>>& ranks, double barrier_latency);
/** Who ended the job with PMI_Abort and with which code (rank -1: nobody). */
JobAbort pmi_abort_state();

} // namespace bxisim::runtime
