// pthread_create and the calls that act on the threads it made (ThreadInterposition.hpp).

#include "ThreadInterposition.hpp"

#include "AffinityInterposition.hpp"

#include "KilledRankTermination.hpp"
#include "RankCpuClock.hpp"
#include "RankEnd.hpp"
#include "RankTimedWork.hpp"
#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"
#include "ThreadLocals.hpp"
#include "runtime/launch/OutputRouter.hpp"
#include "runtime/launch/Rank.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <dlfcn.h>
#include <fmt/format.h>
#include <link.h>
#include <pthread.h>

#include <cerrno>
#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_runtime);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_threads, bxisim_runtime, "Threads that ranks create");

namespace
{
using bxisim::runtime::Rank;

// --- real threads, created by libraries ---------------------------------------------------------

thread_local Rank* creator = nullptr;

struct RealThreadStart {
  void* (*routine)(void*);
  void* argument;
  Rank* creator;
};

/** Counts the real thread out of its creator's library threads as it ends (returns, pthread_exit, cancellation). */
struct LibraryThreadEnd {
  Rank* rank;
  ~LibraryThreadEnd() { rank->count_library_thread(-1); }
};

void* start_real_thread(void* start)
{
  RealThreadStart launch = *static_cast<RealThreadStart*>(start);
  delete static_cast<RealThreadStart*>(start);
  creator = launch.creator;
  LibraryThreadEnd counted{launch.creator};
  return launch.routine(launch.argument);
}

// --- simulated threads, created by the program's own code ----------------------------------------

/** A simulated thread; its address is its pthread_t (heap addresses never equal a live thread's id). */
struct SimulatedThread {
  Rank* rank              = nullptr;
  void* (*routine)(void*) = nullptr;
  void* argument          = nullptr;
  void* result            = nullptr;
  bool ended              = false; // its function returned, or it called pthread_exit, or it was killed
  bool detached           = false;
  bool killed             = false;
  bool kill_sent          = false; // by end_simulated_threads: it unwinds, then ends
  simgrid::s4u::ActorPtr actor;
  bxisim::os::ThreadSpecificData* data = nullptr; // pthread_setspecific's values (KeyInterposition.cpp)
  std::jmp_buf leave;                             // pthread_exit and kills jump back to the thread's start
};

std::unordered_map<long, SimulatedThread*> thread_of_actor; // by actor pid, while it runs
std::unordered_set<SimulatedThread*> threads;               // not yet joined or detached-and-ended
std::unordered_set<const Rank*> ranks_with_threads;

SimulatedThread* running_thread()
{
  if (thread_of_actor.empty())
    return nullptr;
  simgrid::s4u::Actor* actor = simgrid::s4u::Actor::self(); // nullptr in SimGrid's maestro and real threads
  if (actor == nullptr)
    return nullptr;
  auto it = thread_of_actor.find(actor->get_pid());
  return it == thread_of_actor.end() ? nullptr : it->second;
}

SimulatedThread* thread_of_id(pthread_t id)
{
  auto* thread = reinterpret_cast<SimulatedThread*>(id);
  return threads.count(thread) != 0 ? thread : nullptr;
}

/** The thread's own code stops here (a return, pthread_exit): the destructors of its thread-specific data run,
 * then its last burst is simulated. */
void leave_own_code(SimulatedThread& thread)
{
  bxisim::os::run_thread_local_destructors(&thread); // before its thread-specific data's, as glibc orders them
  bxisim::os::end_thread_specific_data(thread.data);
  bxisim::os::leave_rank_code(*thread.rank);
}

void forget(SimulatedThread* thread)
{
  bxisim::os::forget_thread_affinity(thread);
  threads.erase(thread);
  delete thread;
}

/** In a catch block: an exception left the thread's function; the rank crashed, the other ranks stop. */
void report_crash(Rank& rank)
{
  std::string what = "of unknown type";
  try {
    throw;
  } catch (const std::exception& error) {
    what = error.what();
  } catch (...) {
  }
  FILE* out = bxisim::runtime::OutputRouter::original_stderr();
  fmt::print(out,
             "bxisim: rank {} crashed (an uncaught C++ exception, {}, left a thread it created) on {} at simulated "
             "time {:.9f} s; the other ranks are stopped. Catch it in the thread's function.\n",
             rank.index(), what, rank.node_name(), simgrid::s4u::Engine::get_clock());
  std::fflush(out);
  rank.mark_crashed();
  bxisim::os::kill_every_actor();
}

/** The body of a simulated thread's actor. Kept free of objects with destructors: longjmp lands here. */
void run_thread(SimulatedThread* thread)
{
  Rank& rank                                           = *thread->rank;
  thread_of_actor[simgrid::s4u::this_actor::get_pid()] = thread;
  bxisim::os::start_cpu_clock(rank);
  if (setjmp(thread->leave) == 0) {
    try {
      bxisim::os::enter_rank_code(rank);
      thread->result = thread->routine(thread->argument);
      leave_own_code(*thread);
    } catch (const simgrid::ForcefulKillException&) {
      bxisim::os::set_running_rank(nullptr);
      thread->killed = true;
    } catch (...) { // an uncaught exception ends the process, as std::terminate would: a crash of the rank
      bxisim::os::set_running_rank(nullptr);
      rank.process_state().save_globals(); // the simulator ends the run with its own floating-point state
      report_crash(rank);                  // every other actor is killed: this one then ends as any thread
    }
  }
  thread_of_actor.erase(simgrid::s4u::this_actor::get_pid());
  bxisim::os::stop_cpu_clock();
  bxisim::os::forget_thread_locals(rank, thread);
  thread->ended = true;
  bool killed   = thread->killed;
  if (thread->detached)
    forget(thread);
  if (killed)
    throw simgrid::ForcefulKillException("a thread of a rank whose process ended");
}

/** Where libstdc++'s std::thread::_M_start_thread is (each of its overloads), which starts the threads of std::thread,
 * std::jthread and std::async: their templates are instantiated in the program's code, but call pthread_create from
 * there. Found once, as bxisim starts, so that no rank's burst pays for the symbol lookup. */
const std::vector<std::pair<uintptr_t, uintptr_t>>& std_thread_starts()
{
  static const auto ranges = [] {
    std::vector<std::pair<uintptr_t, uintptr_t>> found;
    for (const char* symbol : {"_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE",
                               "_ZNSt6thread15_M_start_threadESt10shared_ptrINS_10_Impl_baseEE",
                               "_ZNSt6thread15_M_start_threadESt10shared_ptrINS_10_Impl_baseEEPFvvE"}) {
      void* address = dlsym(RTLD_DEFAULT, symbol);
      Dl_info info{};
      ElfW(Sym)* entry = nullptr;
      if (address != nullptr && dladdr1(address, &info, reinterpret_cast<void**>(&entry), RTLD_DL_SYMENT) != 0 &&
          entry != nullptr)
        found.emplace_back(reinterpret_cast<uintptr_t>(address), reinterpret_cast<uintptr_t>(address) + entry->st_size);
    }
    return found;
  }();
  return ranges;
}
[[maybe_unused]] const bool std_thread_starts_found = not std_thread_starts().empty();

bool started_by_std_thread(const void* caller)
{
  auto address = reinterpret_cast<uintptr_t>(caller);
  for (const auto& [first, last] : std_thread_starts())
    if (address >= first && address < last)
      return true;
  return false;
}

int create_simulated_thread(Rank& rank, pthread_t* id, const pthread_attr_t* attributes, void* (*routine)(void*),
                            void* argument)
{
  int detach_state = PTHREAD_CREATE_JOINABLE;
  if (attributes != nullptr)
    pthread_attr_getdetachstate(attributes, &detach_state);
  const void* creating_thread = bxisim::os::current_lock_holder(&rank); // before the call: who runs the rank's code
  bxisim::os::SimulatorCall call; // first: what follows allocates in the simulator's heap, not the rank's
  auto* thread = new SimulatedThread;
  bxisim::os::note_thread_created(creating_thread, thread, attributes);
  thread->rank     = &rank;
  thread->routine  = routine;
  thread->argument = argument;
  thread->detached = detach_state == PTHREAD_CREATE_DETACHED;
  threads.insert(thread);
  ranks_with_threads.insert(&rank);
  bxisim::os::start_swapping_thread_locals(rank);
  *id           = reinterpret_cast<pthread_t>(thread);
  thread->actor = simgrid::s4u::Actor::create(fmt::format("rank{}-thread", rank.index()), rank.host(),
                                              [thread] { run_thread(thread); });
  XBT_DEBUG("rank %d created simulated thread %p (actor %ld)", rank.index(), static_cast<void*>(thread),
            thread->actor->get_pid());
  return 0;
}
} // namespace

