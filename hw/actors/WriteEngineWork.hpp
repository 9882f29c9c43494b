#pragma once
// The work of a NIC's DMA write engine, which writes arriving payloads to memory at the PCIe's rate,
// packets in their order of arrival, whichever payload they belong to (thesis figure 4.10: a payload
// streams to memory while its frame arrives). A payload is in memory one PCIe packet after its last
// wire packet unless the engine is behind: when the payloads that have arrived, each from its first
// packet, need longer at the PCIe's rate than they took to arrive (payloads from the loopback and the
// wire at once, or a PCIe slower than the link). Both NIC models ask it when a payload is written.
//
// Frames reach the engine when their last packet arrives, not their first: a small frame that came in
// during a large one's stream is given first, yet the large one's bytes were there before. The work is
// therefore counted in the order of first packets (a fluid queue served at the PCIe's rate), over the
// last payloads: a frame still arriving may have started before any of them, so none is forgotten for
// being done, only for being old.

#include <algorithm>
#include <cstddef>
#include <deque>
#include <utility>

namespace bxisim::hw
{

template <class Time>
class WriteEngineWork
{
 public:
  /** When the engine has written a payload whose first packet left its sender at `first_packet` and
   *  whose write takes `occupy` at the PCIe's rate, and everything given before it. */
  Time done_with(Time first_packet, Time occupy)
  {
    auto at = std::upper_bound(work_.begin(), work_.end(), first_packet,
                               [](const Time& t, const std::pair<Time, Time>& entry) { return t < entry.first; });
    work_.insert(at, {first_packet, occupy});
    if (work_.size() > kRemembered)
      work_.pop_front();
    Time done{};
    for (const auto& [start, busy] : work_)
      done = std::max(done, start) + busy;
    return done;
  }

 private:
  static constexpr std::size_t kRemembered = 64;
  std::deque<std::pair<Time, Time>> work_; // (first packet, write time), by first packet
};

} // namespace bxisim::hw
