#pragma once
// The shared state behind bxisim/rank.h (key/value store, barrier).

#include <string>
#include <vector>

namespace bxisim::runtime
{

/**
 * Creates the store and the barrier. Call before the simulation starts:
 * created lazily by a rank, their SimGrid mutexes would be created inside a function-local static's
 * initialisation, and a simcall there lets another rank run into the same initialisation guard on
 * the same thread, which waits forever.
 */
void prepare_rank_services();

/**
 * The store for the runtime's own users (OpenMPI's start-up hooks): sets `key`, replacing any
 * value (PMIx semantics), and wakes the ranks waiting for it in bxisim_kv_get.
 */
void kv_store_set(const std::string& key, std::vector<char> value);
/** The value of `key`, or nullptr: never waits (OpenMPI reads after its fence). */
const std::vector<char>* kv_store_find(const std::string& key);

} // namespace bxisim::runtime
