#include "Route.hpp"

#include <algorithm>
#include <limits>

namespace bxisim::platform
{

Route Route::between(const simgrid::s4u::Host* source, const simgrid::s4u::Host* destination)
{
  Route route{{}, 0.0, std::numeric_limits<double>::infinity()};
  source->route_to(destination, route.links, &route.latency);
  for (const auto* link : route.links)
    route.bottleneck = std::min(route.bottleneck, link->get_bandwidth());
  return route;
}

} // namespace bxisim::platform
