#pragma once
// Two simulated processes calling the Portals API from SimGrid actors over the message NIC model, on a
// single-switch machine of two nodes, without `bxisim run`: the context provider tells them apart by
// the actor that calls. Placement::TwoNodes puts rank r on core 0 of node r (traffic crosses the BXI
// wire); Placement::OneNode puts rank r on core r of node 0 (traffic turns round in node 0's NIC
// loopback), and a rank may also target itself.

#include "config/Parameters.hpp"
#include "hw/message/MessageNicModel.hpp"
#include "platforms/PlatformConfig.hpp"
#include "platforms/Route.hpp"
#include "platforms/SimulatorSetup.hpp"
#include "platforms/Topologies.hpp"
#include "portals/core/Core.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace bxisim::test
{

enum class Placement { TwoNodes, OneNode };

class MessageNicWorld
{
 public:
  explicit MessageNicWorld(const std::vector<std::string>& assignments, Placement placement = Placement::TwoNodes)
      : placement_(placement)
  {
    auto parameters = config::Parameters::defaults();
    parameters.apply_assignment("platform.topology=single-switch");
    parameters.apply_assignment("platform.nodes=2");
    parameters.apply_assignment("node.cores=2");
    for (const auto& assignment : assignments)
      parameters.apply_assignment(assignment);
    platform_ = platform::PlatformConfig::from_parameters(parameters);
    nic_      = hw::message::MessageNicConfig::from_parameters(parameters);
    // BXISIM_TEST_LOG=bxisim_nic_message.thres:debug turns a category's logs on when debugging a test.
    std::vector<std::string> logs;
    if (const char* log = std::getenv("BXISIM_TEST_LOG"))
      logs.emplace_back(log);
    engine_  = platform::create_engine({{}, logs});
    machine_ = std::make_unique<platform::Machine>(platform::build_machine(platform_));
    model_   = std::make_unique<hw::message::MessageNicModel>(
        *machine_, nic_,
        hw::message::ProcessDirectory{[this](uint32_t id) { return host_of(static_cast<int>(id)); },
                                      [this](ptl_nid_t nid, ptl_pid_t pid) {
                                        return machine_->core(static_cast<int>(nid), placement_ == Placement::OneNode
                                                                                           ? static_cast<int>(pid)
                                                                                           : 0);
                                      }});
    portals::Core::instance().set_context_provider([this] {
      int rank = std::stoi(simgrid::s4u::this_actor::get_name());
      portals::ProcessContext context;
      context.id      = static_cast<uint32_t>(rank);
      context.nid     = address_of(rank).phys.nid;
      context.any_pid = address_of(rank).phys.pid;
      context.nic     = model_.get();
      return context;
    });
    ready_ = simgrid::s4u::Barrier::create(2);
  }

  /** Runs `rank0` and `rank1` where the placement puts them (actor names are the ranks), then the
   * simulation. */
  void run(const std::function<void()>& rank0, const std::function<void()>& rank1)
  {
    model_->start();
    simgrid::s4u::Actor::create("0", host_of(0), rank0);
    simgrid::s4u::Actor::create("1", host_of(1), rank1);
    simgrid::s4u::Engine::get_instance()->run();
  }

  /** Both ranks meet here once set up (takes no simulated time). */
  void ready() { ready_->wait(); }

  /** The physical Portals id of `rank` (its pid is its local rank on the node). */
  ptl_process_t address_of(int rank) const
  {
    bool one_node = placement_ == Placement::OneNode;
    ptl_process_t address;
    address.phys.nid = one_node ? 0 : static_cast<ptl_nid_t>(rank);
    address.phys.pid = one_node ? static_cast<ptl_pid_t>(rank) : 0;
    return address;
  }
  simgrid::s4u::Host* host_of(int rank) const
  {
    return placement_ == Placement::OneNode ? machine_->core(0, rank) : machine_->core(rank, 0);
  }
  Placement placement() const { return placement_; }

  const platform::PlatformConfig& platform() const { return platform_; }
  const hw::message::MessageNicConfig& nic() const { return nic_; }
  const platform::Machine& machine() const { return *machine_; }
  hw::message::MessageNicModel& model() { return *model_; }

 private:
  Placement placement_;
  platform::PlatformConfig platform_{};
  hw::message::MessageNicConfig nic_{};
  std::unique_ptr<simgrid::s4u::Engine> engine_;
  std::unique_ptr<platform::Machine> machine_;
  std::unique_ptr<hw::message::MessageNicModel> model_;
  simgrid::s4u::BarrierPtr ready_;
};

/** The figures expected times are derived from, and the transfer times they give. */
struct MessageNicFigures {
  double pcie_latency = 0, pcie_bandwidth = 0, wire_latency = 0, wire_bandwidth = 0;
  bool loopback = false; // frames go through the NIC's loopback, not the BXI wire
  hw::message::MessageNicConfig nic{};

  MessageNicFigures() = default;
  explicit MessageNicFigures(const MessageNicWorld& world) : nic(world.nic())
  {
    const auto& node = world.platform().node;
    pcie_latency     = node.pcie_transfer.latency + node.pcie_bus.latency; // core -> NIC, either way
    pcie_bandwidth   = std::min(node.pcie_transfer.bandwidth, node.pcie_bus.bandwidth);
    if (world.placement() == Placement::OneNode) { // NIC -> loopback -> the same NIC
      loopback       = true;
      wire_latency   = node.nic_loopback.latency;
      wire_bandwidth = node.nic_loopback.bandwidth;
    } else { // NIC -> switch -> NIC
      wire_latency   = 2 * world.platform().bxi_link.latency;
      wire_bandwidth = world.platform().bxi_link.bandwidth;
    }
  }
  double pcie(double bytes) const { return pcie_latency + bytes / pcie_bandwidth; }
  /** Whole BXI packets cross the wire. */
  double wire(double payload) const
  {
    double packets = payload == 0 ? 1 : std::ceil(payload / static_cast<double>(nic.wire_packet_payload));
    return wire_latency + packets * static_cast<double>(nic.wire_packet) / wire_bandwidth;
  }
  /** Time a frame occupies the wire before the next one of the same NIC may enter it. */
  double serialization(double payload) const { return wire(payload) - wire_latency; }
  /** Time a frame holds its TX: its serialization on the wire; on the loopback, until it is through. */
  double tx_hold(double payload) const { return loopback ? wire(payload) : serialization(payload); }
  /** The receiving NIC raises events once the payload's last PCIe packet is in memory: one packet
   * after arrival, the write being pipelined with the wire (thesis figure 4.10). */
  double deposit(double bytes) const
  {
    return bytes == 0 ? 0.0 : pcie(std::min(bytes, static_cast<double>(nic.pcie_packet)));
  }
  /** The NIC reads a DMA payload: the wire waits for all of it if one PCIe packet, else for the first. */
  double dma_start(double bytes) const { return pcie(std::min(bytes, static_cast<double>(nic.pcie_packet))); }
};

/** A process's Portals set-up: NI, EQ, and (at the target) a PT with one persistent ME. */
struct PortalsEndpoint {
  ptl_handle_ni_t ni;
  ptl_handle_eq_t eq;
  ptl_pt_index_t pt = 0;
  std::vector<unsigned char> memory;

  static PortalsEndpoint open(size_t bytes);
  void expose(ptl_match_bits_t bits);
  /** An MD on the endpoint's memory, or on `start` (`length` bytes) when given. */
  ptl_handle_md_t bind(unsigned char* start = nullptr, size_t length = 0);
  /** Waits for the next event of `type`, skipping others; returns it. */
  ptl_event_t wait_for(ptl_event_kind_t type);
};

} // namespace bxisim::test
