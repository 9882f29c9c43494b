// The links crossed between two cores, for each kind of route of DESIGN.md section 3.

#include "TestMachine.hpp"
#include "platforms/Route.hpp"

#include <gtest/gtest.h>

using bxisim::platform::Route;
using bxisim::test::build_test_machine;

namespace
{
std::vector<std::string> names_of(const Route& route)
{
  std::vector<std::string> names;
  for (const auto* link : route.links)
    names.push_back(link->get_name());
  return names;
}
} // namespace

TEST(Routes, TwoCoresOfOneNodeGoThroughTheNic)
{
  auto test  = build_test_machine({"platform.topology=single-switch", "platform.nodes=2", "node.cores=4"});
  auto route = Route::between(test.machine.core(1, 0), test.machine.core(1, 3));
  std::vector<std::string> expected = {"node1-pcie-xfer-up", "node1-pcie-bus-up", "node1-pcie-bus-down",
                                       "node1-pcie-xfer-down"};
  EXPECT_EQ(names_of(route), expected);
}

TEST(Routes, CoreToItsNicCrossesThePcieOnce)
{
  auto test                     = build_test_machine({"platform.topology=single-switch", "platform.nodes=2"});
  const auto& node              = test.machine.nodes()[0];
  std::vector<std::string> up   = {"node0-pcie-xfer-up", "node0-pcie-bus-up"};
  std::vector<std::string> down = {"node0-pcie-bus-down", "node0-pcie-xfer-down"};
  EXPECT_EQ(names_of(Route::between(node.cores[2], node.nic)), up);
  EXPECT_EQ(names_of(Route::between(node.nic, node.cores[2])), down);
}

TEST(Routes, NicToItselfTakesItsLoopback)
{
  // Traffic between processes of one node turns round inside the NIC, off the BXI wire; in every
  // topology with the node model.
  for (const std::string topology : {"single-switch", "two-switches", "fat-tree"}) {
    auto test = build_test_machine(
        {"platform.topology=" + topology, "bxi.loopback_bandwidth=20GBps", "bxi.loopback_latency=30ns"});
    for (const auto& node : test.machine.nodes()) {
      auto route = Route::between(node.nic, node.nic);
      EXPECT_EQ(names_of(route), std::vector<std::string>{node.name + "-nic-loopback"}) << topology;
      EXPECT_DOUBLE_EQ(route.latency, 30e-9);
      EXPECT_DOUBLE_EQ(route.bottleneck, 20e9);
      EXPECT_EQ(route.links.at(0)->get_sharing_policy(), simgrid::s4u::Link::SharingPolicy::SHARED);
    }
  }
}

TEST(Routes, TwoNodesOnOneSwitch)
{
  auto test                         = build_test_machine({"platform.topology=single-switch", "platform.nodes=3"});
  auto route                        = Route::between(test.machine.core(0, 1), test.machine.core(2, 5));
  std::vector<std::string> expected = {"node0-pcie-xfer-up", "node0-pcie-bus-up",   "node0-bxi_UP",
                                       "node2-bxi_DOWN",     "node2-pcie-bus-down", "node2-pcie-xfer-down"};
  EXPECT_EQ(names_of(route), expected);
}

TEST(Routes, TwoSwitchesShareTheInterSwitchLinkOnlyAcross)
{
  auto test   = build_test_machine({"platform.topology=two-switches", "platform.nodes_per_switch=2"});
  auto across = Route::between(test.machine.core(0, 0), test.machine.core(3, 0));
  std::vector<std::string> expected = {"node0-pcie-xfer-up",  "node0-pcie-bus-up", "node0-bxi_UP",
                                       "interswitch_UP",      "node3-bxi_DOWN",    "node3-pcie-bus-down",
                                       "node3-pcie-xfer-down"};
  EXPECT_EQ(names_of(across), expected);
  auto back = Route::between(test.machine.core(3, 0), test.machine.core(0, 0));
  EXPECT_EQ(names_of(back)[3], "interswitch_DOWN");
  auto same_side = Route::between(test.machine.core(2, 0), test.machine.core(3, 0));
  for (const auto& name : names_of(same_side))
    EXPECT_EQ(name.find("interswitch"), std::string::npos) << name;
}

TEST(Routes, OppositeEndsOfAThreeLevelFatTree)
{
  // 3 switch levels, 2 children per switch: 8 nodes; the first and last meet only at the top.
  auto test = build_test_machine({"platform.fat_tree=3;2,2,2;1,2,2;1,1,1", "node.cores=2"});
  ASSERT_EQ(test.machine.nodes().size(), 8U);
  auto route = Route::between(test.machine.core(0, 0), test.machine.core(7, 1));
  auto names = names_of(route);
  ASSERT_EQ(names.size(), 2U + 6U + 2U); // PCIe up, 3 tree links up and 3 down, PCIe down
  EXPECT_EQ(names[0], "node0-pcie-xfer-up");
  EXPECT_EQ(names[1], "node0-pcie-bus-up");
  for (size_t i = 2; i < 5; ++i)
    EXPECT_EQ(names[i].substr(names[i].size() - 3), "_UP") << names[i];
  for (size_t i = 5; i < 8; ++i)
    EXPECT_EQ(names[i].substr(names[i].size() - 5), "_DOWN") << names[i];
  EXPECT_EQ(names[8], "node7-pcie-bus-down");
  EXPECT_EQ(names[9], "node7-pcie-xfer-down");
  for (size_t i = 2; i < 8; ++i) {
    EXPECT_DOUBLE_EQ(route.links[i]->get_bandwidth(), test.config.bxi_link.bandwidth);
    EXPECT_DOUBLE_EQ(route.links[i]->get_latency(), test.config.bxi_link.latency);
  }
  // Neighbours under the same leaf switch only cross their two BXI links.
  EXPECT_EQ(Route::between(test.machine.core(0, 0), test.machine.core(1, 0)).links.size(), 2U + 2U + 2U);
}

TEST(Routes, XmlPlatformIsLoadedAsIs)
{
  auto path = std::string(BXISIM_SOURCE_DIR) + "/examples/platforms/small-cluster.xml";
  auto test = build_test_machine({"platform.topology=xml", "platform.xml=" + path});
  EXPECT_FALSE(test.machine.has_node_model());
  EXPECT_EQ(test.machine.nodes().size(), 4U);
  auto route = Route::between(test.machine.core(0, 0), test.machine.core(3, 0));
  EXPECT_EQ(route.links.size(), 3U);
}
