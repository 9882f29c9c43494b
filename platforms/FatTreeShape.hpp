#pragma once
// A fat-tree in SimGrid's notation "levels;down;up;link-count", e.g. "2;4,4;1,2;1,2".

#include <string>
#include <vector>

namespace bxisim::platform
{

struct FatTreeShape {
  unsigned levels = 0;
  std::vector<unsigned> down;  // children of a switch, per level
  std::vector<unsigned> up;    // parents of an element, per level
  std::vector<unsigned> links; // parallel links between two connected elements, per level

  /** Parses and checks the notation; throws config::ConfigError naming `key` on a malformed shape. */
  static FatTreeShape parse(const std::string& notation, const std::string& key);
  /** Number of leaves, that is of nodes. */
  unsigned leaf_count() const;
  std::string notation() const;
};

} // namespace bxisim::platform
