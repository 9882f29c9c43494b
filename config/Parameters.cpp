#include "Parameters.hpp"

#include "ConfigError.hpp"
#include "Spelling.hpp"

#include <fmt/format.h>
#include <simgrid/Exception.hpp>
#include <toml++/toml.h>

#include <boost/algorithm/string/classification.hpp>
#include <boost/algorithm/string/split.hpp>
#include <xbt/parse_units.hpp>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace bxisim::config
{

namespace
{

std::vector<std::string_view> all_names()
{
  std::vector<std::string_view> names;
  for (const auto& spec : parameter_table())
    names.push_back(spec.name);
  return names;
}

std::string example_of(const ParameterSpec& spec)
{
  switch (spec.type) {
  case ParameterType::Integer:
    return "an integer such as 4";
  case ParameterType::Real:
    return "a number such as 0.5";
  case ParameterType::Bandwidth:
    return "a bandwidth such as 12.5GBps or 100Gbps";
  case ParameterType::Duration:
    return "a duration such as 500ns or 1.5us";
  case ParameterType::Speed:
    return "a speed such as 10Gf";
  case ParameterType::Size:
    return "a size such as 64KiB";
  case ParameterType::Boolean:
    return "true or false";
  case ParameterType::Choice:
    return fmt::format("one of {}", fmt::join(spec.choices, ", "));
  default:
    return "a text";
  }
}

[[noreturn]] void bad_value(const ParameterSpec& spec, std::string_view text, std::string_view origin,
                            const std::string& why, const std::string& suggestion = "")
{
  throw ConfigError(fmt::format("{}: bad value '{}' for parameter '{}': {}. Expected {}.{}", origin, text, spec.name,
                                why, example_of(spec), suggestion));
}

double parse_quantity(const ParameterSpec& spec, std::string_view text, std::string_view origin)
{
  std::string value(text);
  try {
    switch (spec.type) {
    case ParameterType::Bandwidth:
      return xbt_parse_get_bandwidth(std::string(origin), 0, value, "");
    case ParameterType::Duration:
      return xbt_parse_get_time(std::string(origin), 0, value, "");
    case ParameterType::Speed:
      return xbt_parse_get_speed(std::string(origin), 0, value, "");
    case ParameterType::Size:
      return xbt_parse_get_size(std::string(origin), 0, value, "");
    default:
      break;
    }
  } catch (const simgrid::ParseError& error) {
    std::string why = error.what();
    auto pos        = why.find("unknown unit");
    bad_value(spec, text, origin, pos == std::string::npos ? "not a number" : why.substr(pos));
  }
  bad_value(spec, text, origin, "not a quantity");
}

void check_minimum(const ParameterSpec& spec, double value, std::string_view text, std::string_view origin)
{
  if (not std::isfinite(value))
    bad_value(spec, text, origin, "not a finite number");
  if (not spec.minimum)
    return;
  const Bound& bound = *spec.minimum;
  bool ok            = bound.inclusive ? value >= bound.value : value > bound.value;
  if (not ok)
    bad_value(spec, text, origin,
              fmt::format("it must be {} {}{}", bound.inclusive ? "at least" : "greater than", bound.value,
                          spec.unit.empty() ? "" : fmt::format(" {}", spec.unit)));
}

} // namespace

ParameterValue parse_parameter_value(const ParameterSpec& spec, std::string_view text, std::string_view origin)
{
  switch (spec.type) {
  case ParameterType::Integer: {
    long long value   = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size())
      bad_value(spec, text, origin, "not an integer");
    check_minimum(spec, static_cast<double>(value), text, origin);
    return value;
  }
  case ParameterType::Real: {
    std::string copy(text);
    char* end    = nullptr;
    double value = std::strtod(copy.c_str(), &end);
    if (copy.empty() || *end != '\0')
      bad_value(spec, text, origin, "not a number");
    check_minimum(spec, value, text, origin);
    return value;
  }
  case ParameterType::Bandwidth:
  case ParameterType::Duration:
  case ParameterType::Speed:
  case ParameterType::Size: {
    double value = parse_quantity(spec, text, origin);
    check_minimum(spec, value, text, origin);
    return value;
  }
  case ParameterType::Boolean:
    if (text == "true" || text == "yes" || text == "on" || text == "1")
      return true;
    if (text == "false" || text == "no" || text == "off" || text == "0")
      return false;
    bad_value(spec, text, origin, "not a boolean");
  case ParameterType::Choice:
    for (auto choice : spec.choices)
      if (choice == text)
        return std::string(text);
    bad_value(spec, text, origin, "not one of its values", did_you_mean(text, spec.choices));
  case ParameterType::Text:
  case ParameterType::Path:
    return std::string(text);
  }
  bad_value(spec, text, origin, "unsupported parameter type");
}

Parameters Parameters::defaults()
{
  Parameters parameters;
  for (const auto& spec : parameter_table()) {
    parameters.values_[std::string(spec.name)]  = parse_parameter_value(spec, spec.default_value, "default");
    parameters.origins_[std::string(spec.name)] = "default";
  }
  return parameters;
}

const ParameterSpec& Parameters::spec_or_throw(std::string_view key, std::string_view origin) const
{
  const ParameterSpec* spec = find_parameter(key);
  if (spec == nullptr)
    throw ConfigError(fmt::format("{}: unknown parameter '{}'.{} Run `bxisim params` for the list.", origin, key,
                                  did_you_mean(key, all_names())));
  return *spec;
}

