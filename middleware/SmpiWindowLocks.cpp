// Passive-target locks at smpi taken in bxisim's table (WindowLocks.hpp says why). SMPI is still asked for each lock,
// always a shared one: it then lists the rank among the target's lockers, which its one-sided calls check, and never
// takes its own mutex; the exclusion is the table's.

#include "SmpiRank.hpp"
#include "WindowLocks.hpp"

#include <numeric>

namespace bxisim::mw
{
namespace
{
bool targets(const WindowIdentity& window, int rank)
{
  return rank >= 0 && rank < static_cast<int>(window.world_ranks.size());
}

/** Takes the lock `taken` (MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED) of `target` in the table; 0 (MPI_MODE_NOCHECK):
 *  none. */
void take(const WindowIdentity& window, int target, int taken)
{
  if (taken != 0)
    WindowLocks::of_the_run().acquire(window, target, taken == MPI_LOCK_EXCLUSIVE);
}

/** Gives up what take took. */
void give_up(const WindowIdentity& window, int target, int taken)
{
  if (taken != 0)
    WindowLocks::of_the_run().release(window, target, taken == MPI_LOCK_EXCLUSIVE);
}

/** The lock a program's assertions (MPI_MODE_NOCHECK: no conflicting lock is or will be held) leave to take. */
int lock_to_take(int lock_type, int asserted)
{
  return (asserted & MPI_MODE_NOCHECK) != 0 ? 0 : lock_type;
}
} // namespace

int SmpiRank::made_window(int result, void* window, int flavor, MPI_Win* win)
{
  if (be_ok(result)) {
    be_group group{}, world{};
    int size = 0;
    if (be_ok(fn_.Win_get_group(window, &group)) && be_ok(fn_.Group_size(group, &size)) &&
        be_ok(fn_.Comm_group(to_be_comm(MPI_COMM_WORLD), &world))) {
      std::vector<int> ranks(static_cast<size_t>(size)), world_ranks(ranks.size());
      std::iota(ranks.begin(), ranks.end(), 0);
      if (be_ok(fn_.Group_translate_ranks(group, size, ranks.data(), world, world_ranks.data())))
        window_identities_[window] = {world_ranks, windows_made_over_[world_ranks]++};
    }
    if (group != nullptr)
      fn_.Group_free(&group);
    if (world != nullptr)
      fn_.Group_free(&world);
  }
  return created_window(result, window, flavor, win);
}

void SmpiRank::forget_window(be_win window)
{
  // Locks still held (an erroneous program) are given up: a rank waiting for one would wait for ever
  auto identity = window_identities_.find(window);
  for (auto held = held_window_locks_.begin(); held != held_window_locks_.end();) {
    if (held->first.first != window) {
      ++held;
      continue;
    }
    if (identity != window_identities_.end())
      give_up(identity->second, held->first.second, held->second.taken);
    held = held_window_locks_.erase(held);
  }
  window_identities_.erase(window);
}

int SmpiRank::window_sync_error(MPI_Win win)
{
  Win_call_errhandler(win, MPI_ERR_RMA_SYNC);
  return MPI_ERR_RMA_SYNC;
}

int SmpiRank::Win_lock(int lock_type, int rank, int asserted, MPI_Win win)
{
  be_win window = to_be_win(win);
  auto identity = window_identities_.find(window);
  if (identity == window_identities_.end() || not targets(identity->second, rank) ||
      (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)) // SMPI's answer: MPI_PROC_NULL, errors
    return from_be_errcode(
        fn_.Win_lock(to_be_lock_type(lock_type), to_be_rank(rank), to_be_win_assert(asserted), window));
  if (held_window_locks_.count({window, rank}) != 0) // a second lock of one target in one epoch
    return window_sync_error(win);
  const int taken = lock_to_take(lock_type, asserted);
  take(identity->second, rank, taken);
  int result = fn_.Win_lock(to_be_lock_type(MPI_LOCK_SHARED), to_be_rank(rank), to_be_win_assert(asserted), window);
  if (be_ok(result))
    held_window_locks_[{window, rank}] = {taken, false};
  else
    give_up(identity->second, rank, taken);
  return from_be_errcode(result);
}

int SmpiRank::Win_unlock(int rank, MPI_Win win)
{
  be_win window = to_be_win(win);
  auto identity = window_identities_.find(window);
  auto held     = held_window_locks_.find({window, rank});
  if (identity == window_identities_.end() || not targets(identity->second, rank)) // SMPI's answer: PROC_NULL, errors
    return from_be_errcode(fn_.Win_unlock(to_be_rank(rank), window));
  if (held == held_window_locks_.end() || held->second.of_all) // not locked, or by MPI_Win_lock_all
    return window_sync_error(win);
  // SMPI 3.32's MPI_Win_unlock gave an exclusive lock up before it completed the epoch's operations: the next holder
  // read the data as it was before (ARMCI-MPI's mutexes deadlocked). Completed first, then given up.
  fn_.Win_flush(to_be_rank(rank), window);
  int result = fn_.Win_unlock(to_be_rank(rank), window);
  give_up(identity->second, rank, held->second.taken);
  held_window_locks_.erase(held);
  return from_be_errcode(result);
}

int SmpiRank::Win_lock_all(int asserted, MPI_Win win)
{
  be_win window = to_be_win(win);
  auto identity = window_identities_.find(window);
  if (identity == window_identities_.end())
    return from_be_errcode(fn_.Win_lock_all(to_be_win_assert(asserted), window));
  auto first = held_window_locks_.lower_bound({window, 0});
  if (first != held_window_locks_.end() && first->first.first == window)
    return window_sync_error(win);
  const int taken         = lock_to_take(MPI_LOCK_SHARED, asserted);
  const auto& all_targets = identity->second.world_ranks;
  for (int target = 0; target < static_cast<int>(all_targets.size()); ++target) { // in rank order, as SMPI's own
    take(identity->second, target, taken);
    held_window_locks_[{window, target}] = {taken, true};
  }
  int result = fn_.Win_lock_all(to_be_win_assert(asserted), window);
  if (not be_ok(result))
    for (int target = 0; target < static_cast<int>(all_targets.size()); ++target) {
      give_up(identity->second, target, taken);
      held_window_locks_.erase({window, target});
    }
  return from_be_errcode(result);
}

int SmpiRank::Win_unlock_all(MPI_Win win)
{
  be_win window = to_be_win(win);
  auto identity = window_identities_.find(window);
  if (identity == window_identities_.end())
    return from_be_errcode(fn_.Win_unlock_all(window));
  const int targets = static_cast<int>(identity->second.world_ranks.size());
  for (int target = 0; target < targets; ++target) // MPI_Win_unlock_all ends MPI_Win_lock_all's epoch only
    if (auto held = held_window_locks_.find({window, target});
        held == held_window_locks_.end() || not held->second.of_all)
      return window_sync_error(win);
  fn_.Win_flush_all(window); // as Win_unlock
  int result = fn_.Win_unlock_all(window);
  for (int target = 0; target < targets; ++target) {
    auto held = held_window_locks_.find({window, target});
    give_up(identity->second, target, held->second.taken);
    held_window_locks_.erase(held);
  }
  return from_be_errcode(result);
}

} // namespace bxisim::mw
