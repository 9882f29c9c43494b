#pragma once
// The values of every parameter of one run: defaults from the table, then the TOML file, then
// `--set key=value` overrides, in that order. Every value is checked against its table row when set.

#include "ParameterSpec.hpp"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <variant>

namespace bxisim::config
{

using ParameterValue = std::variant<bool, long long, double, std::string>;

class Parameters
{
 public:
  /** Every parameter at its default value. */
  static Parameters defaults();

  /** Reads a TOML file; tables nest keys (`[pcie] bus_latency = "250ns"` sets pcie.bus_latency). */
  void load_toml_file(const std::string& path);
  /** Parses TOML text; `origin` names it in error messages. */
  void load_toml_text(std::string_view text, const std::string& origin);
  /** Applies one `key=value` assignment, as given to --set. */
  void apply_assignment(std::string_view assignment);
  /** Sets `key` from its textual form. */
  void set(std::string_view key, std::string_view text, std::string_view origin = "--set");

  long long integer(std::string_view key) const;
  double real(std::string_view key) const; // also bandwidths, durations, speeds and sizes, in SI base units
  bool boolean(std::string_view key) const;
  const std::string& text(std::string_view key) const; // text, path and choice parameters
  /** A text parameter holding frame numbers, "1,5": the set of them (empty text: none). */
  std::set<uint64_t> frame_numbers(std::string_view key) const;

  /** The value as a user would write it back (units in SI base form). */
  std::string display(std::string_view key) const;
  /** Where the value comes from: "default", "FILE.toml:LINE", "--set", or the option that set it ("--platform"). */
  const std::string& origin(std::string_view key) const;

 private:
  const ParameterSpec& spec_or_throw(std::string_view key, std::string_view origin) const;
  const ParameterValue& value_of(std::string_view key) const;

  std::map<std::string, ParameterValue, std::less<>> values_;
  std::map<std::string, std::string, std::less<>> origins_;
};

/** Parses `text` as a value of the parameter `spec`, checking its type and bounds. */
ParameterValue parse_parameter_value(const ParameterSpec& spec, std::string_view text, std::string_view origin);

} // namespace bxisim::config
