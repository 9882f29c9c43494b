// C11's threads (<threads.h>) of a rank, as its POSIX threads are.
//
// The C library builds thrd_create, thrd_join, mtx_lock, cnd_wait, tss_get and the others on its own pthread
// functions, called inside the library: bxisim's pthread_create, pthread_mutex_lock... (ThreadInterposition.cpp,
// LockInterposition.cpp, ConditionInterposition.cpp, KeyInterposition.cpp) never saw them. A C11 thread of a rank was
// a real thread outside simulated time (its thrd_sleep slept for real, its MPI calls were refused) and tss_get
// answered the simulator's one real thread's value to every thread of the rank. Each function here is the C library's
// over the pthread functions every rank's code sees; mtx_init and cnd_init, which only set the object up, thrd_equal,
// which compares two ids, and call_once stay the C library's.

#include "runtime/os/ThreadInterposition.hpp"

#include <pthread.h>
#include <sched.h>
#include <threads.h>

#include <cerrno>
#include <cstdint>
#include <ctime>

namespace
{
/** The C11 result of a pthread error number, as the C library maps it. */
int c11_result(int code)
{
  switch (code) {
  case 0:
    return thrd_success;
  case EBUSY:
    return thrd_busy;
  case ENOMEM:
    return thrd_nomem;
  case ETIMEDOUT:
    return thrd_timedout;
  default:
    return thrd_error;
  }
}

/** What a C11 thread runs: its function returns an int, a POSIX thread's a pointer. */
struct C11Start {
  thrd_start_t function;
  void* argument;
};

void* run_c11_thread(void* start)
{
  C11Start what = *static_cast<C11Start*>(start);
  delete static_cast<C11Start*>(start);
  return reinterpret_cast<void*>(static_cast<intptr_t>(what.function(what.argument)));
}

pthread_mutex_t* as_pthread(mtx_t* mutex)
{
  return reinterpret_cast<pthread_mutex_t*>(mutex); // the C library's own cast: one layout
}

pthread_cond_t* as_pthread(cnd_t* condition)
{
  return reinterpret_cast<pthread_cond_t*>(condition);
}
} // namespace

static_assert(sizeof(mtx_t) == sizeof(pthread_mutex_t) && sizeof(cnd_t) == sizeof(pthread_cond_t) &&
                  sizeof(thrd_t) == sizeof(pthread_t) && sizeof(tss_t) == sizeof(pthread_key_t),
              "the C library's C11 types are its pthread types");

extern "C" {

int thrd_create(thrd_t* thread, thrd_start_t function, void* argument)
{
  auto* start = new C11Start{function, argument};
  int code = bxisim::os::create_thread_called_from(__builtin_return_address(0), thread, nullptr, run_c11_thread, start);
  if (code != 0)
    delete start;
  return c11_result(code);
}

int thrd_join(thrd_t thread, int* result)
{
  void* returned = nullptr;
  int code       = pthread_join(thread, &returned);
  if (code == 0 && result != nullptr)
    *result = static_cast<int>(reinterpret_cast<intptr_t>(returned));
  return c11_result(code);
}

int thrd_detach(thrd_t thread)
{
  return c11_result(pthread_detach(thread));
}

thrd_t thrd_current(void)
{
  return pthread_self();
}

void thrd_exit(int result)
{
  pthread_exit(reinterpret_cast<void*>(static_cast<intptr_t>(result)));
}

int thrd_sleep(const struct timespec* duration, struct timespec* remaining)
{
  if (nanosleep(duration, remaining) == 0)
    return 0;
  return errno == EINTR ? -1 : -2; // C11: -1 for a signal, another negative value for an error
}

void thrd_yield(void)
{
  sched_yield();
}

int mtx_lock(mtx_t* mutex)
{
  return c11_result(pthread_mutex_lock(as_pthread(mutex)));
}

int mtx_trylock(mtx_t* mutex)
{
  return c11_result(pthread_mutex_trylock(as_pthread(mutex)));
}

int mtx_timedlock(mtx_t* __restrict mutex, const struct timespec* __restrict deadline)
{
  return c11_result(pthread_mutex_timedlock(as_pthread(mutex), deadline));
}

int mtx_unlock(mtx_t* mutex)
{
  return c11_result(pthread_mutex_unlock(as_pthread(mutex)));
}

void mtx_destroy(mtx_t* mutex)
{
  pthread_mutex_destroy(as_pthread(mutex));
}

int cnd_wait(cnd_t* condition, mtx_t* mutex)
{
  return c11_result(pthread_cond_wait(as_pthread(condition), as_pthread(mutex)));
}

int cnd_timedwait(cnd_t* __restrict condition, mtx_t* __restrict mutex, const struct timespec* __restrict deadline)
{
  return c11_result(pthread_cond_timedwait(as_pthread(condition), as_pthread(mutex), deadline));
}

int cnd_signal(cnd_t* condition)
{
  return c11_result(pthread_cond_signal(as_pthread(condition)));
}

int cnd_broadcast(cnd_t* condition)
{
  return c11_result(pthread_cond_broadcast(as_pthread(condition)));
}

void cnd_destroy(cnd_t* condition)
{
  pthread_cond_destroy(as_pthread(condition));
}

int tss_create(tss_t* key, tss_dtor_t destructor)
{
  return c11_result(pthread_key_create(key, destructor));
}

void* tss_get(tss_t key)
{
  return pthread_getspecific(key);
}

int tss_set(tss_t key, void* value)
{
  return c11_result(pthread_setspecific(key, value));
}

void tss_delete(tss_t key)
{
  pthread_key_delete(key);
}

} // extern "C"
