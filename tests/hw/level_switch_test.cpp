// Switching the NIC model in a live run (issue 9, item 4): both models are built on one machine, and
// new Portals commands go to the selected one. Portals state lives once, in portals/core, so a Put
// issued just before the switch finishes in the model that started it: it completes, its data is
// in place, and each of its events (SEND, ACK at the initiator, PUT at the target) arrives exactly
// once, while the Put issued after the switch travels through the other model. Across nodes and
// inside a node (the NIC's loopback), in both directions (message -> cycle, cycle -> message).

#include "MessageNicWorld.hpp"

#include "hw/cycle/CycleNicModel.hpp"

#include <gtest/gtest.h>

#include <map>

namespace
{
using bxisim::test::Placement;
using bxisim::test::PortalsEndpoint;
namespace sg4 = simgrid::s4u;
namespace hw  = bxisim::hw;

constexpr ptl_match_bits_t kBits = 0x5;
constexpr size_t kSize           = 65536; // DMA: the Put is still reading its payload when the switch comes

enum class Level { Message, Cycle };

/** Two ranks on a single-switch machine (two nodes of two cores), with both NIC models built. */
class SwitchWorld
{
 public:
  explicit SwitchWorld(Placement placement) : placement_(placement)
  {
    parameters_.apply_assignment("platform.topology=single-switch");
    parameters_.apply_assignment("platform.nodes=2");
    parameters_.apply_assignment("node.cores=2");
    engine_  = bxisim::platform::create_engine({{}, {}});
    machine_ = std::make_unique<bxisim::platform::Machine>(
        bxisim::platform::build_machine(bxisim::platform::PlatformConfig::from_parameters(parameters_)));
    auto process   = [this](uint32_t id) { return host_of(static_cast<int>(id)); };
    auto addressed = [this](ptl_nid_t nid, ptl_pid_t pid) {
      return machine_->core(static_cast<int>(nid), placement_ == Placement::OneNode ? static_cast<int>(pid) : 0);
    };
    message_ = std::make_unique<hw::message::MessageNicModel>(
        *machine_, hw::message::MessageNicConfig::from_parameters(parameters_),
        hw::message::ProcessDirectory{process, addressed});
    cycle_ = std::make_unique<hw::cycle::CycleNicModel>(*machine_, parameters_,
                                                        hw::cycle::ProcessDirectory{process, addressed});
    bxisim::portals::Core::instance().set_context_provider([this] {
      int rank = std::stoi(sg4::this_actor::get_name());
      bxisim::portals::ProcessContext context;
      context.id      = static_cast<uint32_t>(rank);
      context.nid     = address_of(rank).phys.nid;
      context.any_pid = address_of(rank).phys.pid;
      context.nic     = current();
      return context;
    });
    ready_ = sg4::Barrier::create(2);
  }
  ~SwitchWorld() { bxisim::portals::Core::instance().set_context_provider(nullptr); }

  void run(const std::function<void()>& rank0, const std::function<void()>& rank1)
  {
    message_->start();
    cycle_->start();
    sg4::Actor::create("0", host_of(0), rank0);
    sg4::Actor::create("1", host_of(1), rank1);
    sg4::Engine::get_instance()->run();
    cycle_->check();
  }
  void ready() { ready_->wait(); }
  /** New Portals commands go to `level`'s model from now on. */
  void switch_to(Level level) { level_ = level; }
  bxisim::portals::NicModel* current()
  {
    return level_ == Level::Cycle ? static_cast<bxisim::portals::NicModel*>(cycle_.get()) : message_.get();
  }

  ptl_process_t address_of(int rank) const
  {
    bool one_node = placement_ == Placement::OneNode;
    ptl_process_t address;
    address.phys.nid = one_node ? 0 : static_cast<ptl_nid_t>(rank);
    address.phys.pid = one_node ? static_cast<ptl_pid_t>(rank) : 0;
    return address;
  }
  sg4::Host* host_of(int rank) const
  {
    return placement_ == Placement::OneNode ? machine_->core(0, rank) : machine_->core(rank, 0);
  }
  hw::cycle::CycleNicModel& cycle() { return *cycle_; }

