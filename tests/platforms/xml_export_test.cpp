// The exported XML is a faithful view: SimGrid loads it back with the same routes.

#include "TestMachine.hpp"
#include "platforms/Route.hpp"
#include "platforms/XmlExport.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gtest/gtest.h>

#include <fstream>

using bxisim::platform::Route;

TEST(XmlExport, RoundTripKeepsEveryRoute)
{
  // One platform per process: the export is reloaded by a second bxisim command and routes compared.
  std::string path = bxisim::test::temporary_path("exported.xml");
  auto exported =
      bxisim::test::run_bxisim("--platform two-switches --set node.cores=2 platform export --xml -o " + path);
  ASSERT_EQ(exported.exit_code, 0) << exported.output;

  const std::string routes =
      "--route node0-core0 node0-core1 --route node0-core1 node3-core0 "
      "--route node4-core1 node1-core0 --route node2-nic node5-core1 --route node3-nic node3-nic";
  auto original =
      bxisim::test::run_bxisim("--platform two-switches --set node.cores=2 platform show --no-links " + routes);
  auto reloaded = bxisim::test::run_bxisim("--platform " + path + " platform show --no-links " + routes);
  ASSERT_EQ(original.exit_code, 0) << original.output;
  ASSERT_EQ(reloaded.exit_code, 0) << reloaded.output;
  auto routes_part = [](const std::string& output) { return output.substr(output.find("Routes:")); };
  // Same links (split-duplex halves keep their names), latencies and bottlenecks.
  EXPECT_EQ(routes_part(original.output), routes_part(reloaded.output));
}

TEST(XmlExport, DeclaresEachLinkOnceWithExactFigures)
{
  auto test = bxisim::test::build_test_machine(
      {"platform.topology=single-switch", "platform.nodes=2", "node.cores=2", "bxi.link_latency=333ns"});
  std::ostringstream xml;
  bxisim::platform::export_simgrid_xml(xml, test.machine);
  const std::string text = xml.str();
  auto count             = [&text](const std::string& needle) {
    size_t n = 0;
    for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count("<link id=\"node0-bxi_UP\""), 1U);
  // The figures read back bit for bit (333ns parses to a double that is not exactly 3.33e-7).
  auto attribute_of = [&text](const std::string& link, const std::string& name) {
    size_t start = text.find(name + "=\"", text.find("<link id=\"" + link + "\"")) + name.size() + 2;
    return std::strtod(text.c_str() + start, nullptr);
  };
  EXPECT_EQ(attribute_of("node1-bxi_DOWN", "latency"), test.config.bxi_link.latency);
  EXPECT_EQ(attribute_of("node1-bxi_DOWN", "bandwidth"), test.config.bxi_link.bandwidth);
  EXPECT_EQ(attribute_of("node0-pcie-bus-up", "latency"), test.config.node.pcie_bus.latency);
  EXPECT_EQ(count("sharing_policy=\"FATPIPE\""), 4U);
  EXPECT_EQ(count("<zoneRoute "), 2U);
  // Per node, every ordered pair of its 3 hosts, and the NIC's loopback.
  EXPECT_EQ(count("<route "), 2U * (3U * 2U + 1U));
  EXPECT_EQ(count("<route src=\"node1-nic\" dst=\"node1-nic\""), 1U);
  EXPECT_EQ(attribute_of("node1-nic-loopback", "bandwidth"), test.config.node.nic_loopback.bandwidth);
}
