#pragma once
// The libc state a real process has to itself and a rank must have too, because programs use it
// between two simulator calls: getopt's scan, the random generators, signal dispositions and exit
// handlers. Ranks share one process, so the interposed functions (GetoptInterposition.cpp,
// RandomInterposition.cpp, SignalInterposition.cpp, ProcessInterposition.cpp) keep this state per
// rank. What stays shared is listed in docs/running.md.

#include "FloatingPointState.hpp"

#include <array>
#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

namespace bxisim::os
{

/** getopt's scan of argv (GNU semantics: permutation, clustered short options, long options). */
struct GetoptScan {
  bool initialized     = false;
  const char* nextchar = nullptr; // the rest of a cluster of short options, or nullptr
  int first_nonopt     = 1;       // non-options skipped so far, moved after the options (permutation)
  int last_nonopt      = 1;
};

/**
 * libstdc++'s per-thread exception state (its __cxa_eh_globals: the exceptions being handled, innermost first, and
 * how many are thrown and not yet caught). Every rank and thread runs on the simulator's thread, so they would share
 * it: a rank that made a simulator call inside a catch block and then rethrew (`throw;`) got the exception another
 * rank caught meanwhile.
 */
struct ExceptionState {
  void* caught          = nullptr;
  unsigned int uncaught = 0;
};
/** The simulator thread's exception state now. */
ExceptionState read_exception_state();
/** Makes `state` the simulator thread's exception state. */
void write_exception_state(const ExceptionState& state);

/** libc's public getopt variables, saved while another rank runs. */
struct GetoptGlobals {
  int optind   = 1;
  int opterr   = 1;
  int optopt   = '?';
  char* optarg = nullptr;
};

struct ExitHandler {
  void (*function)(void*);
  void* argument;
};

class ProcessState
{
 public:
  ProcessState();
  ProcessState(const ProcessState&)            = delete;
  ProcessState& operator=(const ProcessState&) = delete;

  /** The rank's code resumes: its getopt variables go back into libc's, its exception state into libstdc++'s, its
   *  floating-point state into the thread's. */
  void restore_globals() const;
  /** The rank's code is left: libc's getopt variables, libstdc++'s exception state and the floating-point state are
   *  saved (the simulator's put back). */
  void save_globals();

  GetoptScan getopt_scan;
  GetoptGlobals getopt_globals;
  ExceptionState exceptions;         // of the rank's thread that ran last (ThreadLocals.hpp keeps the others')
  FloatingPointState floating_point; // the rank's, whichever of its threads set or raised it

  // random()/srandom()/rand()/srand(): as after srandom(1), which is where a process starts.
  random_data random{};
  std::array<char, 128> random_table{};
  // drand48() and its family: as a process starts (all zero, seeded lazily by libc).
  drand48_data drand48{};

  // Signal dispositions the rank installed with signal()/sigaction(); SIG_DFL at start.
  std::array<struct sigaction, NSIG> signal_actions{};

  /** Asynchronous I/O requests the rank posted (AioInterposition.cpp): progress its MPI library makes without any
   *  Portals change (OMPIO posts a file request's pieces in batches, one batch per progress round). */
  unsigned long aio_requests = 0;

  /** Whether the rank reads the real standard input (rank 0, as under mpirun): the others read end-of-file. */
  bool reads_stdin = false;

  /** Handlers registered by atexit() and static destructors of the rank's own copies, in order. */
  std::vector<ExitHandler> exit_handlers;
  /** The folder of the rank's copies of the program and libraries: what is loaded from there is the rank's. */
  void set_own_folder(std::string folder) { own_folder_ = std::move(folder); }
  const std::string& own_folder() const { return own_folder_; }
  /** The program the rank runs, as an absolute path (what /proc/self/exe names for it). */
  void set_program_path(std::string path) { program_path_ = std::move(path); }
  const std::string& program_path() const { return program_path_; }
  /** The command line the rank was started with (the program and its arguments), shared by the job's ranks: what
   *  /proc/self/cmdline shows it. */
  void set_command_line(const std::vector<std::string>* command) { command_line_ = command; }
  const std::vector<std::string>* command_line() const { return command_line_; }
  bool belongs_to_rank(const void* address) const;

  /** Runs (and forgets) the exit handlers, last registered first; a handler may register more. */
  void run_exit_handlers();

 private:
  std::string own_folder_;
  std::string program_path_;
  const std::vector<std::string>* command_line_ = nullptr;
};

} // namespace bxisim::os
