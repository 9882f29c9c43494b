// A SimGrid communication of S bytes between two cores takes exactly the sum of the latencies plus
// S over the bottleneck bandwidth (CM02, no cross-traffic, no TCP window), to the picosecond.
// Expectations are derived here from the parameters, route by route.

#include "TestMachine.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <gtest/gtest.h>
#include <xbt/config.hpp>

#include <algorithm>

namespace sg4 = simgrid::s4u;
using bxisim::test::build_test_machine;

namespace
{
constexpr double kPicosecond     = 1e-12;
const std::vector<double> kSizes = {1, 8, 64, 4096, 65536, 1 << 20, 16 << 20};

// Parameters chosen so that every latency term is distinct and the PCIe bus is the bottleneck.
const std::vector<std::string> kParameters = {
    "platform.topology=fat-tree", "platform.fat_tree=2;2,2;1,2;1,1", "node.cores=2",
    "pcie.bus_bandwidth=9GBps",   "pcie.bus_latency=110ns",          "pcie.transfer_bandwidth=11GBps",
    "pcie.transfer_latency=7ns",  "bxi.link_bandwidth=10GBps",       "bxi.link_latency=333ns"};

/** Times one transfer of each size, one after the other, from `source` to `destination`. */
std::vector<double> time_transfers(sg4::Host* source, sg4::Host* destination)
{
  std::vector<double> durations;
  auto* mailbox = sg4::Mailbox::by_name("timing");
  sg4::Actor::create("receiver", destination, [mailbox] {
    for (size_t i = 0; i < kSizes.size(); ++i)
      mailbox->get_unique<int>();
  });
  sg4::Actor::create("sender", source, [mailbox, &durations] {
    for (double size : kSizes) {
      double start = sg4::Engine::get_clock();
      mailbox->put(new int(0), static_cast<uint64_t>(size));
      durations.push_back(sg4::Engine::get_clock() - start);
    }
  });
  sg4::Engine::get_instance()->run();
  return durations;
}

void expect_transfer_times(const std::vector<double>& durations, double latency, double bandwidth)
{
  ASSERT_EQ(durations.size(), kSizes.size());
  for (size_t i = 0; i < kSizes.size(); ++i)
    EXPECT_NEAR(durations[i], latency + kSizes[i] / bandwidth, kPicosecond) << "size " << kSizes[i];
}
} // namespace

TEST(Timing, TwoCoresOfOneNode)
{
  auto test        = build_test_machine(kParameters);
  const auto& node = test.config.node;
  double latency   = 2 * node.pcie_transfer.latency + 2 * node.pcie_bus.latency;
  double bandwidth = std::min(node.pcie_transfer.bandwidth, node.pcie_bus.bandwidth);
  expect_transfer_times(time_transfers(test.machine.core(0, 0), test.machine.core(0, 1)), latency, bandwidth);
}

TEST(Timing, NeighbourNodesUnderOneLeafSwitch)
{
  auto test        = build_test_machine(kParameters);
  const auto& node = test.config.node;
  double latency   = 2 * node.pcie_transfer.latency + 2 * node.pcie_bus.latency + 2 * test.config.bxi_link.latency;
  double bandwidth = std::min({node.pcie_transfer.bandwidth, node.pcie_bus.bandwidth, test.config.bxi_link.bandwidth});
  expect_transfer_times(time_transfers(test.machine.core(0, 1), test.machine.core(1, 0)), latency, bandwidth);
}

TEST(Timing, OppositeEndsOfTheFatTree)
{
  auto test        = build_test_machine(kParameters);
  const auto& node = test.config.node;
  // Two switch levels: leaf switch, top switch, leaf switch, so four BXI links.
  double latency   = 2 * node.pcie_transfer.latency + 2 * node.pcie_bus.latency + 4 * test.config.bxi_link.latency;
  double bandwidth = std::min({node.pcie_transfer.bandwidth, node.pcie_bus.bandwidth, test.config.bxi_link.bandwidth});
  expect_transfer_times(time_transfers(test.machine.core(0, 0), test.machine.core(3, 1)), latency, bandwidth);
}

TEST(Timing, BxiLinkAsBottleneckAcrossTwoSwitches)
{
  auto test        = build_test_machine({"platform.topology=two-switches", "platform.nodes_per_switch=1",
                                         "bxi.interswitch_bandwidth=3GBps", "bxi.interswitch_latency=1us"});
  const auto& node = test.config.node;
  double latency   = 2 * node.pcie_transfer.latency + 2 * node.pcie_bus.latency + 2 * test.config.bxi_link.latency +
                   test.config.interswitch_link.latency;
  expect_transfer_times(time_transfers(test.machine.core(0, 0), test.machine.core(1, 0)), latency,
                        test.config.interswitch_link.bandwidth);
}

TEST(Timing, ConcurrentTransfersShareTheBusButNotTheTransferCap)
{
  // Two cores of node 0 send at once to two cores of node 1: the bus (shared) is split in two,
  // while each transfer is still capped on its own by the FATPIPE link.
  auto test =
      build_test_machine({"platform.topology=single-switch", "platform.nodes=2", "node.cores=2",
                          "pcie.bus_bandwidth=15GBps", "pcie.transfer_bandwidth=12GBps", "bxi.link_bandwidth=40GBps"});
  const auto& node  = test.config.node;
  const double size = 1e8;
  std::vector<double> durations(2);
  for (int core = 0; core < 2; ++core) {
    auto* mailbox = sg4::Mailbox::by_name("flow" + std::to_string(core));
    sg4::Actor::create("receiver", test.machine.core(1, core), [mailbox] { mailbox->get_unique<int>(); });
    sg4::Actor::create("sender", test.machine.core(0, core), [mailbox, size, &durations, core] {
      mailbox->put(new int(0), static_cast<uint64_t>(size));
      durations[static_cast<size_t>(core)] = sg4::Engine::get_clock();
    });
  }
  sg4::Engine::get_instance()->run();
  double latency = 2 * node.pcie_transfer.latency + 2 * node.pcie_bus.latency + 2 * test.config.bxi_link.latency;
  double share =
      std::min({node.pcie_transfer.bandwidth, node.pcie_bus.bandwidth / 2, test.config.bxi_link.bandwidth / 2});
  for (double duration : durations)
    EXPECT_NEAR(duration, latency + size / share, kPicosecond);
}

TEST(Timing, UserCfgWinsOverBxisimSettings)
{
  auto engine = bxisim::platform::create_engine({{"network/model:LV08", "surf/precision:1e-9"}, {}});
  EXPECT_EQ(simgrid::config::get_value<std::string>("network/model"), "LV08");
  EXPECT_EQ(simgrid::config::get_value<double>("surf/precision"), 1e-9);
  EXPECT_EQ(simgrid::config::get_value<bool>("network/crosstraffic"), false); // bxisim's, not overridden
}
