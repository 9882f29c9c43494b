#include "SmpiLevel.hpp"

#include "CrashReport.hpp"
#include "LibraryThreadCall.hpp"
#include "OutputRouter.hpp"
#include "TestedActivities.hpp"
#include "runtime/os/KilledRankTermination.hpp"
#include "runtime/os/SimulatorCall.hpp"
#include "runtime/os/ThreadInterposition.hpp"

#include "portals/core/Core.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <smpi/smpi.h>
#include <xbt/config.hpp>
#include <xbt/log.h>

#include <fmt/format.h>

#include <dlfcn.h>

#include <stdexcept>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_runtime);
XBT_LOG_EXTERNAL_CATEGORY(smpi);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_smpi, bxisim_runtime, "--level smpi: ranks as SMPI processes");

namespace bxisim::runtime
{

namespace
{
SmpiLevel* the_level = nullptr;

/** Whether the calling rank is between MPI_Init and MPI_Finalize, when SMPI's CPU measure runs. */
bool smpi_benched()
{
  int initialized = 0;
  int finalized   = 0;
  PMPI_Initialized(&initialized);
  PMPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

/** As SMPI's own clock_gettime and MPI_Wtime: flush the CPU measure, read the clock, inject smpi/wtime. */
double smpi_now()
{
  if (not smpi_benched())
    return simgrid::s4u::Engine::get_clock();
  smpi_bench_end();
  double now                      = simgrid::s4u::Engine::get_clock();
  static const double wtime_sleep = simgrid::config::get_value<double>("smpi/wtime");
  if (wtime_sleep > 0)
    simgrid::s4u::this_actor::sleep_for(wtime_sleep);
  smpi_bench_begin();
  return now;
}

void smpi_sleep(double seconds)
{
  bool benched = smpi_benched();
  if (benched)
    smpi_bench_end();
  if (seconds > 0)
    simgrid::s4u::this_actor::sleep_for(seconds);
  if (benched)
    smpi_bench_begin();
}

double smpi_flush()
{
  if (not smpi_benched())
    return simgrid::s4u::Engine::get_clock();
  smpi_bench_end();
  double now = simgrid::s4u::Engine::get_clock();
  smpi_bench_begin();
  return now;
}

const os::ClockHooks kSmpiClock{&smpi_now, &smpi_sleep, &smpi_flush};

// Around each MPI call: the rank's code stops running (SMPI may switch to another rank inside), and
// resumes when the call returns. No CPU burst is measured: SMPI does it.
void* enter_mpi()
{
  return new os::SimulatorCall();
}

void leave_mpi(void* token)
{
  release_tested_activities(); // SimGrid 3.32 keeps what a test completed (TestedActivities.hpp)
  delete static_cast<os::SimulatorCall*>(token);
}

/** Ends the rank from inside an MPI call, where its code does not run: exit() must see it running. */
[[noreturn]] void exit_rank_in_mpi(int code)
{
  if (Rank* rank = SmpiLevel::rank_of_calling_actor())
    os::set_running_rank(rank);
  std::exit(code); // bxisim's exit: ends the rank
}

// A program function SMPI calls inside an MPI call of the rank (a user operation, an error handler).
void* enter_program()
{
  Rank* rank = SmpiLevel::rank_of_calling_actor();
  if (rank != nullptr)
    os::enter_program_code_in_call(*rank);
  return rank;
}

void leave_program(void* token)
{
  if (token != nullptr)
    os::leave_program_code_in_call(*static_cast<Rank*>(token));
}

// SMPI's injected costs of polling: a test or probe sleeps these (growing with each unsuccessful one).
struct PollCosts {
  double test;
  double iprobe;
  bool grow;
};

void quiet_polls(bool quiet)
{
  static int depth = 0;
  static PollCosts saved{};
  if (quiet) {
    if (depth++ > 0)
      return;
    saved = {simgrid::config::get_value<double>("smpi/test"), simgrid::config::get_value<double>("smpi/iprobe"),
             simgrid::config::get_value<bool>("smpi/grow-injected-times")};
    simgrid::config::set_value("smpi/test", 0.0);
    simgrid::config::set_value("smpi/iprobe", 0.0);
    simgrid::config::set_value("smpi/grow-injected-times", false);
  } else if (--depth == 0) {
    simgrid::config::set_value("smpi/test", saved.test);
    simgrid::config::set_value("smpi/iprobe", saved.iprobe);
    simgrid::config::set_value("smpi/grow-injected-times", saved.grow);
  }
}

const mw::CallHooks kSmpiCallHooks{&enter_mpi,     &leave_mpi,     &exit_rank_in_mpi,
                                   &enter_program, &leave_program, &quiet_polls};

/**
 * Kills every other actor (the job ends). The killed ranks unwind before the caller runs again, and
 * each leaves with no running rank: the caller's running rank is set back, so that its exit() ends it
 * (without, exit() was the process's: "Process called exit when leaving", sometimes SimGrid's "The
 * Impossible Did Happen" when a rank reported a cross-level message outside an MPI call).
 */
void kill_other_ranks()
{
  Rank* caller = os::running_rank();
  os::kill_every_actor();
  os::set_running_rank(caller);
}

/** Sets a SimGrid setting unless the user gave it with --cfg. */
void set_default(const std::string& key, const std::string& value)
{
  if (simgrid::config::is_default(key.c_str()))
    simgrid::config::set_parse(key + ":" + value);
}
} // namespace

Rank* SmpiLevel::rank_of_calling_actor()
{
  if (the_level == nullptr)
    return nullptr;
  auto pid = static_cast<size_t>(simgrid::s4u::this_actor::get_pid());
  if (pid >= the_level->rank_of_actor_.size() || the_level->rank_of_actor_[pid] < 0)
    return nullptr;
  return the_level->ranks_.at(static_cast<size_t>(the_level->rank_of_actor_[pid])).get();
}

void SmpiLevel::declare_options()
{
  smpi_init_options();
}

const mw::CallHooks* SmpiLevel::call_hooks()
{
  return &kSmpiCallHooks;
}

SmpiLevel::SmpiLevel(const std::vector<std::unique_ptr<Rank>>& ranks, const config::Parameters& parameters)
    : SmpiLevel(ranks, parameters, false)
{
}

SmpiLevel::SmpiLevel(const std::vector<std::unique_ptr<Rank>>& ranks, const config::Parameters& parameters, bool mixed)
    : ranks_(ranks), dispatch_(ranks.size()), mixed_(mixed)
{
  if (mixed) {
    // bxisim measures CPU time at every level of a mixed run (each SMPI call is a simulator call for it).
    set_default("smpi/simulate-computation", "no");
    set_default("smpi/host-speed", fmt::format("{}f", ranks.empty() ? 1.0 : ranks.front()->host()->get_speed()));
    the_level = this;
    SMPI_init();
    SMPI_app_instance_register(kInstance, nullptr, static_cast<int>(ranks.size()));
    mw::set_abort_handler([this](int rank, int code) { on_abort(rank, code); });
    set_node_provider();
    return;
  }
  // CPU time: bxisim measures it, as at the other levels. SMPI 3.32's own measure reads the thread CPU clock at both
  // ends of a burst, and counts what runs between its calls: on a virtual machine the two reads alone come to about
  // smpi/cpu-threshold (1 us), and bxisim's bookkeeping around each call (its entry points, the ranks' output) pushed
  // every burst of an 8-byte ping-pong over it: 1.8 us charged per MPI call that smpirun does not charge. bxisim's
  // measure leaves out its own work and the clock reads. --cfg smpi/simulate-computation decides as under smpirun:
  // yes lets SMPI measure instead (with smpi/cpu-threshold and smpi/host-speed, by default cpu.threshold and
  // cpu.factor x the hosts' speed), no measures nothing.
  bool smpi_decides = not simgrid::config::is_default("smpi/simulate-computation");
  if (not smpi_decides) {
    set_default("smpi/simulate-computation", "no");
    for (const char* key : {"smpi/cpu-threshold", "smpi/host-speed"})
      if (parameters.boolean("cpu.simulate") && not simgrid::config::is_default(key))
        XBT_WARN("--cfg %s has no effect: bxisim measures the ranks' CPU time at --level smpi, not SMPI. Use "
                 "--cpu-threshold and --cpu-factor (bxisim's), or add --cfg smpi/simulate-computation:yes to let SMPI "
                 "measure it with this setting",
                 key);
  }
  set_default("smpi/cpu-threshold", fmt::format("{}", parameters.real("cpu.threshold")));
  double speed = ranks.empty() ? 0.0 : ranks.front()->host()->get_speed();
  for (const auto& rank : ranks)
    if (smpi_decides && rank->host()->get_speed() != speed) {
      if (simgrid::config::is_default("smpi/host-speed"))
        XBT_WARN("the ranks' hosts have different speeds: SMPI converts measured CPU time with one speed for all, "
                 "smpi/host-speed = cpu.factor x the speed of rank 0's host (%g flop/s)",
                 speed);
      break;
    }
  set_default("smpi/host-speed", fmt::format("{}f", parameters.real("cpu.factor") * speed));
  CpuSettings cpu = Rank::cpu_settings();
  cpu.measure     = not smpi_decides;
  Rank::set_cpu_settings(cpu);

  the_level = this;
  SMPI_init();
  SMPI_app_instance_register(kInstance, nullptr, static_cast<int>(ranks.size()));
  os::set_clock_hooks(&kSmpiClock);
  mw::set_call_hooks(&kSmpiCallHooks);
  // By actor rather than by running rank: SMPI calls the program back (user operations) inside MPI calls.
  mw::set_rank_provider([this]() -> mw::RankMpi* {
    if (on_library_thread())
      refuse_library_thread_call("an MPI function");
    auto pid = static_cast<size_t>(simgrid::s4u::this_actor::get_pid());
    if (pid < dispatch_of_actor_.size() && dispatch_of_actor_[pid] != nullptr)
      return dispatch_of_actor_[pid];
    if (const Rank* rank = os::rank_of_simulated_thread())
      abort_unsupported(fmt::format("bxisim: rank {} called an MPI function from a thread it created. At --level smpi, "
                                    "SMPI 3.32 carries out the MPI calls of a rank's main thread only. Run at --level "
                                    "message or cycle, where a rank's threads may call MPI, or make the MPI calls "
                                    "from main.\n",
                                    rank->index())
                            .c_str());
    return nullptr;
  });
  // No NIC model at this level: a Portals call ends the rank with a message.
  portals::Core::instance().set_context_provider([]() -> portals::ProcessContext {
    Rank* rank = os::running_rank();
    FILE* out  = OutputRouter::original_stderr();
    fmt::print(out,
               "bxisim: rank {} called a Portals function, but --level smpi has no NIC model: run Portals "
               "programs at --level message.\n",
               rank != nullptr ? rank->index() : -1);
    std::fflush(out);
    std::exit(1); // ends the rank (bxisim's exit)
  });
  mw::set_abort_handler([this](int rank, int code) { on_abort(rank, code); });
  set_node_provider();
}

void SmpiLevel::on_abort(int rank, int code)
{
  aborting_ranks_.insert(rank);
  if (abort_.rank >= 0)
    return;
  abort_ = {rank, code};
  kill_other_ranks(); // every other rank; the caller then ends itself
}

void SmpiLevel::set_node_provider()
{
  mw::set_node_provider([this](int rank) -> mw::RankNode {
    if (rank < 0 || static_cast<size_t>(rank) >= ranks_.size())
      return {};
    const Rank& of = *ranks_[static_cast<size_t>(rank)];
    return {of.placement().node, of.node_name()};
  });
}

SmpiLevel::~SmpiLevel()
{
  the_level = nullptr;
  if (not mixed_)
    portals::Core::instance().set_context_provider(nullptr);
  mw::set_rank_provider(nullptr);
  mw::set_node_provider(nullptr);
  mw::set_call_hooks(nullptr);
  mw::set_abort_handler(nullptr);
  os::set_clock_hooks(nullptr);
  // SMPI asks at its end whether the ranks called MPI_Finalize ("Stalling SMPI instance"), which in a mixed run
  // ranks that never ran at smpi did not do there: bxisim checks that itself, at every level (check_end), and
  // names the ranks and the fix. Said anyway when the user turned SMPI's verbose messages on.
  if (not XBT_LOG_ISENABLED(smpi, xbt_log_priority_verbose))
    xbt_log_control_set("smpi.thres:warning");
  SMPI_finalize();
}

simgrid::s4u::ActorPtr SmpiLevel::create_actor(const Rank& rank, std::function<void()> code)
{
  auto actor = simgrid::s4u::Actor::init(fmt::format("rank{}", rank.index()), rank.host());
  actor->set_property("instance_id", kInstance);
  actor->set_property("rank", std::to_string(rank.index()));
  actor->start(std::move(code));
  auto pid = static_cast<size_t>(actor->get_pid());
  if (rank_of_actor_.size() <= pid)
    rank_of_actor_.resize(pid + 1, -1);
  rank_of_actor_[pid] = rank.index();
  return actor;
}

bool SmpiLevel::load(Rank& rank)
{
  try {
    auto& dispatch = dispatch_.at(static_cast<size_t>(rank.index()));
    dispatch       = mw::make_smpi_rank(RTLD_DEFAULT, rank.index());
    auto pid       = static_cast<size_t>(simgrid::s4u::this_actor::get_pid());
    if (dispatch_of_actor_.size() <= pid)
      dispatch_of_actor_.resize(pid + 1, nullptr);
    dispatch_of_actor_[pid] = dispatch.get();
  } catch (const std::runtime_error& error) {
    XBT_ERROR("rank %d cannot use SMPI: %s", rank.index(), error.what());
    return false;
  }
  return true;
}

int SmpiLevel::check_end(Rank& rank, int code)
{
  const auto& dispatch = dispatch_.at(static_cast<size_t>(rank.index()));
  // MPI_Abort ends a rank without MPI_Finalize by design (ranks that abort at once each call it before they are
  // stopped)
  bool aborted = aborting_ranks_.count(rank.index()) != 0;
  if (dispatch != nullptr && dispatch->initialized() && not dispatch->finalized() && not aborted) {
    FILE* out = OutputRouter::original_stderr();
    fmt::print(out,
               "bxisim: rank {} ended without MPI_Finalize (it called MPI_Init): call MPI_Finalize before "
               "leaving main.\n",
               rank.index());
    std::fflush(out);
    return code != 0 ? code : 1;
  }
  return code;
}

std::string SmpiLevel::mpi_call(int rank) const
{
  const auto& dispatch = dispatch_.at(static_cast<size_t>(rank));
  return dispatch != nullptr && dispatch->current_call() != nullptr ? dispatch->current_call() : std::string();
}

} // namespace bxisim::runtime
