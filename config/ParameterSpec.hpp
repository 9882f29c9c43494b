#pragma once
// One row of the parameter table: everything the parser, the validator, `bxisim params` and
// docs/parameters.md need to know about a parameter.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bxisim::config
{

enum class ParameterType {
  Integer,   // a count
  Real,      // a plain number
  Bandwidth, // bytes per second, SimGrid units accepted ("12.5GBps", "100Gbps")
  Duration,  // seconds, SimGrid units accepted ("500ns", "1.5us")
  Speed,     // flop per second, SimGrid units accepted ("10Gf")
  Size,      // bytes, SimGrid units accepted ("64KiB")
  Boolean,
  Choice, // one of a fixed list of words
  Text,
  Path,
};

struct Bound {
  double value;
  bool inclusive;
};

struct ParameterSpec {
  std::string_view name;
  ParameterType type;
  std::string_view unit;
  std::string_view default_value;
  std::string_view meaning;
  std::string_view source;
  std::vector<std::string_view> choices = {};
  std::optional<Bound> minimum          = std::nullopt;
};

std::string_view type_name(ParameterType type);

/** The single table of bxisim parameters, in display order. */
const std::vector<ParameterSpec>& parameter_table();

/** The row for `name`, or nullptr. */
const ParameterSpec* find_parameter(std::string_view name);

} // namespace bxisim::config
