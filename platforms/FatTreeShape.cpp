#include "FatTreeShape.hpp"

#include "config/ConfigError.hpp"

#include <boost/algorithm/string.hpp>
#include <fmt/format.h>

#include <charconv>
#include <numeric>

namespace bxisim::platform
{

namespace
{
std::vector<unsigned> parse_counts(const std::string& field, const char* what, unsigned levels,
                                   const std::string& notation, const std::string& key)
{
  std::vector<std::string> items;
  boost::split(items, field, boost::is_any_of(","));
  if (items.size() != levels)
    throw config::ConfigError(
        fmt::format("parameter '{}' = '{}': the {} list has {} values but the tree has {} levels; "
                    "give one value per level, as in 2;4,4;1,2;1,2.",
                    key, notation, what, items.size(), levels));
  std::vector<unsigned> counts;
  for (const auto& item : items) {
    unsigned value    = 0;
    auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (error != std::errc() || end != item.data() + item.size() || value == 0)
      throw config::ConfigError(fmt::format("parameter '{}' = '{}': '{}' in the {} list is not a positive integer.",
                                            key, notation, item, what));
    counts.push_back(value);
  }
  return counts;
}
} // namespace

FatTreeShape FatTreeShape::parse(const std::string& notation, const std::string& key)
{
  std::vector<std::string> fields;
  boost::split(fields, notation, boost::is_any_of(";"));
  if (fields.size() != 4)
    throw config::ConfigError(fmt::format("parameter '{}' = '{}': a fat-tree is written levels;down;up;link-count, "
                                          "for example 2;4,4;1,2;1,2 (16 nodes, 2 switch levels).",
                                          key, notation));
  FatTreeShape shape;
  auto [end, error] = std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), shape.levels);
  if (error != std::errc() || end != fields[0].data() + fields[0].size() || shape.levels == 0)
    throw config::ConfigError(fmt::format("parameter '{}' = '{}': the number of levels '{}' is not a positive integer.",
                                          key, notation, fields[0]));
  shape.down  = parse_counts(fields[1], "down", shape.levels, notation, key);
  shape.up    = parse_counts(fields[2], "up", shape.levels, notation, key);
  shape.links = parse_counts(fields[3], "link-count", shape.levels, notation, key);
  return shape;
}

unsigned FatTreeShape::leaf_count() const
{
  return std::accumulate(down.begin(), down.end(), 1U, std::multiplies<>());
}

std::string FatTreeShape::notation() const
{
  return fmt::format("{};{};{};{}", levels, fmt::join(down, ","), fmt::join(up, ","), fmt::join(links, ","));
}

} // namespace bxisim::platform
