#include "CyclePlugin.hpp"

#include "config/ConfigError.hpp"

#include <fmt/format.h>
#include <xbt/log.h>

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(bxisim_launch);

namespace bxisim::runtime
{

std::string cycle_plugin_path()
{
  const char* chosen = std::getenv("BXISIM_CYCLE_PLUGIN");
  if (chosen != nullptr && *chosen != '\0')
    return chosen;
  std::error_code error;
  auto installed = std::filesystem::read_symlink("/proc/self/exe", error).parent_path().parent_path() /
                   "lib/bxisim/libbxisim-nic-cycle.so";
  if (not error && std::filesystem::exists(installed, error))
    return installed.string();
  return BXISIM_CYCLE_PLUGIN_BUILD_PATH;
}

std::unique_ptr<hw::cycle::CycleNic> make_cycle_nic(const platform::Machine& machine,
                                                    const config::Parameters& parameters,
                                                    hw::cycle::ProcessDirectory directory, const std::string& vcd_file,
                                                    const std::string& vcd_pattern)
{
  static hw::cycle::MakeCycleNic make = nullptr;
  if (make == nullptr) {
    std::string path = cycle_plugin_path();
    // RTLD_NOW: every symbol bound here, before the run, never during a rank's measured computation.
    void* plugin = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (plugin == nullptr)
      throw config::ConfigError(fmt::format(
          "the cycle NIC model cannot be loaded ({}): build it with bxisim (cmake --build <build folder>; the target "
          "is bxisim_nic_cycle_plugin), or point BXISIM_CYCLE_PLUGIN at libbxisim-nic-cycle.so of the same build "
          "as this bxisim.",
          dlerror()));
    make = reinterpret_cast<hw::cycle::MakeCycleNic>(dlsym(plugin, hw::cycle::kMakeCycleNicSymbol));
    if (make == nullptr)
      throw config::ConfigError(fmt::format("{} is not bxisim's cycle NIC plugin (it has no {}): point "
                                            "BXISIM_CYCLE_PLUGIN at libbxisim-nic-cycle.so of this bxisim's build.",
                                            path, hw::cycle::kMakeCycleNicSymbol));
    XBT_VERB("cycle NIC model loaded from %s", path.c_str());
  }
  return std::unique_ptr<hw::cycle::CycleNic>(make(machine, parameters, std::move(directory), vcd_file, vcd_pattern));
}

} // namespace bxisim::runtime
