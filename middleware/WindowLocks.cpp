#include "WindowLocks.hpp"

namespace bxisim::mw
{

WindowLocks& WindowLocks::of_the_run()
{
  static WindowLocks locks;
  return locks;
}

void WindowLocks::acquire(const WindowIdentity& window, int target, bool exclusive)
{
  Lock& lock = locks_[{window, target}];
  if (lock.waiting.empty() && lock.allows(exclusive)) {
    lock.take(exclusive);
    return;
  }
  auto granted = simgrid::s4u::Semaphore::create(0);
  lock.waiting.push_back({exclusive, granted});
  granted->acquire(); // the releasing rank took the lock for this one
}

void WindowLocks::release(const WindowIdentity& window, int target, bool exclusive)
{
  auto found = locks_.find({window, target});
  if (found == locks_.end())
    return;
  Lock& lock = found->second;
  if (exclusive)
    lock.exclusive_holder = false;
  else if (lock.shared_holders > 0)
    --lock.shared_holders;
  while (not lock.waiting.empty() && lock.allows(lock.waiting.front().exclusive)) {
    Waiter next = lock.waiting.front();
    lock.waiting.pop_front();
    lock.take(next.exclusive);
    next.granted->release();
  }
  if (lock.shared_holders == 0 && not lock.exclusive_holder && lock.waiting.empty())
    locks_.erase(found);
}

} // namespace bxisim::mw
