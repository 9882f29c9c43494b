#include "WireFaults.hpp"

#include "config/ConfigError.hpp"
#include "config/Parameters.hpp"
#include "config/Spelling.hpp"

#include <fmt/format.h>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/parse_units.hpp>

#include <boost/algorithm/string/split.hpp>
#include <boost/algorithm/string/trim.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

namespace bxisim::platform
{

namespace
{
constexpr double kNever = std::numeric_limits<double>::infinity();

[[noreturn]] void bad_fault(const std::string& origin, const std::string& text, const std::string& why)
{
  throw config::ConfigError(fmt::format("{}: bad fault '{}': {}. Write link=NAME,down=T1[,up=T2] (times such as 10us "
                                        "or 1.5ms; `bxisim platform show` lists the link names) or "
                                        "link=NAME,profile=FILE (a SimGrid state profile: lines 'TIME STATE', 0 for "
                                        "down, 1 for up).",
                                        origin, text, why));
}

/** A simulated time: a number of seconds, or a duration with its unit (10us, 1.5ms). */
double parse_time(const std::string& text, const std::string& origin, const std::string& fault)
{
  char* end     = nullptr;
  double number = std::strtod(text.c_str(), &end);
  if (not text.empty() && *end == '\0') {
    if (not std::isfinite(number) || number < 0)
      bad_fault(origin, fault, fmt::format("'{}' is not a time from 0 on", text));
    return number;
  }
  try {
    double value = xbt_parse_get_time(origin, 0, text, "");
    if (not std::isfinite(value) || value < 0)
      bad_fault(origin, fault, fmt::format("'{}' is not a time from 0 on", text));
    return value;
  } catch (const simgrid::ParseError&) {
    bad_fault(origin, fault, fmt::format("'{}' is not a time", text));
  }
}

/** The down intervals of a SimGrid state profile (lines "TIME STATE"; the link is up before the first). */
std::vector<LinkOutage> read_state_profile(const std::string& link, const std::string& path, const std::string& origin,
                                           const std::string& fault)
{
  std::ifstream in(path);
  if (not in)
    bad_fault(origin, fault, fmt::format("cannot read the profile file '{}'", path));
  std::vector<LinkOutage> outages;
  double last_time = -1;
  bool down        = false;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    boost::algorithm::trim(line);
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream fields(line);
    std::string time_text, state_text, extra;
    fields >> time_text >> state_text >> extra;
    std::string where = fmt::format("line {} of {}", number, path);
    if (time_text == "LOOPAFTER" || time_text == "PERIODICITY")
      bad_fault(origin, fault,
                fmt::format("{}: periodic profiles ({}) are not supported; write the intervals out", where, time_text));
    if (state_text.empty() || not extra.empty())
      bad_fault(origin, fault, fmt::format("{} is '{}', not 'TIME STATE'", where, line));
    double time = parse_time(time_text, origin, fault);
    if (time < last_time)
      bad_fault(origin, fault, fmt::format("{}: times must not decrease", where));
    last_time   = time;
    char* end   = nullptr;
    double good = std::strtod(state_text.c_str(), &end);
    if (*end != '\0' || good < 0)
      bad_fault(origin, fault, fmt::format("{}: the state '{}' is not 0 (down) or 1 (up)", where, state_text));
    if (good == 0 && not down) {
      outages.push_back({link, time, kNever});
      down = true;
    } else if (good > 0 && down) {
      outages.back().up = time;
      down              = false;
    }
  }
  return outages;
}

/** A uniform number in [0, 1) from (seed, frame, link): the same loss whatever the order of draws. */
double uniform(uint64_t seed, uint64_t frame, uint64_t link)
{
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL ^ (frame + 0x632BE59BD9B4E019ULL) * 0xBF58476D1CE4E5B9ULL ^ link;
  // splitmix64's finalizer
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  x = x ^ (x >> 31);
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}
} // namespace

