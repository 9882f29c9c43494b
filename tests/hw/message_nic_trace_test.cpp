// --trace-csv: the S4BXI-compatible trace lists each wire frame and PCIe transfer with its times.

#include "MessageNicWorld.hpp"
#include "tests/support/CommandRunner.hpp"

#include <boost/algorithm/string.hpp>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using bxisim::test::MessageNicFigures;
using bxisim::test::MessageNicWorld;
using bxisim::test::Placement;
using bxisim::test::PortalsEndpoint;

namespace
{
struct TraceLine {
  std::string operation;
  int initiator, target;
  double start, end;
};

std::vector<TraceLine> read_trace(const std::string& path)
{
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  EXPECT_EQ(line, "operation_type,initiator_nid,target_nid,start_time,end_time");
  std::vector<TraceLine> lines;
  while (std::getline(file, line)) {
    std::vector<std::string> fields;
    boost::split(fields, line, boost::is_any_of(","));
    EXPECT_EQ(fields.size(), 5U) << line;
    lines.push_back(
        {fields[0], std::stoi(fields[1]), std::stoi(fields[2]), std::stod(fields[3]), std::stod(fields[4])});
  }
  return lines;
}

const TraceLine& find(const std::vector<TraceLine>& lines, const std::string& operation, int initiator)
{
  for (const auto& line : lines)
    if (line.operation == operation && line.initiator == initiator)
      return line;
  ADD_FAILURE() << "no " << operation << " line from node " << initiator;
  static TraceLine none{};
  return none;
}

/** A 64 KiB Put from rank 0 to rank 1, traced: every transfer is listed with the times the model
 * gives (across nodes the frames are on the BXI wire, inside a node on the NIC's loopback). */
void check_traced_put(Placement placement)
{
  const size_t size  = 64 * 1024;
  std::string folder = bxisim::test::temporary_path("trace");
  MessageNicWorld world({}, placement);
  MessageNicFigures f(world);
  const int target = static_cast<int>(world.address_of(1).phys.nid);
  auto trace       = bxisim::hw::OperationTrace::open(folder);
  world.model().set_trace(trace.get());
  world.run(
      [&] {
        auto endpoint = PortalsEndpoint::open(size);
        auto md       = endpoint.bind();
        world.ready();
        EXPECT_EQ(PtlPut(md, 0, size, PTL_ACK_REQ, world.address_of(1), 0, 1, 0, nullptr, 0), PTL_OK);
        endpoint.wait_for(PTL_EVENT_ACK);
        simgrid::s4u::this_actor::sleep_for(50e-6); // background transfers and BXI ACKs end meanwhile
      },
      [&] {
        auto endpoint = PortalsEndpoint::open(size);
        endpoint.expose(1);
        world.ready();
        endpoint.wait_for(PTL_EVENT_PUT);
        simgrid::s4u::this_actor::sleep_for(50e-6);
      });
  world.model().flush_trace();
  trace.reset();
  auto lines = read_trace(folder + "/operations.csv");

  const double picosecond = 1e-12;
  const auto& command     = find(lines, "PCI_COMMAND", 0);
  EXPECT_NEAR(command.end - command.start, f.pcie(f.nic.command_bytes), picosecond);
  const auto& put = find(lines, "PUT", 0);
  EXPECT_EQ(put.target, target);
  EXPECT_NEAR(put.start, command.end + f.dma_start(size), picosecond);
  EXPECT_NEAR(put.end - put.start, f.wire(size), picosecond);
  const auto& read = find(lines, "PCI_DMA_READ", 0);
  EXPECT_NEAR(read.end - read.start, f.pcie(size), picosecond);
  const auto& ack = find(lines, "ACK", target);
  EXPECT_EQ(ack.target, 0);
  EXPECT_NEAR(ack.start, put.end + f.deposit(size), picosecond); // once the last PCIe packet is in memory
  const auto& write = find(lines, "PCI_DMA_WRITE", target);
  EXPECT_NEAR(write.start, put.end + f.deposit(size), picosecond);
  // The event write (64 B) follows the payload write once the payload has left: they do not share the bus.
  EXPECT_NEAR(write.end - write.start, f.pcie(size), picosecond);
  const auto& event = find(lines, "PCI_EVENT", target); // the PUT event's write comes first
  EXPECT_NEAR(event.start, write.start + (f.pcie(size) - f.pcie_latency), picosecond);
  // The initiator's BXI ACK of the Portals ACK closes the exchange.
  EXPECT_EQ(find(lines, "BXI_ACK", 0).target, target);
  if (placement == Placement::OneNode) {
    for (const auto& line : lines)
      EXPECT_TRUE(line.initiator == 0 && line.target == 0) << line.operation << " leaves node 0";
  }
}
} // namespace

TEST(MessageNicTrace, PutOf64KiBListsEveryTransferWithItsTimes)
{
  check_traced_put(Placement::TwoNodes);
}

TEST(MessageNicTrace, PutOf64KiBInsideANodeListsEveryTransferWithItsTimes)
{
  check_traced_put(Placement::OneNode);
}
