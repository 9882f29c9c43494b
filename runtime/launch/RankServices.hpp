#pragma once
// The shared state behind bxisim/rank.h (key/value store, barrier).

namespace bxisim::runtime
{

/**
 * Creates the store and the barrier. Call before the simulation starts:
 * created lazily by a rank, their SimGrid mutexes would be created inside a function-local static's
 * initialisation, and a simcall there lets another rank run into the same initialisation guard on
 * the same thread, which waits forever.
 */
void prepare_rank_services();

} // namespace bxisim::runtime
