// Faults of the network: parsing of fault.links / --fault, resolution of link names, and which frames
// the network loses (links down during an interval, random losses per BXI link).

#include "TestMachine.hpp"

#include "config/ConfigError.hpp"
#include "platforms/Route.hpp"
#include "platforms/WireFaults.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <limits>

using bxisim::config::ConfigError;
using bxisim::platform::FaultSpec;
using bxisim::platform::WireFaults;
using testing::HasSubstr;

namespace
{
std::string error_of(const std::function<void()>& call)
{
  try {
    call();
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "(no error)";
}

FaultSpec spec_of(const std::vector<std::string>& assignments)
{
  auto parameters = bxisim::config::Parameters::defaults();
  for (const auto& assignment : assignments)
    parameters.apply_assignment(assignment);
  return FaultSpec::from_parameters(parameters);
}

// Two nodes on one switch: node0-bxi and node1-bxi (split duplex), and each node's loopback.
bxisim::test::TestMachine two_nodes()
{
  return bxisim::test::build_test_machine({"platform.topology=single-switch", "platform.nodes=2"});
}

std::vector<simgrid::s4u::Link*> wire_route(const bxisim::test::TestMachine& machine)
{
  return bxisim::platform::Route::between(machine.machine.nodes()[0].nic, machine.machine.nodes()[1].nic).links;
}
} // namespace

TEST(FaultSpec, ParsesOutagesWithUnits)
{
  auto outages = FaultSpec::parse_fault("link=node0-bxi,down=10us,up=1.5ms", "--fault");
  ASSERT_EQ(outages.size(), 1u);
  EXPECT_EQ(outages[0].link, "node0-bxi");
  EXPECT_DOUBLE_EQ(outages[0].down, 10e-6);
  EXPECT_DOUBLE_EQ(outages[0].up, 1.5e-3);
  auto forever = FaultSpec::parse_fault("down=0.002,link=x", "--fault");
  EXPECT_DOUBLE_EQ(forever[0].down, 0.002);
  EXPECT_EQ(forever[0].up, std::numeric_limits<double>::infinity());
}

TEST(FaultSpec, ReadsASimGridStateProfile)
{
  std::string path = testing::TempDir() + "/state_profile.txt";
  std::ofstream(path) << "# a link that fails twice\n0 1\n1e-3 0\n2e-3 1\n\n5e-3 0\n";
  auto outages = FaultSpec::parse_fault("link=l,profile=" + path, "--fault");
  ASSERT_EQ(outages.size(), 2u);
  EXPECT_DOUBLE_EQ(outages[0].down, 1e-3);
  EXPECT_DOUBLE_EQ(outages[0].up, 2e-3);
  EXPECT_DOUBLE_EQ(outages[1].down, 5e-3);
  EXPECT_EQ(outages[1].up, std::numeric_limits<double>::infinity());
  std::remove(path.c_str());
}

TEST(FaultSpec, BadFaultsNameTheProblem)
{
  auto parse = [](const std::string& text) { return error_of([&] { FaultSpec::parse_fault(text, "--fault"); }); };
  EXPECT_THAT(parse("node0-bxi,down=1us"), HasSubstr("'node0-bxi' is not key=value"));
  EXPECT_THAT(parse("link=a,dwn=1us"), HasSubstr("unknown key 'dwn' Did you mean 'down'?"));
  EXPECT_THAT(parse("link=a"), HasSubstr("it says when the link goes down"));
  EXPECT_THAT(parse("down=1us"), HasSubstr("it names no link"));
  EXPECT_THAT(parse("link=a,down=2us,up=1us"), HasSubstr("must come up (up=) after it went down"));
  EXPECT_THAT(parse("link=a,down=soon"), HasSubstr("'soon' is not a time"));
  EXPECT_THAT(parse("link=a,profile=/nonexistent/profile"), HasSubstr("cannot read the profile file"));
  EXPECT_THAT(error_of([] { spec_of({"fault.loss_rate=1"}); }), HasSubstr("must be below 1"));
  EXPECT_THAT(error_of([] { spec_of({"fault.links=link=a;down=1"}); }), HasSubstr("fault.links: bad fault"));
}

TEST(WireFaults, UnknownLinkIsRefusedWithASuggestion)
{
  auto machine = two_nodes();
  auto spec    = spec_of({"fault.links=link=node0-bix,down=0"});
  EXPECT_THAT(error_of([&] { WireFaults faults(spec); }),
              HasSubstr("the platform has no link 'node0-bix'. Did you mean 'node0-bxi'?"));
}

TEST(WireFaults, ALinkDownLosesTheFramesThatMeetTheOutage)
{
  auto machine = two_nodes();
  WireFaults faults(spec_of({"fault.links=link=node1-bxi,down=10us,up=20us"})); // both halves
  auto route = wire_route(machine);
  EXPECT_EQ(faults.loss(route, 1, 0, 9.9e-6, true), "");                         // arrived before
  EXPECT_THAT(faults.loss(route, 2, 9e-6, 11e-6, true), HasSubstr("node1-bxi")); // in flight when it went down
  EXPECT_THAT(faults.loss(route, 3, 15e-6, 16e-6, true), HasSubstr("down from 0.000010000 s to 0.000020000 s"));
  EXPECT_EQ(faults.loss(route, 4, 20e-6, 21e-6, true), ""); // sent once it was up
  auto back = bxisim::platform::Route::between(machine.machine.nodes()[1].nic, machine.machine.nodes()[0].nic).links;
  EXPECT_NE(faults.loss(back, 5, 15e-6, 16e-6, true), ""); // node1-bxi names both directions
}

TEST(WireFaults, RandomLossesFollowTheRateAndTheSeed)
{
  auto machine = two_nodes();
  auto route   = wire_route(machine);
  ASSERT_EQ(route.size(), 2u); // node0-bxi_UP, node1-bxi_DOWN
  WireFaults faults(spec_of({"fault.loss_rate=0.01", "fault.seed=3"}));
  WireFaults same(spec_of({"fault.loss_rate=0.01", "fault.seed=3"}));
  WireFaults other(spec_of({"fault.loss_rate=0.01", "fault.seed=4"}));
  int lost = 0, differ = 0;
  const int frames = 100000;
  for (int frame = 1; frame <= frames; ++frame) {
    bool is_lost = not faults.loss(route, frame, 0, 1e-6, true).empty();
    lost += is_lost;
    EXPECT_EQ(is_lost, not same.loss(route, frame, 0, 1e-6, true).empty());
    differ += is_lost != not other.loss(route, frame, 0, 1e-6, true).empty();
    EXPECT_EQ(faults.loss(route, frame, 0, 1e-6, false), ""); // the loopback never loses
  }
  // Two links at 1% each: 1.99% of the frames; 100,000 frames give a standard deviation of 44.
  EXPECT_NEAR(lost, 0.0199 * frames, 5 * 44);
  EXPECT_GT(differ, 1000); // another seed, other losses
}
