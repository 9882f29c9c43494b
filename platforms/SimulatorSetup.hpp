#pragma once
// Creates the SimGrid engine with bxisim's settings for exact timings, which the user may override
// with --cfg (later settings win).

#include <simgrid/s4u/Engine.hpp>

#include <memory>
#include <string>
#include <vector>

namespace bxisim::platform
{

struct SimulatorOptions {
  std::vector<std::string> cfg; // SimGrid settings, "key:value"
  std::vector<std::string> log; // SimGrid logging settings, as for --log
  /** SimGrid's own defaults and smpirun's network model (network/model:SMPI) instead of bxisim's exact-timing
   * settings: what --level smpi uses, so that its times are smpirun's. */
  bool smpi_defaults = false;
};

/** The settings of a run at --level smpi, before the user's: smpirun's default network model. */
const std::vector<std::string>& smpi_settings();

/** The settings bxisim gives SimGrid before the user's: see the comments in the definition. */
const std::vector<std::string>& exact_timing_settings();

/**
 * While alive, an abort() inside SimGrid (its xbt_die on a setting or platform it rejects, after
 * printing why) ends the process with the usage exit code and a hint, instead of a core dump.
 */
class SetupAbortGuard
{
 public:
  SetupAbortGuard();
  ~SetupAbortGuard();
  SetupAbortGuard(const SetupAbortGuard&)            = delete;
  SetupAbortGuard& operator=(const SetupAbortGuard&) = delete;
};

/** Creates the (single) engine of this process; throws config::ConfigError on a bad --cfg or --log. */
std::unique_ptr<simgrid::s4u::Engine> create_engine(const SimulatorOptions& options);

/** Every log category --log can name, as a tree (one per line, children indented, with its description). */
std::string log_category_tree();

} // namespace bxisim::platform
