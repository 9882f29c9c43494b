// Cross-validation of the two NIC models (issue 9, item 6): with one message in flight, the cycle
// model's Put and Get latencies agree with the message model's within 10% from 1 B to 4 MiB, with
// default parameters, across the fat-tree (--ppn 1) and inside a node (--ppn 2: both models send the
// frames through the NIC's loopback link, nodeK-nic-loopback).
// The Put-NoWait rate at 8 B is where the models must differ: the cycle model is limited by its
// command queue (16 slots per process over the PCIe latency) and, with a deeper queue, by its list
// matching engines (engines / match cycles), asserted here.

#include "config/Parameters.hpp"
#include "tests/support/CommandRunner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

using bxisim::test::run_bxisim;

namespace
{
const std::string kBench = BXISIM_PORTALS_BENCH;
const std::string kSizes = "1 8 64 409 4096 65536 1048576 4194304";

/** size -> seconds per request, from the benchmark's CSV lines. */
std::map<long, double> run_bench(const std::string& level, const std::string& mode, int ppn,
                                 const std::string& extra = "", const std::string& sizes = kSizes, int count = 3)
{
  auto result =
      run_bxisim("run -n 2 --ppn " + std::to_string(ppn) + " --platform fat-tree --no-cpu-simulation --level " + level +
                 " " + extra + " " + kBench + " " + mode + " " + std::to_string(count) + " " + sizes);
  EXPECT_EQ(result.exit_code, 0) << result.output;
  std::map<long, double> times;
  std::istringstream lines(result.output);
  std::string line;
  while (std::getline(lines, line)) {
    auto start = line.find(mode + ",");
    if (start == std::string::npos)
      continue;
    std::istringstream fields(line.substr(start + mode.size() + 1));
    long size;
    char comma;
    double seconds;
    if (fields >> size >> comma >> seconds)
      times[size] = seconds;
  }
  return times;
}

void expect_within_ten_percent(const std::string& mode, int ppn)
{
  auto message = run_bench("message", mode, ppn);
  auto cycle   = run_bench("cycle", mode, ppn);
  ASSERT_EQ(message.size(), 8U);
  ASSERT_EQ(cycle.size(), 8U);
  for (const auto& [size, reference] : message) {
    double relative = std::fabs(cycle.at(size) - reference) / reference;
    EXPECT_LE(relative, 0.10) << mode << " " << size << " B: message " << reference << " s, cycle " << cycle.at(size)
                              << " s";
  }
}
} // namespace

TEST(CycleCrossValidation, PutWithinTenPercentOfMessageAcrossTheFatTree)
{
  expect_within_ten_percent("put-waitack", 1);
}

TEST(CycleCrossValidation, GetWithinTenPercentOfMessageAcrossTheFatTree)
{
  expect_within_ten_percent("get-waitreply", 1);
}

TEST(CycleCrossValidation, PutWithinTenPercentOfMessageInsideANode)
{
  expect_within_ten_percent("put-waitack", 2);
}

TEST(CycleCrossValidation, GetWithinTenPercentOfMessageInsideANode)
{
  expect_within_ten_percent("get-waitreply", 2);
}

TEST(CycleCrossValidation, PutInsideANodeCrossesTheLoopbackInsteadOfTheWire)
{
  auto p      = bxisim::config::Parameters::defaults();
  int count   = 3;
  auto across = run_bench("cycle", "put-waitack", 1, "", "1 4096", count);
  auto inside = run_bench("cycle", "put-waitack", 2, "", "1 4096", count);
  // Nodes 0 and 1 of the default fat-tree hang from one leaf switch: each frame crosses two links.
  // Inside a node it crosses the NIC's loopback link once. The Put and its ACK each cross once; the
  // link port serializes them at the link's or the loopback's bandwidth.
  double packet = p.real("nic.wire_packet");
  auto frame    = [&](double packets) {
    return packets * packet / p.real("bxi.link_bandwidth") - packets * packet / p.real("bxi.loopback_bandwidth");
  };
  double wire = 2 * (2 * p.real("bxi.link_latency") - p.real("bxi.loopback_latency"));
  // The benchmark reads a nanosecond clock around `count` Puts.
  double resolution = 1e-9 / count;
  for (long size : {1L, 4096L}) {
    ASSERT_TRUE(across.count(size) && inside.count(size));
    double packets = std::ceil(static_cast<double>(size) / p.real("nic.wire_packet_payload"));
    EXPECT_NEAR(across.at(size) - inside.at(size), wire + frame(packets) + frame(1), 2 * resolution) << size << " B";
  }
}

