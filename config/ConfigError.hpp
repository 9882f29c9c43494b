#pragma once
// A mistake in the user's input (command line, TOML file, parameter value, platform description).
// The runtime prints the message and exits with code 2, the conventional code for bad usage.

#include <stdexcept>
#include <string>

namespace bxisim::config
{

class ConfigError : public std::runtime_error
{
 public:
  explicit ConfigError(const std::string& message) : std::runtime_error(message) {}
};

inline constexpr int kUsageExitCode = 2;

} // namespace bxisim::config
