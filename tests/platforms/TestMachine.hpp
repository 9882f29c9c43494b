#pragma once
// Builds a simulated machine from parameter assignments, as `bxisim --set ...` would.

#include "config/Parameters.hpp"
#include "platforms/PlatformConfig.hpp"
#include "platforms/SimulatorSetup.hpp"
#include "platforms/Topologies.hpp"

#include <memory>
#include <string>
#include <vector>

namespace bxisim::test
{

struct TestMachine {
  platform::PlatformConfig config;
  std::unique_ptr<simgrid::s4u::Engine> engine;
  platform::Machine machine;
};

inline TestMachine build_test_machine(const std::vector<std::string>& assignments)
{
  auto parameters = config::Parameters::defaults();
  for (const auto& assignment : assignments)
    parameters.apply_assignment(assignment);
  auto config  = platform::PlatformConfig::from_parameters(parameters);
  auto engine  = platform::create_engine({});
  auto machine = platform::build_machine(config);
  return {config, std::move(engine), std::move(machine)};
}

} // namespace bxisim::test
