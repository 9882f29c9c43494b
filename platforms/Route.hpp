#pragma once
// A route between two hosts as SimGrid computes it, with the figures a reader checks by hand.

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <vector>

namespace bxisim::platform
{

struct Route {
  std::vector<simgrid::s4u::Link*> links;
  double latency;    // sum of the links' latencies, seconds
  double bottleneck; // smallest bandwidth along the route, bytes per second

  static Route between(const simgrid::s4u::Host* source, const simgrid::s4u::Host* destination);
  /**
   * The same for routes a user's XML platform may lack: throws config::ConfigError when there is no
   * route. (SimGrid as Debian ships it dereferences a null route instead of failing its assertion: the
   * lookup runs under a SIGSEGV guard. Not for use during a simulation.)
   */
  static Route between_or_throw(const simgrid::s4u::Host* source, const simgrid::s4u::Host* destination);
};

} // namespace bxisim::platform
