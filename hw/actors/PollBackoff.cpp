#include "PollBackoff.hpp"

#include "config/ConfigError.hpp"
#include "config/Parameters.hpp"

#include <fmt/format.h>

namespace bxisim::hw
{

PollBackoff PollBackoff::from_parameters(const config::Parameters& parameters)
{
  PollBackoff backoff{parameters.real("cpu.poll_delay_min"), parameters.real("cpu.poll_delay_max")};
  if (backoff.min > backoff.max)
    throw config::ConfigError(fmt::format("cpu.poll_delay_min ({} s) exceeds cpu.poll_delay_max ({} s): an empty "
                                          "poll's sleep grows from the first to the second; give a minimum at most "
                                          "the maximum.",
                                          backoff.min, backoff.max));
  return backoff;
}

} // namespace bxisim::hw
