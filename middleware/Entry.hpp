#pragma once
// What every generated entry point (bxisim_MPI_x, EntryPoints.cpp) asks before dispatching: which
// rank calls, and whether the call is allowed now. Problems end the rank with a message naming the
// call and the fix.

#include "MpiFunctions.hpp"
#include "MpiInterface.hpp"

#include <string>

namespace bxisim::mw
{

/** The calling rank's dispatch; ends the rank if it has none, or if `function` is called before MPI_Init or after
 * MPI_Finalize. */
MpiInterface* enter(MpiFunction function);
/** The calling rank's dispatch, or nullptr (callbacks). */
RankMpi* calling_rank();
/** Records the MPI function a rank is in, for as long as it runs (nested calls of a PMPI tool included). */
class CallScope
{
 public:
  CallScope(MpiInterface* rank, const char* name)
      : rank_(rank), previous_(rank->enter_call(name)), hooks_(call_hooks()), name_(name)
  {
    if (hooks_ != nullptr)
      token_ = hooks_->enter(); // SMPI: simulates the computation before the call first
    if (previous_ == nullptr && (observer_ = call_observer()) != nullptr)
      observer_->enter(rank_->rank(), name_);
  }
  ~CallScope()
  {
    if (observer_ != nullptr)
      observer_->leave(rank_->rank(), name_);
    if (hooks_ != nullptr)
      hooks_->leave(token_);
    rank_->leave_call(previous_);
  }
  /** Whether someone observes this call (the timeline): then the entry point describes it. */
  bool observed() const { return observer_ != nullptr; }
  void describe(const std::string& text) const { observer_->describe(rank_->rank(), text.c_str()); }
  CallScope(const CallScope&)            = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  MpiInterface* rank_;
  const char* previous_;
  const CallHooks* hooks_;
  const char* name_;
  const CallObserver* observer_ = nullptr;
  void* token_                  = nullptr;
};

/** Around a program function a back end calls (Callbacks.cpp): the calling rank's code runs (CallHooks). */
class ProgramCallback
{
 public:
  ProgramCallback();
  ~ProgramCallback();
  ProgramCallback(const ProgramCallback&)            = delete;
  ProgramCallback& operator=(const ProgramCallback&) = delete;

 private:
  const CallHooks* hooks_ = nullptr;
  void* token_            = nullptr;
};

/** A function bxisim does not offer in a simulation: says why and ends the job. */
int refuse(MpiFunction function, const char* reason);
/** A function whose interface bxisim does not provide (MPI_T): returns `error_class`, saying so once. */
int unavailable(MpiFunction function, int error_class);
/**
 * A null pointer where a call writes or reads a handle (MPI_Type_commit(NULL)): MPI_ERR_ARG through MPI_COMM_WORLD's
 * error handler (the default ends the job), before the dispatch would follow it and crash the simulator.
 */
int null_handle_pointer(MpiInterface* rank, const char* function, const char* argument);

} // namespace bxisim::mw
