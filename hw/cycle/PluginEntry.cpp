// The one symbol `bxisim run` looks up in libbxisim-nic-cycle.so (see CycleNic.hpp).

#include "CycleNicModel.hpp"

#include <type_traits>

using bxisim::hw::cycle::CycleNic;
using bxisim::hw::cycle::CycleNicModel;
using bxisim::hw::cycle::ProcessDirectory;

extern "C" CycleNic* bxisim_make_cycle_nic(const bxisim::platform::Machine& machine,
                                           const bxisim::config::Parameters& parameters, ProcessDirectory directory,
                                           const std::string& vcd_file, const std::string& vcd_pattern)
{
  return new CycleNicModel(machine, parameters, std::move(directory), vcd_file, vcd_pattern);
}

static_assert(std::is_same_v<decltype(&bxisim_make_cycle_nic), bxisim::hw::cycle::MakeCycleNic>,
              "the plugin's entry point has the type the runtime calls it with");