TEST(CycleCrossValidation, PutNoWaitRateAtEightBytesIsSetByThePipeline)
{
  auto p        = bxisim::config::Parameters::defaults();
  double period = 1.0 / p.real("cycle.clock");
  auto cycles   = [&](const char* name) { return static_cast<double>(p.integer(name)) * period; };
  double packet = p.real("nic.wire_packet") / p.real("bxi.link_bandwidth");
  // Across nodes two stages bound the rate. The command queue: a process has `slots` commands in
  // flight between its store and the NIC's scheduler taking it (Little's law over the PCIe latency,
  // the command's serialization on the PCIe, the endpoint's and the scheduler's cycles). The LMEs:
  // one header per match time per engine. The wire (5.76 ns a packet) is faster than both.
  double slots = static_cast<double>(p.integer("cycle.command_queue_slots"));
  double command_trip =
      p.real("pcie.bus_latency") + p.real("pcie.transfer_latency") +
      p.real("nic.command_size") / std::min(p.real("pcie.bus_bandwidth"), p.real("pcie.transfer_bandwidth")) +
      cycles("cycle.mmio_cycles") + cycles("cycle.schedule_cycles");
  double queue_interval  = command_trip / slots;
  double header_interval = cycles("cycle.lme_cycles") / static_cast<double>(p.integer("cycle.lme_count"));
  ASSERT_GT(queue_interval, header_interval); // with the default parameters the command queue sets the rate
  ASSERT_GT(header_interval, packet);
  auto across = run_bench("cycle", "put-nowait", 1, "", "8", 2000);
  ASSERT_EQ(across.size(), 1U);
  EXPECT_GE(across.at(8), queue_interval);
  EXPECT_LE(across.at(8), 1.15 * queue_interval);
  // With a deep command queue the LMEs set it.
  auto deep = run_bench("cycle", "put-nowait", 1, "--set cycle.command_queue_slots=256", "8", 2000);
  EXPECT_GE(deep.at(8), header_interval);
  EXPECT_LE(deep.at(8), 1.15 * header_interval);
  // Inside a node one NIC's link port carries four frames per Put (the Put, its BXI ACK, the ACK and
  // its BXI ACK) over its loopback, and its depacketizer takes them all: that bound is above the others.
  double port_interval = 4 * p.real("nic.wire_packet") / p.real("bxi.loopback_bandwidth");
  double rx_interval   = 4 * (cycles("cycle.depacketize_cycles") + cycles("cycle.e2e_cycles"));
  double inside_bound  = std::max({queue_interval, header_interval, port_interval, rx_interval});
  ASSERT_EQ(inside_bound, port_interval);
  auto inside = run_bench("cycle", "put-nowait", 2, "", "8", 2000);
  EXPECT_GE(inside.at(8), inside_bound);
  EXPECT_LE(inside.at(8), 1.15 * inside_bound);
  // The message model has neither stage: its queue holds nic.command_queue_depth commands, and it
  // does not model matching time.
  auto message = run_bench("message", "put-nowait", 1, "", "8", 2000);
  EXPECT_LT(message.at(8), queue_interval);
}

// Streams of DMA Puts: both NICs read the next payload from memory while the current one is on the
// wire. The message model read them one after the other: 4 KiB Puts went out every 0.67 us against
// 0.38 us at cycle (their time on the wire), 64 KiB ones every 6.20 us against 5.91.
namespace
{
void expect_dma_put_streams_to_agree(int ppn)
{
  auto message = run_bench("message", "put-nowait", ppn, "", "4096 65536", 300);
  auto cycle   = run_bench("cycle", "put-nowait", ppn, "", "4096 65536", 300);
  ASSERT_EQ(message.size(), 2U);
  ASSERT_EQ(cycle.size(), 2U);
  for (const auto& [size, reference] : cycle) {
    double relative = std::fabs(message.at(size) - reference) / reference;
    EXPECT_LE(relative, 0.05) << size << " B, --ppn " << ppn << ": message " << message.at(size) << " s, cycle "
                              << reference << " s";
  }
}
} // namespace

TEST(CycleCrossValidation, DmaPutStreamsAgreeAcrossNodes)
{
  expect_dma_put_streams_to_agree(1);
}

TEST(CycleCrossValidation, DmaPutStreamsAgreeInsideANode)
{
  expect_dma_put_streams_to_agree(2);
}

