// pthread_create, interposed to remember which rank created a thread (ThreadInterposition.hpp).

#include "ThreadInterposition.hpp"

#include "RealFunctions.hpp"
#include "SimulatorCall.hpp"

#include <pthread.h>

namespace
{
thread_local bxisim::runtime::Rank* creator = nullptr;

struct ThreadStart {
  void* (*routine)(void*);
  void* argument;
  bxisim::runtime::Rank* creator;
};

void* start_thread(void* start)
{
  ThreadStart launch = *static_cast<ThreadStart*>(start);
  delete static_cast<ThreadStart*>(start);
  creator = launch.creator;
  return launch.routine(launch.argument);
}
} // namespace

namespace bxisim::os
{
runtime::Rank* creator_of_this_thread()
{
  return creator;
}
} // namespace bxisim::os

extern "C" int pthread_create(pthread_t* thread, const pthread_attr_t* attributes, void* (*routine)(void*),
                              void* argument)
{
  bxisim::runtime::Rank* rank = bxisim::os::running_rank();
  if (rank == nullptr) // the simulator's own threads, or threads of threads: nothing to remember
    return BXISIM_REAL(pthread_create)(thread, attributes, routine, argument);
  auto* launch = new ThreadStart{routine, argument, rank};
  int code     = BXISIM_REAL(pthread_create)(thread, attributes, start_thread, launch);
  if (code != 0)
    delete launch;
  return code;
}
