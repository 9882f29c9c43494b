#include "Entry.hpp"

#include <xbt/log.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>

XBT_LOG_EXTERNAL_CATEGORY(bxisim);
XBT_LOG_NEW_SUBCATEGORY(bxisim_mpi, bxisim, "MPI middleware (mpi.h, the dispatch to the MPI back ends)");
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_mpi_entry, bxisim_mpi, "MPI middleware: entry points");

namespace bxisim::mw
{
namespace
{
std::function<RankMpi*()>& provider()
{
  static std::function<RankMpi*()> instance;
  return instance;
}

const char* name_of(MpiFunction function)
{
  return kMpiFunctionFacts[static_cast<int>(function)].name;
}

FILE* (*the_message_stream)() = nullptr;

[[noreturn]] void end_rank(const char* what)
{
  std::fprintf(stderr, "bxisim: %s\n", what);
  std::fflush(stderr);
  std::exit(1); // bxisim's exit: ends this rank with code 1
}
} // namespace

namespace
{
const CallHooks* the_call_hooks       = nullptr;
const CallObserver* the_call_observer = nullptr;
const LibraryEdges* the_library_edges = nullptr;
} // namespace

void set_library_edges(const LibraryEdges* edges)
{
  the_library_edges = edges;
}

bool enter_library()
{
  return the_library_edges == nullptr || the_library_edges->enter();
}

void leave_library()
{
  if (the_library_edges != nullptr)
    the_library_edges->leave();
}

void set_call_observer(const CallObserver* observer)
{
  the_call_observer = observer;
}

const CallObserver* call_observer()
{
  return the_call_observer;
}

void set_call_hooks(const CallHooks* hooks)
{
  the_call_hooks = hooks;
}

const CallHooks* call_hooks()
{
  return the_call_hooks;
}

ProgramCallback::ProgramCallback()
{
  RankMpi* rank = calling_rank();
  hooks_        = rank != nullptr && rank->active_call_hooks() != nullptr ? rank->active_call_hooks() : the_call_hooks;
  if (hooks_ != nullptr && hooks_->enter_program != nullptr)
    token_ = hooks_->enter_program();
  else if (hooks_ == nullptr)
    leave_library(); // the program's code runs again
}

ProgramCallback::~ProgramCallback()
{
  if (hooks_ != nullptr && hooks_->leave_program != nullptr)
    hooks_->leave_program(token_);
  else if (hooks_ == nullptr)
    enter_library();
}

void exit_rank(int code)
{
  if (RankMpi* rank = calling_rank(); rank != nullptr && rank->active_call_hooks() != nullptr)
    rank->active_call_hooks()->exit_rank(code);
  if (the_call_hooks != nullptr)
    the_call_hooks->exit_rank(code);
  std::exit(code);
}

static std::function<void(int, int)>& abort_handler()
{
  static std::function<void(int, int)> instance;
  return instance;
}

namespace
{
std::function<RankNode(int)>& node_provider()
{
  static std::function<RankNode(int)> provider;
  return provider;
}
} // namespace

void set_node_provider(std::function<RankNode(int rank)> provider)
{
  node_provider() = std::move(provider);
}

RankNode node_of_rank(int rank)
{
  return node_provider() ? node_provider()(rank) : RankNode{};
}

void set_abort_handler(std::function<void(int rank, int code)> handler)
{
  abort_handler() = std::move(handler);
}

bool first_job_abort()
{
  static bool aborted = false;
  bool first          = not aborted;
  aborted             = true;
  return first;
}

void abort_job(int rank, int code)
{
  if (abort_handler())
    abort_handler()(rank, code);
}

void set_rank_provider(std::function<RankMpi*()> provider_function)
{
  provider() = std::move(provider_function);
}

RankMpi* calling_rank()
{
  return provider() ? provider()() : nullptr;
}

MpiInterface* enter(MpiFunction function)
{
  RankMpi* rank = calling_rank();
  char message[512];
  if (rank == nullptr) {
    std::snprintf(message, sizeof message,
                  "the program called %s, but this run has no MPI library: MPI programs run at --level message "
                  "(bxisim run --level message -n <ranks> <program>)",
                  name_of(function));
    end_rank(message);
  }
  if (not kMpiFunctionFacts[static_cast<int>(function)].before_init) {
    if (not rank->initialized()) {
      std::snprintf(message, sizeof message,
                    "rank %d called %s before MPI_Init: call MPI_Init (or MPI_Init_thread) first", rank->rank(),
                    name_of(function));
      end_rank(message);
    }
    if (rank->finalized()) {
      std::snprintf(message, sizeof message, "rank %d called %s after MPI_Finalize: MPI calls must come before it",
                    rank->rank(), name_of(function));
      end_rank(message);
    }
  }
  return static_cast<MpiInterface*>(rank);
}

int refuse(MpiFunction function, const char* reason)
{
  RankMpi* rank = calling_rank();
  char message[768];
  std::snprintf(message, sizeof message, "rank %d called %s: %s", rank != nullptr ? rank->rank() : -1,
                name_of(function), reason);
  if (rank != nullptr && rank->initialized() && not rank->finalized()) {
    std::fprintf(message_stream(), "bxisim: %s\n", message);
    std::fflush(message_stream());
    static_cast<MpiInterface*>(rank)->Abort(MPI_COMM_WORLD, 1); // ends the whole job
  }
  end_rank(message);
}

int unavailable(MpiFunction function, int error_class)
{
  static std::atomic<bool> said{false};
  if (not said.exchange(true))
    std::fprintf(stderr,
                 "bxisim: %s: bxisim does not provide the MPI tool information interface (MPI_T); its calls "
                 "return an error\n",
                 name_of(function));
  return error_class;
}

int null_handle_pointer(MpiInterface* rank, const char* function, const char* argument)
{
  FILE* out = message_stream();
  std::fprintf(out, "bxisim: rank %d called %s with a null pointer for its handle argument '%s': MPI_ERR_ARG.\n",
               rank->rank(), function, argument);
  std::fflush(out);
  rank->Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_ARG);
  return MPI_ERR_ARG;
}

void set_message_stream(FILE* (*stream)())
{
  the_message_stream = stream;
}

FILE* message_stream()
{
  return the_message_stream != nullptr ? the_message_stream() : stderr;
}

} // namespace bxisim::mw
