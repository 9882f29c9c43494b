#pragma once
// The locks a thread's ranks hold, with what bxisim tracks of each (LockInterposition.cpp, RwLockInterposition.cpp).

#include <cstddef>

namespace bxisim::os
{

/**
 * A fixed table, with no constructor, destructor or allocation, to be a zero-initialised thread_local: an allocator
 * that locks and unlocks its own mutexes inside malloc (jemalloc, preloaded) comes through the lock interpositions,
 * and any allocation there (the set-up of a thread_local map, a map's node) would wait for that allocator's lock for
 * ever. A rank holds few locks at once (the C library's, a shared library's); beyond kCapacity they are not tracked.
 */
template <typename Lock, typename Tracked, size_t kCapacity = 256>
struct HeldLockTable {
  struct Entry {
    Lock* lock;
    Tracked tracked;
  };
  Entry entries[kCapacity];
  size_t used;

  Entry* find(const Lock* lock)
  {
    for (size_t i = 0; i < used; ++i)
      if (entries[i].lock == lock)
        return &entries[i];
    return nullptr;
  }
  /** A new entry, or nullptr when the table is full (the lock is then not tracked). */
  Entry* add(Lock* lock, const Tracked& tracked)
  {
    if (used == kCapacity)
      return nullptr;
    entries[used] = Entry{lock, tracked};
    return &entries[used++];
  }
  void erase(Entry* entry) { *entry = entries[--used]; }
};

} // namespace bxisim::os