namespace bxisim::os
{
const void* simulated_thread_of_id(pthread_t id)
{
  return thread_of_id(id);
}

runtime::Rank* creator_of_this_thread()
{
  return creator;
}

ThreadSpecificData** simulated_thread_data()
{
  SimulatedThread* thread = running_thread();
  return thread != nullptr ? &thread->data : nullptr;
}

runtime::Rank* rank_of_simulated_thread()
{
  SimulatedThread* thread = running_thread();
  return thread != nullptr ? thread->rank : nullptr;
}

namespace
{
void (*sibling_wait_handler)(runtime::Rank&) = nullptr;
} // namespace

void set_sibling_wait_handler(void (*handler)(runtime::Rank& rank))
{
  sibling_wait_handler = handler;
}

void notify_sibling_wait(runtime::Rank& rank)
{
  if (sibling_wait_handler != nullptr && has_simulated_threads(rank))
    sibling_wait_handler(rank);
}

bool running_thread_killed()
{
  SimulatedThread* thread = running_thread();
  return thread != nullptr && thread->kill_sent;
}

const void* running_simulated_thread()
{
  return running_thread();
}

const void* current_lock_holder(runtime::Rank* rank)
{
  SimulatedThread* thread = running_thread();
  return thread != nullptr ? static_cast<const void*>(thread) : static_cast<const void*>(rank);
}

bool has_simulated_threads(const runtime::Rank& rank)
{
  return ranks_with_threads.count(&rank) != 0;
}

void end_simulated_threads(runtime::Rank& rank)
{
  SimulatedThread* self = running_thread(); // a thread that called exit(): it ends by itself
  std::vector<simgrid::s4u::ActorPtr> running;
  for (SimulatedThread* thread : threads)
    if (thread->rank == &rank && not thread->ended && thread != self) {
      thread->kill_sent = true;
      running.push_back(thread->actor);
    }
  for (auto& actor : running)
    actor->kill();
  for (auto it = threads.begin(); it != threads.end();) // no one is left to join them
    if ((*it)->rank == &rank && (*it)->ended && *it != self) {
      delete *it;
      it = threads.erase(it);
    } else
      ++it;
}

void end_process_from_thread(runtime::Rank& rank, int code)
{
  SimulatedThread* thread = running_thread();
  if (thread == nullptr)
    return;
  run_thread_local_destructors(thread); // glibc's exit() runs the calling thread's
  set_running_rank(nullptr);
  rank.process_state().save_globals();
  bool killed = killed_in_last_burst(rank);
  if (not killed) {
    rank.mark_ended(code);
    rank.ended_by_thread = true;
    thread->detached     = true; // no one is left to join it: forgotten as it ends
    end_simulated_threads(rank);
    if (auto main_actor = simgrid::s4u::Actor::by_pid(rank.main_actor_pid))
      main_actor->kill(); // it unwinds where it waits; RankActor.cpp keeps the rank's end
  }
  thread->killed = killed;
  std::longjmp(thread->leave, 1);
}

void leave_killed_thread()
{
  SimulatedThread* thread = running_thread();
  if (thread == nullptr)
    return;
  set_running_rank(nullptr);
  thread->killed = true;
  std::longjmp(thread->leave, 1);
}
} // namespace bxisim::os