// Regression: 1000 Put-NoWait of 8 B then 1000 of 4 KiB deadlocked inside a node (exit 3 at 1.07 ms):
// the NIC's responses shared the link credits and the receive path of the requests that were waiting
// for them. Each virtual network now has its own credits and receive buffer, the arbiter starts a frame
// only when its network has credits, and the LMEs take a response slot before committing. The streams
// complete at the rate of the slowest stage, derived here; filling and draining the pipeline costs at
// most one Put's latency (put-waitack of the same size).
namespace
{
void expect_put_nowait_streams_at_the_stage_limit(int ppn)
{
  auto p           = bxisim::config::Parameters::defaults();
  double period    = 1.0 / p.real("cycle.clock");
  auto cycles      = [&](const char* name) { return static_cast<double>(p.integer(name)) * period; };
  const long count = 1000;
  auto streams     = run_bench("cycle", "put-nowait", ppn, "", "8 4096", static_cast<int>(count));
  auto latency     = run_bench("cycle", "put-waitack", ppn, "", "8 4096", 1);
  ASSERT_EQ(streams.size(), 2U) << "the streams did not complete";
  ASSERT_EQ(latency.size(), 2U);
  double slots = static_cast<double>(p.integer("cycle.command_queue_slots"));
  double command_trip =
      p.real("pcie.bus_latency") + p.real("pcie.transfer_latency") +
      p.real("nic.command_size") / std::min(p.real("pcie.bus_bandwidth"), p.real("pcie.transfer_bandwidth")) +
      cycles("cycle.mmio_cycles") + cycles("cycle.schedule_cycles");
  double queue_interval  = command_trip / slots;
  double header_interval = cycles("cycle.lme_cycles") / static_cast<double>(p.integer("cycle.lme_count"));
  double pcie_bandwidth  = std::min(p.real("pcie.bus_bandwidth"), p.real("pcie.transfer_bandwidth"));
  for (long size : {8L, 4096L}) {
    double packets = std::max(1.0, std::ceil(static_cast<double>(size) / p.real("nic.wire_packet_payload")));
    // The initiator's link port: across nodes the Put and the BXI ACK of its ACK; inside a node the
    // one port carries the four frames (Put, its BXI ACK, the ACK, its BXI ACK) over the loopback.
    double port = ppn == 1 ? (packets + 1) * p.real("nic.wire_packet") / p.real("bxi.link_bandwidth")
                           : (packets + 3) * p.real("nic.wire_packet") / p.real("bxi.loopback_bandwidth");
    // DMA: a payload above the PIO limit is read from memory over the PCIe.
    double read = static_cast<double>(size) > p.real("nic.pio_max") ? static_cast<double>(size) / pcie_bandwidth : 0.0;
    double interval = std::max({queue_interval, header_interval, port, read});
    EXPECT_GE(streams.at(size), interval) << size << " B, --ppn " << ppn;
    EXPECT_LE(streams.at(size), 1.15 * interval + latency.at(size) / static_cast<double>(count))
        << size << " B, --ppn " << ppn;
  }
}
} // namespace

TEST(CycleLevel, PutNoWaitStreamsCompleteAtTheStageLimitAcrossNodes)
{
  expect_put_nowait_streams_at_the_stage_limit(1);
}

TEST(CycleLevel, PutNoWaitStreamsCompleteAtTheStageLimitInsideANode)
{
  expect_put_nowait_streams_at_the_stage_limit(2);
}

// Regression (phase 10 of the region-switch study, benchmarks/region_switch/README.md): the DMA writer
// held its engine for a payload's whole PCIe serialization from the moment the frame had arrived,
// although the payload streams to memory behind the wire (in memory one PCIe packet after the last wire
// packet). An 8 B Put right behind a large one waited for that write: its ACK came size / PCIe bandwidth
// after the large Put's (5.24 us behind 64 KiB). Now nothing makes it wait but the ports: the 8 B Put
// leaves one link packet after the large one, and its ACK follows the large one's by one packet, on the
// wire (--ppn 1) or on the NIC's loopback (--ppn 2). put-pair: a Put of SIZE then one of 8 B, both with
// an ACK, per pair; put-waitack: the Put of SIZE alone.
namespace
{
void expect_a_small_put_behind_a_large_one_waits_one_packet(int ppn)
{
  auto p                  = bxisim::config::Parameters::defaults();
  const int count         = 3;
  const std::string sizes = "4096 65536 1048576";
  auto pairs              = run_bench("cycle", "put-pair", ppn, "", sizes, count);
  auto alone              = run_bench("cycle", "put-waitack", ppn, "", sizes, count);
  ASSERT_EQ(pairs.size(), 3U);
  ASSERT_EQ(alone.size(), 3U);
  double bandwidth  = ppn == 1 ? p.real("bxi.link_bandwidth") : p.real("bxi.loopback_bandwidth");
  double packet     = p.real("nic.wire_packet") / bandwidth;
  double resolution = 1e-9 / count; // the benchmark reads a nanosecond clock around `count` pairs
  for (long size : {4096L, 65536L, 1048576L})
    EXPECT_NEAR(pairs.at(size) - alone.at(size), packet, 2 * resolution) << size << " B, --ppn " << ppn;
}
} // namespace

TEST(CycleLevel, ASmallPutBehindALargeOneWaitsOnePacketAcrossNodes)
{
  expect_a_small_put_behind_a_large_one_waits_one_packet(1);
}