 private:
  Placement placement_;
  bxisim::config::Parameters parameters_ = bxisim::config::Parameters::defaults();
  std::unique_ptr<sg4::Engine> engine_;
  std::unique_ptr<bxisim::platform::Machine> machine_;
  std::unique_ptr<hw::message::MessageNicModel> message_;
  std::unique_ptr<hw::cycle::CycleNicModel> cycle_;
  Level level_ = Level::Message;
  sg4::BarrierPtr ready_;
};

/** Events of one kind seen per operation (user_ptr). */
using Seen = std::map<std::pair<ptl_event_kind_t, uintptr_t>, int>;

/** Rank 0 Puts `kSize` bytes to rank 1 at `first`'s level, switches to the other level while that Put
 * is in flight, Puts again; both ranks then count every event until long after both completed. */
void put_across_a_switch(Placement placement, Level first)
{
  Level second = first == Level::Message ? Level::Cycle : Level::Message;
  SwitchWorld world(placement);
  world.switch_to(first);
  Seen initiator, target;
  bool in_flight_at_switch = false;
  // Long after both Puts (a few microseconds each), no E2E retransmission pending (nothing lost).
  constexpr double kQuiet = 100e-6;
  auto drain              = [](PortalsEndpoint& endpoint, Seen& seen) {
    ptl_event_t event;
    while (PtlEQGet(endpoint.eq, &event) == PTL_OK)
      ++seen[{event.type, reinterpret_cast<uintptr_t>(event.user_ptr)}];
  };
  world.run(
      [&] {
        auto endpoint = PortalsEndpoint::open(2 * kSize);
        for (size_t i = 0; i < endpoint.memory.size(); ++i)
          endpoint.memory[i] = static_cast<unsigned char>(i * 7 + 1);
        auto md = endpoint.bind();
        world.ready();
        ASSERT_EQ(PtlPut(md, 0, kSize, PTL_ACK_REQ, world.address_of(1), 0, kBits, 0, reinterpret_cast<void*>(1), 0),
                  PTL_OK);
        ptl_event_t event;
        in_flight_at_switch = PtlEQGet(endpoint.eq, &event) == PTL_EQ_EMPTY;
        world.switch_to(second);
        ASSERT_EQ(
            PtlPut(md, kSize, kSize, PTL_ACK_REQ, world.address_of(1), 0, kBits, kSize, reinterpret_cast<void*>(2), 0),
            PTL_OK);
        int acks = 0;
        while (acks < 2) { // blocks in the second model; the first model's completions wake it too
          ASSERT_EQ(PtlEQWait(endpoint.eq, &event), PTL_OK);
          EXPECT_EQ(event.ni_fail_type, PTL_NI_OK);
          ++initiator[{event.type, reinterpret_cast<uintptr_t>(event.user_ptr)}];
          acks += event.type == PTL_EVENT_ACK ? 1 : 0;
        }
        sg4::this_actor::sleep_for(kQuiet);
        drain(endpoint, initiator);
      },
      [&] {
        auto endpoint = PortalsEndpoint::open(2 * kSize);
        endpoint.expose(kBits);
        world.ready();
        ptl_event_t event;
        int puts = 0;
        while (puts < 2) {
          ASSERT_EQ(PtlEQWait(endpoint.eq, &event), PTL_OK);
          ++target[{event.type, static_cast<uintptr_t>(event.remote_offset / kSize + 1)}];
          puts += event.type == PTL_EVENT_PUT ? 1 : 0;
        }
        sg4::this_actor::sleep_for(kQuiet);
        while (PtlEQGet(endpoint.eq, &event) == PTL_OK)
          ++target[{event.type, static_cast<uintptr_t>(event.remote_offset / kSize + 1)}];
        for (size_t i = 0; i < endpoint.memory.size(); ++i)
          ASSERT_EQ(endpoint.memory[i], static_cast<unsigned char>(i * 7 + 1)) << "byte " << i;
      });
  EXPECT_TRUE(in_flight_at_switch) << "the first Put had completed before the switch: the test proves nothing";
  for (uintptr_t operation : {1U, 2U}) {
    EXPECT_EQ((initiator[{PTL_EVENT_SEND, operation}]), 1) << "operation " << operation;
    EXPECT_EQ((initiator[{PTL_EVENT_ACK, operation}]), 1) << "operation " << operation;
    EXPECT_EQ((target[{PTL_EVENT_PUT, operation}]), 1) << "operation " << operation;
  }
  EXPECT_EQ(initiator.size(), 4U);
  std::string kinds;
  for (const auto& [key, count] : target)
    kinds += " " + std::to_string(key.first) + "/" + std::to_string(key.second) + "x" + std::to_string(count);
  EXPECT_EQ((target[{PTL_EVENT_LINK, 1}]), 1); // the ME's own LINK event (remote offset 0)
  EXPECT_EQ(target.size(), 3U) << kinds;
  // Exactly one of the two commands went through the cycle model.
  EXPECT_EQ(world.cycle().statistics().commands, 1U);
}
} // namespace

TEST(LevelSwitch, PutBeforeSwitchToCycleCompletesOnceAcrossNodes)
{
  put_across_a_switch(Placement::TwoNodes, Level::Message);
}

TEST(LevelSwitch, PutBeforeSwitchToCycleCompletesOnceInsideANode)
{
  put_across_a_switch(Placement::OneNode, Level::Message);
}

TEST(LevelSwitch, PutBeforeSwitchToMessageCompletesOnceAcrossNodes)
{
  put_across_a_switch(Placement::TwoNodes, Level::Cycle);
}

TEST(LevelSwitch, PutBeforeSwitchToMessageCompletesOnceInsideANode)
{
  put_across_a_switch(Placement::OneNode, Level::Cycle);
}
