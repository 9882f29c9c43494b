// Thread-specific data keys beyond glibc's limit of PTHREAD_KEYS_MAX (1024) per process. Every rank's
// copy of OpenMPI creates keys of its own (opal_tsd), and all the ranks live in one process: from about
// 1000 ranks on, pthread_key_create failed with EAGAIN and OpenMPI printed "Out of resource" for every
// rank left. A key the process cannot have any more is made by bxisim instead, numbered from
// PTHREAD_KEYS_MAX up (glibc's are below), with its values kept per thread and its destructor run when a
// thread ends, as glibc would. Keys glibc can still give are glibc's, untouched.
//
// A rank's simulated threads (ThreadInterposition.hpp) all run on the simulator's thread, so the C library
// would give them one set of values: theirs are kept per simulated thread here, for every key (glibc's and
// bxisim's), and their destructors run when the thread ends.

#include "RealFunctions.hpp"
#include "ThreadInterposition.hpp"

#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <vector>

namespace
{
constexpr pthread_key_t kFirstKey = PTHREAD_KEYS_MAX;
constexpr size_t kMaxKeys         = 65536; // of bxisim's: 64 per rank at 1024 ranks

// Shared by every thread (threads ranks create read them too), without a lock: a fixed table.
struct Key {
  std::atomic<void (*)(void*)> destructor{nullptr};
  std::atomic<unsigned long> generation{0}; // odd while the key exists: a key made again starts empty
};
Key keys[kMaxKeys];
// glibc's keys as the ranks' code made them (through pthread_key_create below): for simulated threads' values.
Key glibc_keys[PTHREAD_KEYS_MAX];
std::atomic_flag making = ATOMIC_FLAG_INIT; // pthread_key_create and _delete, one at a time

struct Value {
  void* value              = nullptr;
  unsigned long generation = 0;
};

// The calling thread's values. A pointer: glibc runs the destructors of thread-specific data after those of
// thread_local objects, and this one must still be there then.
thread_local std::vector<Value>* values = nullptr;

void run_destructors(void*);

// A glibc key whose destructor runs the bxisim keys' destructors when a thread that set one ends. Made when
// bxisim starts, before the ranks can use up glibc's keys.
pthread_key_t thread_end_key = [] {
  pthread_key_t key{};
  BXISIM_REAL(pthread_key_create)(&key, &run_destructors);
  return key;
}();

/** The key's entry while it exists, else nullptr. */
Key* existing(pthread_key_t key)
{
  size_t index = key - kFirstKey;
  return index < kMaxKeys && (keys[index].generation.load(std::memory_order_acquire) & 1) != 0 ? &keys[index] : nullptr;
}

/** Any key's entry, glibc's or bxisim's, existing or not; nullptr for a number no key can have. */
Key* entry_of(pthread_key_t key)
{
  if (key < kFirstKey)
    return &glibc_keys[key];
  size_t index = key - kFirstKey;
  return index < kMaxKeys ? &keys[index] : nullptr;
}

void run_destructors(void*)
{
  std::vector<Value>* mine = values;
  if (mine == nullptr)
    return;
  for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; ++round) {
    bool called = false;
    for (size_t index = 0; index < mine->size(); ++index) {
      Value& slot = (*mine)[index];
      void* value = slot.value;
      slot.value  = nullptr;
      if (value == nullptr || keys[index].generation.load(std::memory_order_acquire) != slot.generation)
        continue;
      if (auto* destructor = keys[index].destructor.load(std::memory_order_acquire)) {
        destructor(value);
        called = true;
      }
    }
    if (not called)
      break;
  }
  values = nullptr;
  delete mine;
}

