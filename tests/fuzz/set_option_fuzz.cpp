// Fuzz target: `--set key=value` assignments, one per line of the input, as the command line gives
// them. Each must apply or be refused with a ConfigError.
#include "config/ConfigError.hpp"
#include "config/Parameters.hpp"

#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  auto parameters = bxisim::config::Parameters::defaults();
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data), size));
  std::string line;
  while (std::getline(lines, line)) {
    try {
      parameters.apply_assignment(line);
    } catch (const bxisim::config::ConfigError&) {
    }
  }
  return 0;
}