namespace
{
/** Waits for a simulated thread's end, `timeout` simulated seconds at most (infinity: no limit); 0, or ETIMEDOUT. */
int join_simulated(SimulatedThread* thread, void** result, double timeout)
{
  if (thread == running_thread())
    return EDEADLK;
  if (thread->detached)
    return EINVAL;
  Rank* rank = bxisim::os::running_rank();
  if (not thread->ended && timeout <= 0)
    return ETIMEDOUT;
  bxisim::os::SimulatorCall call;
  if (not thread->ended) {
    if (rank != nullptr)
      rank->set_waiting_for([] { return std::string("pthread_join of a thread it created"); });
    bxisim::os::OffCpu blocked;
    if (timeout == std::numeric_limits<double>::infinity())
      thread->actor->join();
    else
      thread->actor->join(timeout);
    if (rank != nullptr)
      rank->set_waiting_for(nullptr);
    if (not thread->ended)
      return ETIMEDOUT;
  }
  if (result != nullptr)
    *result = thread->result;
  forget(thread);
  return 0;
}
} // namespace

int bxisim::os::create_thread_called_from(const void* caller, pthread_t* thread, const pthread_attr_t* attributes,
                                          void* (*routine)(void*), void* argument)
{
  Rank* rank = bxisim::os::running_rank();
  // Not while the program loads: its constructors run under the dynamic loader's lock, where no other rank may run
  // (a global object's std::thread is a real thread, as a library's).
  if (rank != nullptr && (rank->runs_own_code_at(reinterpret_cast<uintptr_t>(caller)) ||
                          (rank->loaded() && started_by_std_thread(caller))))
    return bxisim::os::surviving_kill("killed in pthread_create", [&] {
      return create_simulated_thread(*rank, thread, attributes, routine, argument);
    });
  if (rank == nullptr) // the simulator's own threads, or threads of real threads: nothing to remember
    return BXISIM_REAL(pthread_create)(thread, attributes, routine, argument);
  auto* launch = new RealThreadStart{routine, argument, rank};
  rank->count_library_thread(+1); // before it runs: it may end before pthread_create returns
  int code = BXISIM_REAL(pthread_create)(thread, attributes, start_real_thread, launch);
  if (code != 0) {
    rank->count_library_thread(-1);
    delete launch;
  }
  return code;
}

