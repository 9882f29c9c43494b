#pragma once
// `bxisim platform export --xml`: the built machine as a SimGrid XML platform that SimGrid loads back
// with the same hosts, links and routes. Each node becomes a zone with explicit routes between its
// hosts; nodes are joined by explicit zone routes whose links are those SimGrid computed between
// their gateways (the NICs). Links of a SPLITDUPLEX pair appear as their two directional halves.

#include "Machine.hpp"

#include <ostream>

namespace bxisim::platform
{

void export_simgrid_xml(std::ostream& out, const Machine& machine);

} // namespace bxisim::platform
