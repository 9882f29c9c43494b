#pragma once
// What the rest of bxisim sees of the `cycle` NIC model, without SystemC. The model itself
// (CycleNicModel and its SystemC modules) is built into a plugin, libbxisim-nic-cycle.so, that
// `bxisim run` loads only when a run or one of its regions asks for the cycle level: loading
// libsystemc costs every process about 25 ms and 3 MiB (its static temporary heap is allocated
// and cleared at load), which runs at the smpi and message levels would otherwise pay.

#include "hw/trace/OperationTrace.hpp"
#include "portals/core/NicModel.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace simgrid::s4u
{
class Host;
}
namespace bxisim::config
{
class Parameters;
}
namespace bxisim::platform
{
class Machine;
}

namespace bxisim::hw::cycle
{

/** Finds the core host of a simulated process, by its id or its physical address. */
struct ProcessDirectory {
  std::function<simgrid::s4u::Host*(uint32_t process_id)> core_of_process;
  std::function<simgrid::s4u::Host*(ptl_nid_t nid, ptl_pid_t pid)> core_of_address;
};

/** Counters of one run, summed over the NICs. */
struct CycleNicStatistics {
  uint64_t commands = 0, frames_sent = 0, chunks_sent = 0, credit_stalls = 0, flow_stalls = 0;
  double credit_stalled_seconds = 0, flow_stalled_seconds = 0;
  uint64_t tlb_hits = 0, tlb_misses = 0, headers_matched = 0, retransmissions = 0, bridge_rounds = 0;
  uint64_t command_queue_stalls = 0; // commands posted while the process's queue was full
  uint64_t frames_dropped       = 0; // frames the network lost (nic.drop_frames, faults)
};

class CycleNic : public portals::NicModel
{
 public:
  /** Starts the bridge and the NICs' actors (daemons). Call from an actor or before Engine::run. */
  virtual void start() = 0;
  /** After Engine::run: rethrows an error SystemC raised. */
  virtual void check()                          = 0;
  virtual CycleNicStatistics statistics() const = 0;
  /** Records every wire frame and PCIe transfer into `trace` (owned by the caller; the S4BXI CSV, as the
   * message model does) and, when it has stage observers, what each stage did (the timeline). */
  virtual void set_trace(OperationTrace* trace) = 0;
  /** Records the PCIe writes that have finished (they are posted: nobody waits for them). */
  virtual void flush_trace() = 0;
  /** As hw::message::MessageNicModel::set_on_lost_for_good: a frame lost with E2E off. */
  virtual void set_on_lost_for_good(std::function<void(const std::string&)> handler) = 0;
};

/** The plugin's entry point, found with dlsym under kMakeCycleNicSymbol: builds every NIC's modules
 * and elaborates SystemC (once per process). Throws config::ConfigError for a bad cycle.* parameter. */
using MakeCycleNic = CycleNic* (*)(const platform::Machine& machine, const config::Parameters& parameters,
                                   ProcessDirectory directory, const std::string& vcd_file,
                                   const std::string& vcd_pattern);
constexpr const char* kMakeCycleNicSymbol = "bxisim_make_cycle_nic";

} // namespace bxisim::hw::cycle