TEST(CycleLevel, ASmallPutBehindALargeOneWaitsOnePacketInsideANode)
{
  expect_a_small_put_behind_a_large_one_waits_one_packet(2);
}

// docs/adding-a-nic-feature.md: cycle.tx_extra_cycles holds each command in the decoder. With one
// Put in flight it adds its cycles once per request (the ACK never goes through the decoder), across
// nodes and inside a node; the message model's nic.tx_delay is paid by the Put and by its ACK.
namespace
{
void expect_extra_tx_cycles_once_per_put(int ppn)
{
  auto p          = bxisim::config::Parameters::defaults();
  double extra    = 200 / p.real("cycle.clock");
  auto plain      = run_bench("cycle", "put-waitack", ppn, "", "8 4096", 5);
  auto slowed     = run_bench("cycle", "put-waitack", ppn, "--set cycle.tx_extra_cycles=200", "8 4096", 5);
  auto message    = run_bench("message", "put-waitack", ppn, "", "8 4096", 5);
  auto message_tx = run_bench("message", "put-waitack", ppn, "--set nic.tx_delay=200ns", "8 4096", 5);
  for (long size : {8L, 4096L}) {
    ASSERT_TRUE(plain.count(size) && slowed.count(size) && message.count(size) && message_tx.count(size));
    EXPECT_NEAR(slowed.at(size) - plain.at(size), extra, 1e-12) << size << " B";
    EXPECT_NEAR(message_tx.at(size) - message.at(size), 2 * 200e-9, 1e-12) << size << " B";
  }
}
} // namespace

TEST(CycleLevel, ExtraTxCyclesOncePerPutAcrossNodes)
{
  expect_extra_tx_cycles_once_per_put(1);
}

TEST(CycleLevel, ExtraTxCyclesOncePerPutInsideANode)
{
  expect_extra_tx_cycles_once_per_put(2);
}

TEST(CycleLevel, SameSimulatedTimesTwice)
{
  auto first  = run_bench("cycle", "put-waitack", 2, "", "8 65536", 5);
  auto second = run_bench("cycle", "put-waitack", 2, "", "8 65536", 5);
  ASSERT_EQ(first.size(), 2U);
  EXPECT_EQ(first, second);
}

TEST(CycleLevel, VcdOfChosenSignals)
{
  std::string file = bxisim::test::temporary_path("cycle-vcd");
  auto result = run_bxisim("run -n 2 --ppn 1 --platform single-switch --no-cpu-simulation --level cycle --vcd " + file +
                           " --vcd-signals link_port " + kBench + " put-nowait 20 8");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  auto header = bxisim::test::run_command("grep -c '\\$var wire .* credits' " + file + ".vcd");
  EXPECT_EQ(header.output, "4\n"); // node0..3 of the single switch: link_port.credits each
  auto others = bxisim::test::run_command("grep -c 'occupancy' " + file + ".vcd");
  EXPECT_EQ(others.output, "0\n"); // only the chosen signals
  // The credits of node 0's port move: value changes after time 0.
  auto changes = bxisim::test::run_command("grep -c '^#[1-9]' " + file + ".vcd");
  EXPECT_GT(std::stoi(changes.output), 10);
}

TEST(CycleLevel, VcdNeedsTheCycleLevel)
{
  auto result = run_bxisim("run -n 2 --level message --vcd /tmp/x " + kBench + " put-nowait 1 8");
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--vcd traces signals of the cycle NIC model"), std::string::npos) << result.output;
}

TEST(CycleLevel, NicStatisticsAtTheEnd)
{
  auto p      = bxisim::config::Parameters::defaults();
  int count   = 7;
  auto result = run_bxisim("run -n 2 --ppn 1 --platform single-switch --no-cpu-simulation --level cycle --nic-stats " +
                           kBench + " put-waitack " + std::to_string(count) + " 8");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  // Every Put of the benchmark is one command; with the flow control off nothing stalls on it.
  auto line = result.output.find("bxisim: nic cycle: commands ");
  ASSERT_NE(line, std::string::npos) << result.output;
  long commands = std::stol(result.output.substr(line + std::string("bxisim: nic cycle: commands ").size()));
  EXPECT_GE(commands, count);
  EXPECT_NE(result.output.find("flow-control stalls 0 "), std::string::npos) << result.output;
  // With a limit of one request in flight per destination NIC, the Puts after the first stall when
  // the benchmark posts them back to back (put-nowait).
  auto limited = run_bxisim("run -n 2 --ppn 1 --platform single-switch --no-cpu-simulation --level cycle --nic-stats "
                            "--set nic.flow_control_nic_limit=1 " +
                            kBench + " put-nowait " + std::to_string(count) + " 8");
  ASSERT_EQ(limited.exit_code, 0) << limited.output;
  EXPECT_EQ(limited.output.find("flow-control stalls 0 "), std::string::npos) << limited.output;
}
