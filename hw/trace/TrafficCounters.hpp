#pragma once
// Messages and bytes the NIC models put on each class of link, for the run summary: the BXI wire
// between nodes, the PCIe between cores and their NIC, and the NIC's loopback inside a node.
// One set of counters per process (a process runs one simulation); both NIC models count into it.

#include <array>
#include <cstdint>

namespace bxisim::hw
{

enum class LinkClass { Wire, Pcie, Loopback };
constexpr int kLinkClasses = 3;

/** "wire", "pcie" or "loopback". */
const char* link_class_name(LinkClass link_class);

struct TrafficCount {
  uint64_t messages = 0;
  uint64_t bytes    = 0;
};

class TrafficCounters
{
 public:
  /** A transfer of `bytes` on a link of class `link_class`; `messages`: 0 for a chunk that does not end one. */
  static void count(LinkClass link_class, uint64_t bytes, uint64_t messages = 1)
  {
    auto& entry = counts_[static_cast<int>(link_class)];
    entry.messages += messages;
    entry.bytes += bytes;
  }
  /** (Part of) a frame between the NICs of nodes `from` and `to`: the wire, or the loopback when they are one. */
  static void count_frame(int from, int to, uint64_t bytes, uint64_t messages = 1)
  {
    count(from == to ? LinkClass::Loopback : LinkClass::Wire, bytes, messages);
  }
  static const TrafficCount& of(LinkClass link_class) { return counts_[static_cast<int>(link_class)]; }

 private:
  static std::array<TrafficCount, kLinkClasses> counts_;
};

} // namespace bxisim::hw
