// The engine's floor: the message pattern of the Portals workloads written as a bare SimGrid S4U
// program, with no bxisim in between. simspeed runs it beside bxisim so that "bxisim costs X times
// SimGrid" is measured on the same machine in the same run.
//
//   bare_simgrid waitack COUNT BYTES   a request, then its answer, one pair at a time (Put-WaitAck)
//   bare_simgrid nowait COUNT BYTES    detached requests, each answered, at most kWindow unanswered
//                                      (Put-NoWait, whose window is the command queue's depth)
//
// Prints one line: mode,count,bytes,simulated_seconds. Wall and CPU time are measured by the caller.

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace sg4 = simgrid::s4u;

namespace
{
// The figures of one BXI link (bxi.link_* defaults): the floor is about activities, not timings.
constexpr double kBandwidth = 12.5e9;
constexpr double kLatency   = 500e-9;
constexpr long kWindow      = 89; // nic.command_queue_depth's default

void build_platform()
{
  auto* zone      = sg4::create_full_zone("floor");
  auto* initiator = zone->create_host("initiator", 1e10);
  auto* target    = zone->create_host("target", 1e10);
  auto* link      = zone->create_link("wire", kBandwidth)->set_latency(kLatency);
  zone->add_route(initiator->get_netpoint(), target->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(link)}, true);
  zone->seal();
}

int token; // the payload pointer every message carries; nothing reads it
} // namespace

int main(int argc, char** argv)
{
  sg4::Engine engine(&argc, argv);
  if (argc != 4 || (std::strcmp(argv[1], "waitack") != 0 && std::strcmp(argv[1], "nowait") != 0)) {
    std::fprintf(stderr, "usage: bare_simgrid waitack|nowait COUNT BYTES\n");
    return 2;
  }
  engine.set_config("surf/precision:1e-13");
  engine.set_config("network/model:CM02");
  engine.set_config("network/crosstraffic:0");
  build_platform();
  const bool waitack = std::strcmp(argv[1], "waitack") == 0;
  const long count   = std::atol(argv[2]);
  const long bytes   = std::atol(argv[3]);
  auto* requests     = sg4::Mailbox::by_name("requests");
  auto* answers      = sg4::Mailbox::by_name("answers");

  sg4::Actor::create("initiator", sg4::Host::by_name("initiator"), [=] {
    if (waitack) {
      for (long i = 0; i < count; ++i) {
        requests->put(&token, bytes);
        answers->get<int>();
      }
    } else {
      long answered = 0;
      for (long i = 0; i < count; ++i) {
        if (i - answered >= kWindow) {
          answers->get<int>();
          answered++;
        }
        requests->put_init(&token, bytes)->detach();
      }
      for (; answered < count; ++answered)
        answers->get<int>();
    }
  });
  sg4::Actor::create("target", sg4::Host::by_name("target"), [=] {
    for (long i = 0; i < count; ++i) {
      requests->get<int>();
      if (waitack)
        answers->put(&token, 0);
      else
        answers->put_init(&token, 0)->detach();
    }
  });
  engine.run();
  std::printf("%s,%ld,%ld,%.12e\n", argv[1], count, bytes, sg4::Engine::get_clock());
  return 0;
}
