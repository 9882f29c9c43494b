#pragma once
// Builders of the simulated machine's network, one per topology of DESIGN.md section 3.
// Each expects a SimGrid Engine to exist and no platform to be loaded yet.

#include "Machine.hpp"
#include "PlatformConfig.hpp"

namespace bxisim::platform
{

/** Builds the machine `config` describes, whatever its topology. */
Machine build_machine(const PlatformConfig& config);

Machine build_single_switch(const PlatformConfig& config);
Machine build_two_switches(const PlatformConfig& config);
Machine build_fat_tree(const PlatformConfig& config);
Machine load_xml_platform(const PlatformConfig& config);

} // namespace bxisim::platform
