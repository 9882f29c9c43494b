#pragma once
// Faults of the network (issue 8, "faults with nothing lost"): links down during given intervals
// (`--fault link=NAME,down=T1[,up=T2]`, or a SimGrid state profile file per link) and random frame
// losses on every BXI link (`fault.loss_rate`, seeded by `fault.seed`). The NIC models ask, for each
// frame that crossed the network, whether it was lost; their E2E engines then send it again.
//
// Why not SimGrid's own link states: turning a link off fails the communications crossing it in both
// actors, which would kill the NIC's permanent receivers and lose the frame's identity. Deciding the
// loss here keeps the frame (and its E2E context) in the NIC model's hands, and the decision does not
// depend on the order of draws: it is a hash of (seed, frame, link), so a run is reproducible for a
// fixed seed whatever else changes in the schedule.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace simgrid::s4u
{
class Link;
}

namespace bxisim::config
{
class Parameters;
}

namespace bxisim::platform
{

/** One link (as the user named it) down from `down` to `up` seconds of simulated time. */
struct LinkOutage {
  std::string link;
  double down;
  double up; // infinity: never comes back
};

/** What the user asked for, checked for syntax; links are resolved against a platform later. */
struct FaultSpec {
  double loss_rate = 0; // probability that a frame is lost on one BXI link it crosses
  uint64_t seed    = 1;
  std::vector<LinkOutage> outages;

  /** From fault.loss_rate, fault.seed and fault.links. Throws config::ConfigError naming the fix. */
  static FaultSpec from_parameters(const config::Parameters& parameters);
  /** Parses one `--fault` value (`link=NAME,down=T1[,up=T2]` or `link=NAME,profile=FILE`). */
  static std::vector<LinkOutage> parse_fault(const std::string& text, const std::string& origin);
  bool any() const { return loss_rate > 0 || not outages.empty(); }
};

/** What both NIC models say when a frame is lost and, E2E being off, nothing will send it again. */
std::string lost_for_good_message(uint64_t frame, const char* kind, uint64_t operation, int from, int to, double time,
                                  const std::string& why);

class WireFaults
{
 public:
  WireFaults() = default;
  /** Resolves the links of `spec` in the current SimGrid engine: throws config::ConfigError for an
   * unknown link name (a split-duplex link may be named as a whole or by its _UP/_DOWN half). */
  explicit WireFaults(const FaultSpec& spec);

  bool any() const { return loss_rate_ > 0 || not down_.empty(); }

  /**
   * Why frame number `frame` (1-based, in sending order), which crossed `links` from `sent` to
   * `arrived` seconds, was lost: a link down at some moment of that interval, or a random loss on one
   * of the links (only when `wire`: the NIC's loopback is not a BXI link). Empty: it arrived.
   */
  std::string loss(const std::vector<simgrid::s4u::Link*>& links, uint64_t frame, double sent, double arrived,
                   bool wire) const;

 private:
  double loss_rate_ = 0;
  uint64_t seed_    = 1;
  std::map<const simgrid::s4u::Link*, std::vector<std::pair<double, double>>> down_;
};

} // namespace bxisim::platform