struct Making {
  Making()
  {
    while (making.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~Making() { making.clear(std::memory_order_release); }
};
} // namespace

namespace bxisim::os
{
struct ThreadSpecificData {
  std::vector<Value> values; // by key number, glibc's and bxisim's
};

void end_thread_specific_data(ThreadSpecificData*& data)
{
  for (int round = 0; data != nullptr && round < PTHREAD_DESTRUCTOR_ITERATIONS; ++round) {
    bool called = false;
    for (size_t index = 0; index < data->values.size(); ++index) {
      Value& slot = data->values[index];
      void* value = slot.value;
      slot.value  = nullptr;
      Key* key    = entry_of(static_cast<pthread_key_t>(index));
      if (value == nullptr || key->generation.load(std::memory_order_acquire) != slot.generation)
        continue;
      if (auto* destructor = key->destructor.load(std::memory_order_acquire)) {
        destructor(value); // it may set values again: another round
        called = true;
      }
    }
    if (not called)
      break;
  }
  delete data;
  data = nullptr;
}
} // namespace bxisim::os

extern "C" int pthread_key_create(pthread_key_t* key, void (*destructor)(void*))
{
  int result = BXISIM_REAL(pthread_key_create)(key, destructor);
  if (result == 0 && *key < kFirstKey) {
    glibc_keys[*key].destructor.store(destructor, std::memory_order_relaxed);
    glibc_keys[*key].generation.fetch_add(1, std::memory_order_release);
  }
  if (result != EAGAIN)
    return result;
  Making one_at_a_time;
  for (size_t index = 0; index < kMaxKeys; ++index) {
    if ((keys[index].generation.load(std::memory_order_relaxed) & 1) != 0)
      continue;
    keys[index].destructor.store(destructor, std::memory_order_relaxed);
    keys[index].generation.fetch_add(1, std::memory_order_release);
    *key = kFirstKey + static_cast<pthread_key_t>(index);
    return 0;
  }
  return EAGAIN;
}

extern "C" int pthread_key_delete(pthread_key_t key)
{
  if (key < kFirstKey) {
    int result = BXISIM_REAL(pthread_key_delete)(key);
    if (result == 0)
      glibc_keys[key].generation.fetch_add(1, std::memory_order_release);
    return result;
  }
  Making one_at_a_time;
  Key* made = existing(key);
  if (made == nullptr)
    return EINVAL;
  made->generation.fetch_add(1, std::memory_order_release); // even: gone; its values are forgotten, no destructor
  return 0;
}

extern "C" void* pthread_getspecific(pthread_key_t key)
{
  if (bxisim::os::ThreadSpecificData** data = bxisim::os::simulated_thread_data()) {
    Key* entry = entry_of(key);
    if (*data == nullptr || entry == nullptr || key >= (*data)->values.size())
      return nullptr;
    const Value& slot = (*data)->values[key];
    return entry->generation.load(std::memory_order_acquire) == slot.generation ? slot.value : nullptr;
  }
  if (key < kFirstKey)
    return BXISIM_REAL(pthread_getspecific)(key);
  size_t index = key - kFirstKey;
  if (values == nullptr || index >= values->size())
    return nullptr;
  const Value& slot = (*values)[index];
  return index < kMaxKeys && keys[index].generation.load(std::memory_order_acquire) == slot.generation ? slot.value
                                                                                                       : nullptr;
}

extern "C" int pthread_setspecific(pthread_key_t key, const void* value)
{
  if (bxisim::os::ThreadSpecificData** data = bxisim::os::simulated_thread_data()) {
    Key* entry               = entry_of(key);
    unsigned long generation = entry != nullptr ? entry->generation.load(std::memory_order_acquire) : 0;
    if ((generation & 1) == 0) // not made through bxisim, or deleted
      return EINVAL;
    if (*data == nullptr)
      *data = new bxisim::os::ThreadSpecificData;
    if (key >= (*data)->values.size())
      (*data)->values.resize(key + 1);
    (*data)->values[key] = {const_cast<void*>(value), generation};
    return 0;
  }
  if (key < kFirstKey)
    return BXISIM_REAL(pthread_setspecific)(key, value);
  Key* made = existing(key);
  if (made == nullptr)
    return EINVAL;
  if (values == nullptr) {
    values = new std::vector<Value>;
    BXISIM_REAL(pthread_setspecific)(thread_end_key, values); // its destructor runs ours as the thread ends
  }
  size_t index = key - kFirstKey;
  if (index >= values->size())
    values->resize(index + 1);
  (*values)[index] = {const_cast<void*>(value), made->generation.load(std::memory_order_acquire)};
  return 0;
}