std::vector<LinkOutage> FaultSpec::parse_fault(const std::string& text, const std::string& origin)
{
  std::vector<std::string> fields;
  boost::algorithm::split(fields, text, [](char c) { return c == ','; });
  std::string link, profile;
  std::optional<double> down, up;
  for (const auto& field : fields) {
    auto equal = field.find('=');
    if (equal == std::string::npos)
      bad_fault(origin, text, fmt::format("'{}' is not key=value", field));
    std::string key = field.substr(0, equal), value = field.substr(equal + 1);
    if (value.empty())
      bad_fault(origin, text, fmt::format("'{}' has no value", key));
    if (key == "link")
      link = value;
    else if (key == "down")
      down = parse_time(value, origin, text);
    else if (key == "up")
      up = parse_time(value, origin, text);
    else if (key == "profile")
      profile = value;
    else
      bad_fault(origin, text,
                fmt::format("unknown key '{}'{}", key, config::did_you_mean(key, {"link", "down", "up", "profile"})));
  }
  if (link.empty())
    bad_fault(origin, text, "it names no link");
  if (not profile.empty()) {
    if (down || up)
      bad_fault(origin, text, "give either down=/up= or profile=, not both");
    return read_state_profile(link, profile, origin, text);
  }
  if (not down)
    bad_fault(origin, text, "it says when the link goes down (down=T1)");
  if (up && *up <= *down)
    bad_fault(origin, text, "the link must come up (up=) after it went down (down=)");
  return {{link, *down, up.value_or(kNever)}};
}

FaultSpec FaultSpec::from_parameters(const config::Parameters& parameters)
{
  FaultSpec spec;
  spec.loss_rate = parameters.real("fault.loss_rate");
  if (spec.loss_rate >= 1)
    throw config::ConfigError(fmt::format("fault.loss_rate = {}: a probability of losing a frame on one link must be "
                                          "below 1 (0.01 loses one frame in a hundred per link).",
                                          spec.loss_rate));
  spec.seed                = static_cast<uint64_t>(parameters.integer("fault.seed"));
  const std::string& links = parameters.text("fault.links");
  if (not links.empty()) {
    std::vector<std::string> faults;
    boost::algorithm::split(faults, links, [](char c) { return c == ';'; });
    for (const auto& fault : faults) {
      if (fault.empty())
        continue;
      auto outages = parse_fault(fault, "fault.links");
      spec.outages.insert(spec.outages.end(), outages.begin(), outages.end());
    }
  }
  return spec;
}

WireFaults::WireFaults(const FaultSpec& spec) : loss_rate_(spec.loss_rate), seed_(spec.seed)
{
  auto* engine = simgrid::s4u::Engine::get_instance();
  for (const auto& outage : spec.outages) {
    std::vector<const simgrid::s4u::Link*> links;
    if (auto* whole = engine->link_by_name_or_null(outage.link))
      links.push_back(whole);
    else
      for (const char* half : {"_UP", "_DOWN"})
        if (auto* one_way = engine->link_by_name_or_null(outage.link + half))
          links.push_back(one_way);
    if (links.empty()) {
      std::vector<std::string> names;
      for (const auto* link : engine->get_all_links()) {
        std::string name = link->get_name();
        for (const std::string half : {"_UP", "_DOWN"}) // a split-duplex link is named as a whole too
          if (name.size() > half.size() && name.compare(name.size() - half.size(), half.size(), half) == 0)
            names.push_back(name.substr(0, name.size() - half.size()));
        names.push_back(name);
      }
      std::vector<std::string_view> known(names.begin(), names.end());
      throw config::ConfigError(fmt::format("fault: the platform has no link '{}'.{} `bxisim platform show` (with the "
                                            "same platform settings) lists the links.",
                                            outage.link, config::did_you_mean(outage.link, known)));
    }
    for (const auto* link : links)
      down_[link].emplace_back(outage.down, outage.up);
  }
}

std::string lost_for_good_message(uint64_t frame, const char* kind, uint64_t operation, int from, int to, double time,
                                  const std::string& why)
{
  return fmt::format("frame {} ({} of operation #{}, from node {} to node {}) was lost on the wire at simulated time "
                     "{:.9f} s ({}); with E2E off (nic.e2e=false) nothing sends it again, so the operation can never "
                     "complete. Turn E2E on (--e2e on) to survive losses.",
                     frame, kind, operation, from, to, time, why);
}

std::string WireFaults::loss(const std::vector<simgrid::s4u::Link*>& links, uint64_t frame, double sent, double arrived,
                             bool wire) const
{
  for (size_t i = 0; i < links.size(); ++i) {
    auto it = down_.find(links[i]);
    if (it != down_.end())
      for (const auto& [down, up] : it->second)
        if (down <= arrived && sent < up)
          return fmt::format("link {} is down from {:.9f} s{}", links[i]->get_name(), down,
                             up == kNever ? std::string() : fmt::format(" to {:.9f} s", up));
    if (wire && loss_rate_ > 0 && uniform(seed_, frame, i) < loss_rate_)
      return fmt::format("random loss on link {} (fault.loss_rate {})", links[i]->get_name(), loss_rate_);
  }
  return {};
}

} // namespace bxisim::platform
