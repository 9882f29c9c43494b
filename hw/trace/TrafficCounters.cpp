#include "TrafficCounters.hpp"

namespace bxisim::hw
{

std::array<TrafficCount, kLinkClasses> TrafficCounters::counts_{};

const char* link_class_name(LinkClass link_class)
{
  switch (link_class) {
  case LinkClass::Wire:
    return "wire";
  case LinkClass::Pcie:
    return "pcie";
  case LinkClass::Loopback:
    return "loopback";
  }
  return "?";
}

} // namespace bxisim::hw
