#pragma once
// The OpenMPI back end of `bxisim run`: one private copy of bxisim's OpenMPI build per rank, loaded
// in the rank before its main, and the start-up hooks the patched OpenMPI finds in the executable
// (rank, size, placement, key/value store, fence, abort). See mpi_patches/README.md.

#include "Rank.hpp"
#include "RunFolder.hpp"
#include "config/Parameters.hpp"
#include "middleware/RankMpi.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace bxisim::runtime
{
class RankBarrier;

/** An MCA parameter given with `bxisim run --mca key value`. */
using McaSetting = std::pair<std::string, std::string>;

/**
 * Whether the program calls MPI: it references bxisim_MPI_* / bxisim_PMPI_* (mpi.h's entry points) or
 * bxisim_openmpi_handle (the runtime's tests of the copies).
 */
bool program_uses_mpi(const std::string& program);
/** Whether the program annotates regions (it references bxisim_region_begin of bxisim/region.h). */
bool program_uses_regions(const std::string& program);

/** Folder of the OpenMPI build: $BXISIM_OPENMPI_PREFIX, else the one this bxisim was configured with. */
std::string openmpi_prefix();
/** The library each rank of an MPI job loads a copy of, in openmpi_prefix(). */
std::string openmpi_library();

/** How an MPI job was stopped early by one of its ranks (MPI_Abort, or something bxisim refuses). */
struct JobAbort {
  int rank = -1; // -1: the job was not aborted
  int code = 0;
};

class OpenMpiJob
{
 public:
  /**
   * Checks the OpenMPI build, sets the MCA parameters (bxisim's defaults for the Portals path of
   * `mpi.pml`, then the environment's OMPI_MCA_*, then `mca`) and copies the library for every rank.
   * Throws config::ConfigError when the build is missing or a setting is wrong.
   */
  OpenMpiJob(const std::vector<std::unique_ptr<Rank>>& ranks, const std::vector<McaSetting>& mca,
             const config::Parameters& parameters, RunFolder& folder);
  ~OpenMpiJob();
  OpenMpiJob(const OpenMpiJob&)            = delete;
  OpenMpiJob& operator=(const OpenMpiJob&) = delete;

  /** Loads `rank`'s copy (in the rank's actor, before its main). Returns false after saying why when it cannot. */
  bool load(Rank& rank);

  /** The rule for PortalsLevel: whether an empty poll of rank `id` may block until its next event. */
  std::function<bool(uint32_t)> poll_blocking_rule();
  /** Whether empty polls block (mpi.polling=block and only Portals can make progress), for messages. */
  bool polls_block() const { return polls_block_; }

  const JobAbort& abort_state() const { return abort_; }
  /** The MPI function rank `rank` is in (e.g. "MPI_Bcast"), or an empty string: for deadlock reports. */
  std::string mpi_call(int rank) const;

  /** The job of this run (for the hooks), or nullptr. */
  static OpenMpiJob* current();

  // Used by the hooks (OpenMpi.cpp).
  const std::vector<std::unique_ptr<Rank>>& ranks() const { return ranks_; }
  void* handle(int rank) const { return handles_.at(static_cast<size_t>(rank)); }
  /** Rank `rank`'s dispatch over its copy (after load). */
  mw::RankMpi* dispatch(int rank) const { return dispatch_.at(static_cast<size_t>(rank)).get(); }
  void fence(Rank& rank);
  /** Ends the job: records who and with which code, ends every other actor. */
  void abort(Rank& rank, int code);

 private:
  const std::vector<std::unique_ptr<Rank>>& ranks_;
  std::string library_;
  std::vector<std::string> copies_;
  std::vector<char> copy_at_load_; // the copy is made in the run's folder when its rank loads it (not kept)
  int library_descriptor_ = -1;    // library_, open: every copy's code and constants are mapped from it
  std::vector<void*> handles_;
  std::vector<std::unique_ptr<mw::RankMpi>> dispatch_; // each rank's MPI dispatch (middleware) over its copy
  std::vector<const int*> blocking_depth_;             // each copy's opal_progress_blocking_depth
  std::vector<const unsigned long*> work_count_;       // each copy's opal_progress_work_count
  std::vector<unsigned long> work_seen_;               // its value at the rank's last blocking poll
  std::vector<uint64_t> calls_seen_;                   // each rank's MPI calls entered, at its last blocking poll
  std::vector<unsigned long> aio_seen_; // each rank's asynchronous I/O requests, at its last blocking poll
  struct PollRule {
    const char* call = nullptr; // the MPI call (its name, a literal) that the rest was worked out for
    bool blocks      = true;    // whether an empty poll inside it may block (true outside any call)
  };
  std::vector<PollRule> poll_rule_; // each rank's, kept: it is asked at every empty poll
  bool polls_block_ = false;
  JobAbort abort_;
  std::unique_ptr<RankBarrier> fence_;
};

} // namespace bxisim::runtime
