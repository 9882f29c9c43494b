// Chooses the builder of the configured topology.

#include "Topologies.hpp"

#include <stdexcept>

namespace bxisim::platform
{

Machine build_machine(const PlatformConfig& config)
{
  switch (config.topology) {
  case Topology::FatTree:
    return build_fat_tree(config);
  case Topology::SingleSwitch:
    return build_single_switch(config);
  case Topology::TwoSwitches:
    return build_two_switches(config);
  case Topology::Xml:
    return load_xml_platform(config);
  }
  throw std::logic_error("bxisim bug: unknown topology");
}

} // namespace bxisim::platform