extern "C" {

int pthread_create(pthread_t* thread, const pthread_attr_t* attributes, void* (*routine)(void*), void* argument)
{
  return bxisim::os::create_thread_called_from(__builtin_return_address(0), thread, attributes, routine, argument);
}

int pthread_join(pthread_t id, void** result)
{
  SimulatedThread* thread = thread_of_id(id);
  if (thread == nullptr)
    return BXISIM_REAL(pthread_join)(id, result);
  return join_simulated(thread, result, std::numeric_limits<double>::infinity());
}

int pthread_tryjoin_np(pthread_t id, void** result)
{
  SimulatedThread* thread = thread_of_id(id);
  if (thread == nullptr)
    return BXISIM_REAL(pthread_tryjoin_np)(id, result);
  int code = join_simulated(thread, result, 0.0);
  return code == ETIMEDOUT ? EBUSY : code;
}

int pthread_timedjoin_np(pthread_t id, void** result, const struct timespec* deadline)
{
  SimulatedThread* thread = thread_of_id(id);
  if (thread == nullptr)
    return BXISIM_REAL(pthread_timedjoin_np)(id, result, deadline);
  return join_simulated(thread, result, bxisim::os::seconds_until(CLOCK_REALTIME, *deadline));
}

int pthread_clockjoin_np(pthread_t id, void** result, clockid_t clock, const struct timespec* deadline)
{
  SimulatedThread* thread = thread_of_id(id);
  if (thread == nullptr)
    return BXISIM_REAL(pthread_clockjoin_np)(id, result, clock, deadline);
  if (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME)
    return EINVAL;
  return join_simulated(thread, result, bxisim::os::seconds_until(clock, *deadline));
}

int pthread_detach(pthread_t id)
{
  SimulatedThread* thread = thread_of_id(id);
  if (thread == nullptr)
    return BXISIM_REAL(pthread_detach)(id);
  if (thread->detached)
    return EINVAL;
  thread->detached = true;
  if (thread->ended)
    forget(thread);
  return 0;
}

pthread_t pthread_self(void) noexcept
{
  if (SimulatedThread* thread = running_thread())
    return reinterpret_cast<pthread_t>(thread);
  return BXISIM_REAL(pthread_self)();
}

void pthread_exit(void* result)
{
  if (SimulatedThread* thread = running_thread()) {
    thread->result = result;
    leave_own_code(*thread);
    std::longjmp(thread->leave, 1);
  }
  if (Rank* rank = bxisim::os::running_rank()) {
    // The main thread of a process leaving with pthread_exit: the process lives on until its last thread
    // ends, then exits with status 0.
    if (bxisim::os::has_simulated_threads(*rank)) {
      bxisim::os::SimulatorCall call;
      for (SimulatedThread* thread : std::vector<SimulatedThread*>(threads.begin(), threads.end()))
        if (thread->rank == rank && not thread->ended)
          thread->actor->join();
    }
    exit(0);
  }
  BXISIM_REAL(pthread_exit)(result);
  __builtin_unreachable();
}

} // extern "C"
