#pragma once
// The `cycle` NIC model: a portals::NicModel component whose NICs are SystemC modules (BxiNic), one
// SystemC kernel for all of them, co-simulated with SimGrid through the Bridge. SimGrid carries every
// transfer over its links (PCIe command writes and DMA, BXI wire chunks), so contention is shared
// with the rest of the machine; per NIC host, SimGrid actors do what the SystemC side asks:
//   mmio      receives the CPU's command writes (PCIe) and hands them to the NIC;
//   port      puts the NIC's wire chunks on the network (every byte leaving NIC k is sent by an actor
//             on NIC k's host, so routes are right);
//   wire-rx   takes in the chunks other NICs (or this one, inside a node) sent it, as their transfers
//             end (one sender's chunks on one virtual network in the order sent, as on a link);
//   dma-read  N readers, each waiting for one DMA read of host memory at a time.
// DMA writes to memory are posted: Comm::sendto on the explicit route from the NIC to the core.

#include "Bridge.hpp"
#include "BxiNic.hpp"
#include "CycleNic.hpp"
#include "CycleNicConfig.hpp"

#include "hw/actors/ProcessWaiters.hpp"
#include "hw/actors/WireLanes.hpp"
#include "hw/trace/OperationTrace.hpp"
#include "platforms/Machine.hpp"
#include "platforms/WireFaults.hpp"
#include "portals/core/NicModel.hpp"

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace bxisim::config
{
class Parameters;
}

namespace bxisim::hw::cycle
{

class CycleNicModel : public CycleNic
{
 public:
  /** Builds every NIC's modules and elaborates SystemC: call before Engine::run, once per process.
   * `vcd_file` (without .vcd) turns on a VCD trace of the signals whose name contains `vcd_pattern`. */
  CycleNicModel(const platform::Machine& machine, const config::Parameters& parameters, ProcessDirectory directory,
                const std::string& vcd_file = "", const std::string& vcd_pattern = "");
  ~CycleNicModel() override;

  // CycleNic
  void start() override;
  void check() override;
  CycleNicStatistics statistics() const override;
  void set_trace(OperationTrace* trace) override;
  void flush_trace() override;
  void set_on_lost_for_good(std::function<void(const std::string&)> handler) override
  {
    on_lost_for_good_ = std::move(handler);
  }

  // portals::NicModel
  const char* name() const override { return "cycle"; }
  void submit(std::unique_ptr<portals::Message> message) override;
  portals::WaitStatus wait(const portals::ProcessContext& context, double timeout) override;
  void notify(uint32_t process_id) override;
  void polled(const portals::ProcessContext& context, portals::PollAction action) override;
  double now() const override;

  const CycleNicConfig& config() const { return config_; }
  BxiNic& nic(int node) { return *nics_.at(static_cast<size_t>(node)); }

 private:
  /** Opens `file` (a VCD) before the run starts rather than at SystemC's first time step. */
  static void open_trace_file_now(sc_core::sc_trace_file* file);
  struct Chunk { // what a wire communication carries
    tlm::tlm_generic_payload* frame;
    uint64_t flits;
    bool last;
    double started_at; // when the communication started: its bytes stream in from then
  };
  struct Read {
    tlm::tlm_generic_payload* frame;
    simgrid::s4u::Host* memory;
    uint64_t bytes;
  };
  struct Host { // the SimGrid side of one NIC
    simgrid::s4u::Host* host;
    simgrid::s4u::Mailbox* mmio;
    std::unique_ptr<Arrivals<Chunk>> arrived; // chunks whose transfer ended, for wire-rx
    std::deque<OutboxRequest> sends;
    simgrid::s4u::SemaphorePtr sends_ready;
    std::deque<Read> reads;
    simgrid::s4u::SemaphorePtr reads_ready;
  };

  simgrid::s4u::Host* memory_of(const Operation& operation, bool initiator) const;
  double serialization(simgrid::s4u::Host* from, simgrid::s4u::Host* to, uint64_t bytes);
  void drain();
  void carry_out(OutboxRequest& request);
  void mmio_loop(int node);
  void port_loop(int node);
  void wire_loop(int node);
  void read_loop(int node);

  const platform::Machine& machine_;
  CycleNicConfig config_;
  ProcessDirectory directory_;
  Outbox outbox_;
  FramePool pool_;
  std::vector<std::unique_ptr<BxiNic>> nics_;
  std::vector<Host> hosts_;
  std::unique_ptr<Bridge> bridge_;
  hw::ProcessWaiters waiters_;
  std::map<std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*>, double> bottlenecks_;
  std::vector<simgrid::s4u::CommPtr> writes_; // posted DMA writes, dropped once finished
  WireLanes<Chunk> lanes_;
  std::set<uint64_t> dropped_frames_;
  platform::WireFaults faults_;
  std::function<void(const std::string&)> on_lost_for_good_;
  /** Why the network lost the frame whose last chunk just reached NIC `node` ("": it did not). */
  std::string loss_of(int node, const FrameExtension& frame);
  std::map<std::pair<int, int>, std::vector<simgrid::s4u::Link*>> routes_; // NIC to NIC, computed once
  uint64_t command_queue_stalls_ = 0, frames_dropped_ = 0;
  uint64_t frames_sent_        = 0;
  sc_core::sc_trace_file* vcd_ = nullptr;
  OperationTrace* trace_       = nullptr;
  struct TracedWrite {
    const char* operation;
    int node;
    simgrid::s4u::CommPtr comm;
  };
  std::vector<TracedWrite> traced_writes_; // posted writes not finished yet, for the trace
  bool started_ = false;
};

} // namespace bxisim::hw::cycle
