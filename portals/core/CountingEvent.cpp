#include "portals/core/CountingEvent.hpp"

namespace bxisim::portals
{

CountingEvent::Action CountingEvent::popReady()
{
  auto it = triggered_.begin();
  if (it == triggered_.end() || it->first > value_.success)
    return {};
  Action a = std::move(it->second);
  triggered_.erase(it);
  return a;
}

size_t CountingEvent::cancelTriggered()
{
  size_t n = triggered_.size();
  triggered_.clear();
  return n;
}

} // namespace bxisim::portals
