#pragma once
// Loading the cycle NIC model, which lives in a plugin (hw/cycle/CycleNic.hpp says why): only the runs
// that use the cycle level load it, and SystemC with it.

#include "hw/cycle/CycleNic.hpp"

#include <memory>
#include <string>

namespace bxisim::runtime
{

/** The plugin's file: BXISIM_CYCLE_PLUGIN if set, else the one installed beside the executable
 * (<prefix>/lib/bxisim), else the build tree's. */
std::string cycle_plugin_path();

/** Loads the plugin (once per process) and builds the model with it. Throws config::ConfigError, naming
 * the file and the fix, when the plugin cannot be loaded. */
std::unique_ptr<hw::cycle::CycleNic> make_cycle_nic(const platform::Machine& machine,
                                                    const config::Parameters& parameters,
                                                    hw::cycle::ProcessDirectory directory, const std::string& vcd_file,
                                                    const std::string& vcd_pattern);

} // namespace bxisim::runtime
