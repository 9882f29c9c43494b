#pragma once
// What an empty poll of a rank costs in simulated time, at both NIC levels: a sleep that doubles from
// cpu.poll_delay_min to cpu.poll_delay_max while the rank's loop finds nothing, ended early by an event
// of the rank (DESIGN.md section 5, "Polling"). With CPU simulation off nothing else advances a polling
// loop's time, so these two figures are the model of a spin, as smpi/test is SMPI's.

#include <algorithm>

namespace bxisim::config
{
class Parameters;
}

namespace bxisim::hw
{

struct PollBackoff {
  double min; // seconds: the first empty poll after an event
  double max; // seconds: what Portals does not announce (a clock, shared memory) is seen at most this late

  /** Reads cpu.poll_delay_min and cpu.poll_delay_max; throws config::ConfigError when min > max. */
  static PollBackoff from_parameters(const config::Parameters& parameters);

  /** The sleep after one of `previous` seconds (0: the loop's first empty poll). */
  double next(double previous) const { return previous == 0.0 ? min : std::min(2 * previous, max); }
};

} // namespace bxisim::hw
