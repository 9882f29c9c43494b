#include "Route.hpp"

#include "config/ConfigError.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csetjmp>
#include <csignal>
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

namespace
{
sigjmp_buf missing_route;

void on_missing_route(int)
{
  siglongjmp(missing_route, 1);
}
} // namespace

Route Route::between_or_throw(const simgrid::s4u::Host* source, const simgrid::s4u::Host* destination)
{
  struct sigaction guard {
  };
  struct sigaction previous {
  };
  guard.sa_handler = on_missing_route;
  guard.sa_flags   = SA_NODEFER;
  sigemptyset(&guard.sa_mask);
  sigaction(SIGSEGV, &guard, &previous);
  if (sigsetjmp(missing_route, 1) != 0) {
    sigaction(SIGSEGV, &previous, nullptr);
    throw config::ConfigError(fmt::format("the platform has no route from {} to {}; give SimGrid one (a <route> "
                                          "element in a Full zone, say) for every pair of hosts.",
                                          source->get_name(), destination->get_name()));
  }
  Route route = between(source, destination);
  sigaction(SIGSEGV, &previous, nullptr);
  return route;
}

} // namespace bxisim::platform