void Parameters::set(std::string_view key, std::string_view text, std::string_view origin)
{
  const ParameterSpec& spec        = spec_or_throw(key, origin);
  values_[std::string(spec.name)]  = parse_parameter_value(spec, text, origin);
  origins_[std::string(spec.name)] = std::string(origin);
}

const std::string& Parameters::origin(std::string_view key) const
{
  value_of(key); // a key outside the table is a bug
  return origins_.find(key)->second;
}

void Parameters::apply_assignment(std::string_view assignment)
{
  auto equal = assignment.find('=');
  if (equal == std::string_view::npos || equal == 0)
    throw ConfigError(
        fmt::format("--set '{}': expected key=value, for example --set bxi.link_latency=400ns.", assignment));
  set(assignment.substr(0, equal), assignment.substr(equal + 1), "--set");
}

namespace
{
void flatten_toml(const toml::table& table, const std::string& prefix, Parameters& parameters,
                  const std::string& origin)
{
  for (const auto& [raw_key, node] : table) {
    std::string key    = prefix.empty() ? std::string(raw_key.str()) : prefix + "." + std::string(raw_key.str());
    const auto& source = node.source().begin;
    std::string where  = fmt::format("{}:{}", origin, source.line);
    if (const auto* sub_table = node.as_table()) {
      flatten_toml(*sub_table, key, parameters, origin);
      continue;
    }
    std::string text;
    if (const auto* string_value = node.as_string())
      text = string_value->get();
    else if (const auto* integer_value = node.as_integer())
      text = std::to_string(integer_value->get());
    else if (const auto* float_value = node.as_floating_point())
      text = fmt::format("{}", float_value->get());
    else if (const auto* boolean_value = node.as_boolean())
      text = boolean_value->get() ? "true" : "false";
    else
      throw ConfigError(fmt::format("{}: parameter '{}' has a TOML type bxisim does not use (arrays, dates): "
                                    "write a string, a number or a boolean.",
                                    where, key));
    parameters.set(key, text, where);
  }
}
} // namespace

void Parameters::load_toml_text(std::string_view text, const std::string& origin)
{
  toml::table table;
  try {
    table = toml::parse(text, origin);
  } catch (const toml::parse_error& error) {
    const auto& where = error.source().begin;
    throw ConfigError(
        fmt::format("{}:{}:{}: not valid TOML: {}.", origin, where.line, where.column, error.description()));
  }
  flatten_toml(table, "", *this, origin);
}

void Parameters::load_toml_file(const std::string& path)
{
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw ConfigError(fmt::format("--config '{}': is a directory. Give the path of a TOML file of parameters (`bxisim "
                                  "params` lists the keys).",
                                  path));
  std::ifstream input(path);
  if (not input)
    throw ConfigError(fmt::format("--config '{}': cannot read this file ({}). Give the path of a TOML file of "
                                  "parameters (`bxisim params` lists the keys).",
                                  path, std::strerror(errno)));
  std::stringstream content;
  content << input.rdbuf();
  load_toml_text(content.str(), path);
}

const ParameterValue& Parameters::value_of(std::string_view key) const
{
  auto it = values_.find(key);
  if (it == values_.end())
    throw std::logic_error(fmt::format("bxisim bug: parameter '{}' is not in the parameter table", key));
  return it->second;
}

long long Parameters::integer(std::string_view key) const
{
  return std::get<long long>(value_of(key));
}

double Parameters::real(std::string_view key) const
{
  return std::get<double>(value_of(key));
}

bool Parameters::boolean(std::string_view key) const
{
  return std::get<bool>(value_of(key));
}

const std::string& Parameters::text(std::string_view key) const
{
  return std::get<std::string>(value_of(key));
}

std::set<uint64_t> Parameters::frame_numbers(std::string_view key) const
{
  const std::string& list = text(key);
  std::set<uint64_t> frames;
  if (list.empty())
    return frames;
  std::vector<std::string> items;
  boost::split(items, list, boost::is_any_of(","));
  for (const auto& item : items) {
    try {
      size_t used     = 0;
      long long frame = std::stoll(item, &used);
      if (used != item.size() || frame < 1)
        throw std::invalid_argument(item);
      frames.insert(static_cast<uint64_t>(frame));
    } catch (const std::exception&) {
      throw ConfigError(fmt::format("parameter '{}' = '{}': '{}' is not a frame number; give positive integers "
                                    "separated by commas, e.g. 1,5.",
                                    key, list, item));
    }
  }
  return frames;
}

std::string Parameters::display(std::string_view key) const
{
  const ParameterSpec* spec = find_parameter(key);
  const auto& value         = value_of(key);
  return std::visit(
      [spec](const auto& v) -> std::string {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, bool>)
          return v ? "true" : "false";
        else if constexpr (std::is_same_v<V, std::string>)
          return v;
        else if constexpr (std::is_same_v<V, double>)
          return fmt::format("{:g}{}", v, spec->unit == "B/s" ? "Bps" : spec->unit == "flop/s" ? "f" : spec->unit);
        else
          return std::to_string(v);
      },
      value);
}

} // namespace bxisim::config
