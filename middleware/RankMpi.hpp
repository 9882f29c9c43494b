#pragma once
// The seam between the runtime and the MPI middleware (see ../../shared MPI contract, and
// middleware/README.md).
//
// Programs built with bxicc include middleware's mpi.h, whose #defines turn every MPI_x and PMPI_x
// call into a call of bxisim_MPI_x / bxisim_PMPI_x, exported by the bxisim executable. Those entry
// points ask the rank provider which rank calls, and go through that rank's RankMpi: the dispatch
// to the rank's own MPI back end, translating handles, constants, statuses and error codes between
// bxisim's ABI (the MPI Forum's standard ABI) and the back end's.
//
// Layering: middleware never includes runtime/; the runtime creates one RankMpi per rank and
// installs the provider.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace bxisim::mw
{

struct CallHooks;

/** One per rank: the dispatch table to that rank's MPI back end. */
class RankMpi
{
 public:
  virtual ~RankMpi() = default;

  /** The rank this dispatch belongs to (its rank in MPI_COMM_WORLD). */
  int rank() const { return rank_; }
  /** Name of the back end ("openmpi", "smpi"), for messages. */
  virtual const char* back_end() const = 0;
  /** Whether the program called MPI_Init or MPI_Init_thread, and MPI_Finalize (for end-of-rank checks). */
  bool initialized() const { return initialized_; }
  bool finalized() const { return finalized_; }
  /** The MPI function the rank is in ("MPI_Bcast"), or nullptr: deadlock reports name it. With several of its
   * threads in MPI calls, the call of the thread that entered first. */
  const char* current_call() const { return thread_calls_.empty() ? nullptr : thread_calls_.front().call; }
  /** The MPI function the calling thread of the rank is in, or nullptr. */
  const char* calling_thread_call() const;
  /** Whether threads of the rank other than the calling one are inside MPI calls (MPI_THREAD_MULTIPLE). */
  bool others_in_calls() const;
  /** How many MPI calls the rank has entered so far (the polling rule's sign that the program acted). */
  uint64_t calls_entered() const { return calls_entered_; }
  /** The calling thread enters MPI function `name`; returns the function it was in (a PMPI tool's call), or nullptr. */
  const char* enter_call(const char* name);
  /** The calling thread returns to `previous`, what enter_call returned. */
  void leave_call(const char* previous);
  /** The hooks of the back end the rank is calling now when they are the rank's own (level switching), or nullptr. */
  virtual const CallHooks* active_call_hooks() const { return nullptr; }

 protected:
  explicit RankMpi(int rank) : rank_(rank) {}
  int rank_;
  bool initialized_       = false;
  bool finalized_         = false;
  uint64_t calls_entered_ = 0;

 private:
  /** A thread of the rank inside an MPI call (MPI_THREAD_MULTIPLE: several at once), in the order they entered. */
  struct ThreadCall {
    const void* thread;
    const char* call;
  };
  std::vector<ThreadCall> thread_calls_;
  std::vector<ThreadCall>::iterator calling_thread_entry();
};

/**
 * The dispatch of one rank over its private OpenMPI copy (a dlopen handle). Throws
 * std::runtime_error naming the first missing symbol.
 */
std::unique_ptr<RankMpi> make_openmpi_rank(void* openmpi_handle, int rank);

/**
 * The dispatch of one rank over SMPI, SimGrid's MPI in libsimgrid (`library` is a dlopen handle of
 * it, RTLD_DEFAULT in bxisim). The rank must run in an actor SMPI knows (properties instance_id and
 * rank). Throws std::runtime_error naming the first missing symbol.
 */
std::unique_ptr<RankMpi> make_smpi_rank(void* library, int rank);

/**
 * The dispatch of a rank that switches between SMPI and its OpenMPI copy at region boundaries
 * (LevelSwitch.hpp): `smpi` and `openmpi` are its two dispatches (kept alive by the caller),
 * `smpi_hooks` what surrounds each SMPI call, `start_at_smpi` the back end of the run's level.
 */
std::unique_ptr<RankMpi> make_switching_rank(int rank, RankMpi* smpi, const CallHooks* smpi_hooks, RankMpi* openmpi,
                                             bool start_at_smpi);
/**
 * At a region boundary every rank crosses: the rank's MPI calls go to SMPI (`to_smpi`) or to its
 * OpenMPI copy from now on; the back end is initialised on first use. `place` says where the rank is
 * for reports ("region 'solve' (cycle)"). Returns an MPI error code.
 */
int switch_back_end(RankMpi& rank, bool to_smpi, const std::string& place);
/** Where the rank is now (a region boundary that did not switch), for reports. */
void set_region_place(RankMpi& rank, const std::string& place);
/**
 * For a deadlock report: the receive of the other level the rank waits for (its source, tag,
 * communicator and the region it was posted in), or "" when it waits for nothing of the kind.
 */
std::string switch_wait_detail(const RankMpi& rank);

/**
 * What ends the job when a rank calls MPI_Abort, or something bxisim refuses, with a back end that
 * does not report it to the runtime itself (SMPI): the runtime records the rank and code and stops
 * the other ranks; the caller then ends its own rank.
 */
void set_abort_handler(std::function<void(int rank, int code)> handler);
/** Whether no abort of the job came before (true once): ranks that abort at one time, each before it is stopped, are
 *  the job's one abort, which the first says. */
bool first_job_abort();
/** Calls the abort handler (if any). */
void abort_job(int rank, int code);

/**
 * What every MPI entry point does around its call into the back end, when the back end's calls are
 * simulator calls (SMPI: ranks block and switch inside them, and SMPI measures their CPU time
 * itself): `enter` returns a token given back to `leave` when the call returns. nullptr (the
 * default, the OpenMPI levels): the back end's code counts as the rank's own.
 */
struct CallHooks {
  void* (*enter)();
  void (*leave)(void* token);
  /** Ends the calling rank with `code` from inside a call (exit() alone would end the process there). */
  [[noreturn]] void (*exit_rank)(int code);
  /**
   * Around a function of the program the back end calls from inside a call (a user operation, an error
   * handler, an attribute function): the calling rank's code runs again, with its own output and globals
   * (another rank may have run inside the call before it).
   */
  void* (*enter_program)();
  void (*leave_program)(void* token);
  /**
   * Around a call made while a region runs at the other level (level switching): the back end's own model
   * of polling (SMPI's smpi/test, smpi/iprobe) is not charged, the current level's is (LevelSwitch). Nested
   * calls nest.
   */
  void (*quiet_polls)(bool quiet);
};
/**
 * Which of a rank's threads is calling, an identity only (the runtime's simulated threads), nullptr for a rank's main
 * thread. Unset: every call is the main thread's.
 */
void set_thread_provider(const void* (*provider)());
const void* calling_thread();

/**
 * Called when a thread of rank `rank` leaves an MPI call while other threads of the rank are inside one
 * (MPI_THREAD_MULTIPLE): what it did may complete what they wait for without the network (a generalized request,
 * a message to itself), so the runtime lets their waits look again. nullptr: nobody is told.
 */
void set_concurrent_call_handler(void (*handler)(int rank));

/** Ends the calling rank: through the hooks when set, else exit(). */
[[noreturn]] void exit_rank(int code);
void set_call_hooks(const CallHooks* hooks);
const CallHooks* call_hooks();

/**
 * Where the back end's code counts as the rank's own (no CallHooks: the OpenMPI levels), the runtime is told when
 * the calling thread enters and leaves the MPI library's code: an MPI entry point (bxisim's code and the back end's),
 * a program function the library calls back. `enter` returns whether the thread was in the library already (nested
 * calls). nullptr (the default): nobody is told.
 */
struct LibraryEdges {
  bool (*enter)();
  void (*leave)();
};
void set_library_edges(const LibraryEdges* edges);
bool enter_library();
void leave_library();
/** Around an MPI entry point: the library's code runs while it exists. */
class LibraryScope
{
 public:
  LibraryScope() : was_inside_(enter_library()) {}
  ~LibraryScope()
  {
    if (not was_inside_)
      leave_library();
  }
  LibraryScope(const LibraryScope&)            = delete;
  LibraryScope& operator=(const LibraryScope&) = delete;

 private:
  bool was_inside_;
};

/**
 * Told of every outermost MPI call of a rank, when it starts and when it returns (the run's
 * timeline). nullptr (the default): nobody is told.
 */
struct CallObserver {
  void (*enter)(int rank, const char* name);
  void (*describe)(int rank, const char* arguments); // after enter: "bytes=8, dest=1"
  void (*leave)(int rank, const char* name);
};
void set_call_observer(const CallObserver* observer);
const CallObserver* call_observer();

/**
 * Where bxisim's own messages about the job go (a rank called MPI_Abort, a call refused): the runtime's stderr, not the
 * rank's, whose lines the runtime gives to the rank it last resumed (another rank, in the middle of an SMPI call).
 * nullptr: stderr.
 */
void set_message_stream(FILE* (*stream)());
FILE* message_stream();

/**
 * MPI_Wtime: the runtime's simulated clock of the calling rank, as a double (the libc clocks give
 * whole nanoseconds, SMPI's MPI_Wtime gives SimGrid's clock itself). nullptr: clock_gettime.
 */
void set_wtime_function(double (*wtime)());

/**
 * The node a rank (its index in MPI_COMM_WORLD) runs on: its index and its name (gethostname's answer). SMPI sees
 * each core as a host of its own: MPI_Get_processor_name and MPI_COMM_TYPE_SHARED at smpi ask this instead. Unset:
 * the back end's own answers.
 */
struct RankNode {
  int index = -1;
  std::string name;
};
void set_node_provider(std::function<RankNode(int rank)> provider);
RankNode node_of_rank(int rank);

/**
 * The runtime tells the middleware which rank is calling (as portals::Core's context provider).
 * The provider returns nullptr when the caller has no MPI back end (a run at a level without MPI):
 * the entry points then end the rank with a message saying so.
 */
void set_rank_provider(std::function<RankMpi*()> provider);

/**
 * A rank's copy of the program was loaded (`dlopen` handle): the Fortran bindings learn where its copy of
 * mpif.h's special addresses (MPI_BOTTOM, MPI_STATUS_IGNORE, ... : COMMON blocks of the program) lie.
 */
void note_fortran_program(void* program);

/**
 * Rank `rank`'s copy of the program was loaded; `inside` is an address in it (its main): the program's
 * functions it hands to MPI are then named the same in every rank (ProgramFunctions.hpp).
 */
void note_program_copy(int rank, const void* inside);

} // namespace bxisim::mw
