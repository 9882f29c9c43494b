#include "portals/core/CountingEvent.hpp"

namespace bxisim::portals
{

CountingEvent::Action CountingEvent::pop_ready()
{
  auto it = triggered_.begin();
  if (it == triggered_.end() || it->first > value_.success)
    return {};
  Action a = std::move(it->second);
  triggered_.erase(it);
  return a;
}

size_t CountingEvent::cancel_triggered()
{
  size_t n = triggered_.size();
  triggered_.clear();
  return n;
}

} // namespace bxisim::portals
