// Fuzz target: a TOML file of parameters (--config). Any input must load or be refused with a
// ConfigError (exit code 2 in bxisim); any other exception, a crash or a hang is a finding.
#include "config/ConfigError.hpp"
#include "config/Parameters.hpp"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  auto parameters = bxisim::config::Parameters::defaults();
  try {
    parameters.load_toml_text(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.toml");
  } catch (const bxisim::config::ConfigError&) {
  }
  return 0;
}
