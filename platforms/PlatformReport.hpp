#pragma once
// `bxisim platform show`: hosts, links and routes with their latencies and bandwidths.

#include "Machine.hpp"

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace bxisim::platform
{

struct ReportOptions {
  std::vector<std::pair<std::string, std::string>> routes; // host name pairs; empty: typical examples
  bool list_links = true;
};

void print_platform_report(std::ostream& out, const Machine& machine, const ReportOptions& options);

/** Prints one route, link by link, with its total latency and bottleneck. */
void print_route(std::ostream& out, const simgrid::s4u::Host* source, const simgrid::s4u::Host* destination);

} // namespace bxisim::platform
