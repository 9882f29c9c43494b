// The cycle level on the timeline (--trace DIR) and in the S4BXI CSV (--trace-csv DIR): one Put with
// an ACK at a time (put-waitack, 8 B inline and 4 KiB by DMA), across nodes and inside a node. Each
// stage of the cycle NIC has its lane, its spans last what the parameters say, the counters (link
// credits, queues) come back to their idle values, and the CSV lists the frames and PCIe transfers
// with the message level's columns, at the times of the timeline's TX and PCIe lanes.

#include "config/Parameters.hpp"
#include "tests/support/CommandRunner.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using bxisim::test::run_bxisim;
using bxisim::test::temporary_path;

namespace
{
const std::string kBench    = BXISIM_PORTALS_BENCH;
constexpr double kUs        = 1e6;
constexpr double kTolerance = 1e-6; // microseconds: a picosecond
constexpr int kPuts         = 2;    // per size

struct Lanes {
  std::map<std::pair<int, int>, std::string> names; // (pid, tid) -> lane name
  std::map<int, std::string> groups;                // pid -> "nodeK NIC"
  /** The spans on lane `lane` of every NIC. */
  std::vector<nlohmann::json> spans(const nlohmann::json& trace, const std::string& lane) const
  {
    std::vector<nlohmann::json> found;
    for (const auto& event : trace["traceEvents"])
      if (event["ph"] == "X") {
        auto it = names.find({event["pid"].get<int>(), event["tid"].get<int>()});
        if (it != names.end() && it->second == lane && groups.count(event["pid"].get<int>()) != 0)
          found.push_back(event);
      }
    return found;
  }
};

Lanes lanes_of(const nlohmann::json& trace)
{
  Lanes lanes;
  for (const auto& event : trace["traceEvents"])
    if (event["ph"] == "M" && event["name"] == "thread_name")
      lanes.names[{event["pid"].get<int>(), event["tid"].get<int>()}] = event["args"]["name"];
    else if (event["ph"] == "M" && event["name"] == "process_name" &&
             event["args"]["name"].get<std::string>().find(" NIC") != std::string::npos)
      lanes.groups[event["pid"].get<int>()] = event["args"]["name"];
  return lanes;
}

double dur(const nlohmann::json& span)
{
  return span["dur"].get<double>() / kUs;
}

void check_cycle_timeline(int ppn)
{
  auto p             = bxisim::config::Parameters::defaults();
  double period      = 1.0 / p.real("cycle.clock");
  auto cycles        = [&](const char* name) { return static_cast<double>(p.integer(name)) * period; };
  std::string folder = temporary_path("cycle-timeline");
  auto result =
      run_bxisim("run -n 2 --ppn " + std::to_string(ppn) +
                 " --platform single-switch --no-cpu-simulation --level cycle -q --no-summary --trace " + folder +
                 " --trace-csv " + folder + " " + kBench + " put-waitack " + std::to_string(kPuts) + " 8 4096");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::ifstream file(folder + "/trace.json");
  auto trace = nlohmann::json::parse(file, nullptr, false);
  ASSERT_TRUE(trace.is_object()) << "trace.json is not JSON";
  Lanes lanes    = lanes_of(trace);
  const int puts = 2 * kPuts;
  // The run ends with the rank: the BXI ACK of the last ACK is still on its way then, so the stages
  // after the initiator's wire arbiter may miss that last frame.
  auto all_frames = [&](size_t seen) { return seen == static_cast<size_t>(4 * puts) || seen + 1 == 4U * puts; };

  // TX stages: one command each through the decoder (its cycles), the 4 KiB ones through V2P (a TLB
  // miss on the first, hits after), the request packetizer, the arbiter and the port.
  auto decoded = lanes.spans(trace, "command decoder");
  ASSERT_EQ(decoded.size(), static_cast<size_t>(puts));
  for (const auto& span : decoded)
    EXPECT_NEAR(dur(span), cycles("cycle.decode_cycles"), 1e-12) << span;
  auto translated = lanes.spans(trace, "address translation");
  ASSERT_EQ(translated.size(), static_cast<size_t>(kPuts)); // the DMA payloads only
  EXPECT_EQ(translated[0]["name"], "TLB miss, page walk");
  EXPECT_NEAR(dur(translated[0]), cycles("cycle.tlb_hit_cycles") + cycles("cycle.page_walk_cycles"), 1e-12);
  EXPECT_EQ(translated[1]["name"], "TLB hit");
  EXPECT_NEAR(dur(translated[1]), cycles("cycle.tlb_hit_cycles"), 1e-12);
  auto packetized = lanes.spans(trace, "packetizer (requests)");
  ASSERT_EQ(packetized.size(), static_cast<size_t>(puts));
  // An 8 B Put is one packet: the head latency, or one initiation interval if longer.
  EXPECT_EQ(packetized[0]["name"], "PUT 8 B (1 packets)");
  EXPECT_NEAR(dur(packetized[0]), std::max(cycles("cycle.packetize_cycles"), cycles("cycle.packet_cycles")), 1e-12);
  // Everything the NIC sends crosses the wire arbiter, alone in the NIC: its decision time each.
  auto arbitrated = lanes.spans(trace, "wire arbiter");
  ASSERT_EQ(arbitrated.size(), static_cast<size_t>(4 * puts)); // Put, its BXI ACK, the ACK, its BXI ACK
  for (const auto& span : arbitrated)
    EXPECT_NEAR(dur(span), cycles("cycle.arbitrate_cycles"), 1e-12) << span;
  // The port serializes each frame at the link's (or the loopback's) bandwidth.
  double bandwidth = ppn == 1 ? p.real("bxi.link_bandwidth") : p.real("bxi.loopback_bandwidth");
  auto ported      = lanes.spans(trace, "link port");
  ASSERT_TRUE(all_frames(ported.size())) << ported.size();
  for (const auto& span : ported) {
    std::string name = span["name"];
    double packets   = name.rfind("PUT 4096 B", 0) == 0 ? std::ceil(4096 / p.real("nic.wire_packet_payload")) : 1.0;
    EXPECT_NEAR(dur(span), packets * p.real("nic.wire_packet") / bandwidth, 1e-12) << span;
  }

  // RX stages: each frame through the depacketizer; each request through an LME (at least its match
  // time), the DMA writer (4 KiB: the engine holds the PCIe for the payload), the event engine and the
  // response generator (an ACK each); the ACKs through the response packetizer.
  auto depacketized = lanes.spans(trace, "depacketizer");
  ASSERT_TRUE(all_frames(depacketized.size())) << depacketized.size();
  for (const auto& span : depacketized)
    EXPECT_NEAR(dur(span), cycles("cycle.depacketize_cycles"), 1e-12) << span;
  size_t matched = 0;
  for (int engine = 0; engine < p.integer("cycle.lme_count"); ++engine)
    for (const auto& span : lanes.spans(trace, "LME " + std::to_string(engine))) {
      ++matched;
      EXPECT_GE(dur(span), cycles("cycle.lme_cycles") - 1e-12) << span;
    }
  EXPECT_EQ(matched, static_cast<size_t>(puts));
  auto written = lanes.spans(trace, "DMA writer");
  double pcie  = std::min(p.real("pcie.bus_bandwidth"), p.real("pcie.transfer_bandwidth"));
  ASSERT_EQ(written.size(), static_cast<size_t>(puts)); // every Put's payload at its target
  for (const auto& span : written) {
    double bytes = std::string(span["name"]).rfind("PUT 4096 B", 0) == 0 ? 4096 : 8;
    EXPECT_NEAR(dur(span), bytes / pcie, 1e-12) << span;
  }
  auto events = lanes.spans(trace, "event engine");
  ASSERT_EQ(events.size(), static_cast<size_t>(2 * puts)); // at the target, then the ACK's at the initiator
  for (const auto& span : events)
    if (std::string(span["name"]).rfind("target event", 0) == 0) {
      EXPECT_NEAR(dur(span), cycles("cycle.event_cycles"), 1e-12) << span;
    }
  auto generated = lanes.spans(trace, "response generator");
  ASSERT_EQ(generated.size(), static_cast<size_t>(puts));
  for (const auto& span : generated)
    EXPECT_NEAR(dur(span), cycles("cycle.response_cycles"), 1e-12) << span;
  EXPECT_EQ(lanes.spans(trace, "packetizer (responses)").size(), static_cast<size_t>(puts));
  // E2E: a BXI ACK built for the Put and for the ACK, and each taken at the other end.
  auto e2e = lanes.spans(trace, "E2E engine");
  ASSERT_TRUE(all_frames(e2e.size())) << e2e.size();
  for (const auto& span : e2e)
    EXPECT_NEAR(dur(span), cycles("cycle.e2e_cycles"), 1e-12) << span;

  // Counters: link credits spent and back to the full buffer, queues back to empty at the end.
  std::map<std::string, double> last, low;
  for (const auto& event : trace["traceEvents"])
    if (event["ph"] == "C" && lanes.groups.count(event["pid"].get<int>()) != 0) {
      std::string key = std::to_string(event["pid"].get<int>()) + " " + event["name"].get<std::string>();
      double value    = event["args"].begin().value().get<double>();
      last[key]       = value;
      low[key]        = low.count(key) != 0 ? std::min(low[key], value) : value;
    }
  std::string nic0 = std::to_string(lanes.groups.begin()->first) + " ";
  ASSERT_TRUE(last.count(nic0 + "link credits (requests)"));
  EXPECT_EQ(last[nic0 + "link credits (requests)"], p.integer("cycle.link_credits"));
  EXPECT_LT(low[nic0 + "link credits (requests)"], p.integer("cycle.link_credits"));
  ASSERT_TRUE(last.count(nic0 + "command queue"));
  EXPECT_EQ(last[nic0 + "command queue"], 0);
  EXPECT_EQ(last[nic0 + "vn0 queue (requests)"], 0);

  // The S4BXI CSV: the message level's columns, every kind of transfer, each frame at the times of the
  // timeline's TX lane.
  std::ifstream csv(folder + "/operations.csv");
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  EXPECT_EQ(line, "operation_type,initiator_nid,target_nid,start_time,end_time");
  std::map<std::string, int> kinds;
  std::vector<std::pair<double, double>> puts_in_csv;
  while (std::getline(csv, line)) {
    std::istringstream fields(line);
    std::string kind, initiator, target, start, end;
    ASSERT_TRUE(std::getline(fields, kind, ',') && std::getline(fields, initiator, ',') &&
                std::getline(fields, target, ',') && std::getline(fields, start, ',') && std::getline(fields, end))
        << line;
    ++kinds[kind];
    EXPECT_LE(std::stod(start), std::stod(end)) << line;
    if (kind == "PUT")
      puts_in_csv.emplace_back(std::stod(start), std::stod(end));
  }
  EXPECT_EQ(kinds["PCI_COMMAND"], puts);
  EXPECT_EQ(kinds["PUT"], puts);
  EXPECT_EQ(kinds["ACK"], puts);
  EXPECT_TRUE(kinds["BXI_ACK"] == 2 * puts || kinds["BXI_ACK"] == 2 * puts - 1) << kinds["BXI_ACK"];
  EXPECT_EQ(kinds["PCI_DMA_READ"], kPuts); // the 4 KiB payloads
  EXPECT_EQ(kinds["PCI_DMA_WRITE"], puts); // the payloads at the target
  EXPECT_EQ(kinds["PCI_EVENT"], 2 * puts); // an event at the target and one at the initiator
  std::vector<std::pair<double, double>> puts_on_timeline;
  for (const auto& span : lanes.spans(trace, "TX (wire out)"))
    if (std::string(span["name"]).rfind("PUT", 0) == 0)
      puts_on_timeline.emplace_back(span["ts"].get<double>(), span["ts"].get<double>() + span["dur"].get<double>());
  ASSERT_EQ(puts_on_timeline.size(), puts_in_csv.size());
  for (size_t i = 0; i < puts_in_csv.size(); ++i) {
    EXPECT_NEAR(puts_on_timeline[i].first, puts_in_csv[i].first * kUs, kTolerance);
    EXPECT_NEAR(puts_on_timeline[i].second, puts_in_csv[i].second * kUs, kTolerance);
  }
  // Across the single switch a frame crosses two links; inside a node the loopback once.
  double latency = ppn == 1 ? 2 * p.real("bxi.link_latency") : p.real("bxi.loopback_latency");
  EXPECT_NEAR(puts_in_csv[0].second - puts_in_csv[0].first, latency + p.real("nic.wire_packet") / bandwidth, 1e-12);
}
} // namespace

TEST(CycleTimeline, EveryStageOnTheTimelineAndTheCsvAcrossNodes)
{
  check_cycle_timeline(1);
}

TEST(CycleTimeline, EveryStageOnTheTimelineAndTheCsvInsideANode)
{
  check_cycle_timeline(2);
}
