#pragma once
// `bxisim run --level smpi`: the ranks' MPI calls go to SMPI, SimGrid's MPI in libsimgrid, started
// from bxisim's own main (DESIGN.md section 5): SMPI's options declared before the engine exists,
// SMPI started before the first actor, the job registered as one SMPI instance, every rank an actor
// with the properties SMPI reads (instance_id, rank). SMPI measures the ranks' CPU time itself, so
// bxisim's own measure is off at this level, and the clocks a rank reads flush SMPI's measure first.

#include "OpenMpi.hpp" // JobAbort
#include "Rank.hpp"
#include "config/Parameters.hpp"
#include "middleware/RankMpi.hpp"

#include <simgrid/s4u/Actor.hpp>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace bxisim::runtime
{

class SmpiLevel
{
 public:
  /** The name of the SMPI instance of a run. */
  static constexpr const char* kInstance = "bxisim";

  /** Before the engine exists: declares SMPI's settings, so that --cfg smpi/... is known. */
  static void declare_options();

  /**
   * After the platform is built and before any actor exists: bxisim's cpu.* parameters become SMPI's
   * settings (unless --cfg set those), SMPI starts, the job is registered, the MPI calls of ranks go
   * to their SMPI dispatch.
   */
  SmpiLevel(const std::vector<std::unique_ptr<Rank>>& ranks, const config::Parameters& parameters);
  /**
   * In a run whose regions switch levels (`mixed`): SMPI is one of each rank's two back ends, and
   * bxisim measures CPU time at every level (SMPI's measure is off, so nothing is counted twice); the
   * runtime installs the switching dispatch (Launcher.cpp) over `dispatch(rank)` and `call_hooks()`.
   */
  SmpiLevel(const std::vector<std::unique_ptr<Rank>>& ranks, const config::Parameters& parameters, bool mixed);
  ~SmpiLevel();
  SmpiLevel(const SmpiLevel&)            = delete;
  SmpiLevel& operator=(const SmpiLevel&) = delete;

  /** Creates the actor of `rank` as an SMPI process running `code`. */
  simgrid::s4u::ActorPtr create_actor(const Rank& rank, std::function<void()> code);
  /** In the rank's actor, before its main: its dispatch to SMPI. Returns false after saying why when it cannot. */
  bool load(Rank& rank);
  /** After main returned `code`: the code the rank ends with (1 if it left MPI unfinished). */
  int check_end(Rank& rank, int code);

  /** The MPI function rank `rank` is in (e.g. "MPI_Bcast"), or an empty string: for deadlock reports. */
  std::string mpi_call(int rank) const;
  const JobAbort& abort_state() const { return abort_; }
  /** The rank the calling actor runs, or nullptr. */
  static Rank* rank_of_calling_actor();
  /** Rank `rank`'s SMPI dispatch (after load), and what surrounds each SMPI call. */
  mw::RankMpi* dispatch(int rank) const { return dispatch_.at(static_cast<size_t>(rank)).get(); }
  static const mw::CallHooks* call_hooks();

 private:
  /** Tells the middleware each rank's node (MPI_Get_processor_name, MPI_COMM_TYPE_SHARED). */
  void set_node_provider();
  /** A rank called MPI_Abort (or an error handler ended the job): the first ends the job, stopping the others. */
  void on_abort(int rank, int code);
  const std::vector<std::unique_ptr<Rank>>& ranks_;
  std::vector<std::unique_ptr<mw::RankMpi>> dispatch_;
  std::vector<int> rank_of_actor_;              // by actor pid
  std::vector<mw::RankMpi*> dispatch_of_actor_; // by actor pid
  JobAbort abort_;
  std::set<int> aborting_ranks_; // every rank that called MPI_Abort before it was stopped
  bool mixed_ = false;
};

} // namespace bxisim::runtime
