#include "middleware/RankMpi.hpp"

#include <algorithm>
#include <utility>

namespace bxisim::mw
{
namespace
{
const void* (*the_thread_provider)()          = nullptr;
void (*the_concurrent_call_handler)(int rank) = nullptr;
} // namespace

void set_thread_provider(const void* (*provider)())
{
  the_thread_provider = provider;
}

void set_concurrent_call_handler(void (*handler)(int rank))
{
  the_concurrent_call_handler = handler;
}

const void* calling_thread()
{
  return the_thread_provider != nullptr ? the_thread_provider() : nullptr;
}

std::vector<RankMpi::ThreadCall>::iterator RankMpi::calling_thread_entry()
{
  const void* thread = calling_thread();
  return std::find_if(thread_calls_.begin(), thread_calls_.end(),
                      [thread](const ThreadCall& entry) { return entry.thread == thread; });
}

const char* RankMpi::calling_thread_call() const
{
  const void* thread = calling_thread();
  for (const ThreadCall& entry : thread_calls_)
    if (entry.thread == thread)
      return entry.call;
  return nullptr;
}

bool RankMpi::others_in_calls() const
{
  const void* thread = calling_thread();
  return std::any_of(thread_calls_.begin(), thread_calls_.end(),
                     [thread](const ThreadCall& entry) { return entry.thread != thread; });
}

const char* RankMpi::enter_call(const char* name)
{
  ++calls_entered_;
  auto entry = calling_thread_entry();
  if (entry != thread_calls_.end())
    return std::exchange(entry->call, name);
  thread_calls_.push_back({calling_thread(), name});
  return nullptr;
}

void RankMpi::leave_call(const char* previous)
{
  auto entry = calling_thread_entry();
  if (entry == thread_calls_.end())
    return;
  if (previous != nullptr) {
    entry->call = previous;
    return;
  }
  thread_calls_.erase(entry);
  if (not thread_calls_.empty() && the_concurrent_call_handler != nullptr)
    the_concurrent_call_handler(rank_);
}

} // namespace bxisim::mw
