#pragma once
// Drives one module of the cycle NIC through its sockets, without the rest of the NIC and without
// SimGrid: a source sends frames at chosen times, a sink (socket or frame queue) records arrivals.

#include "config/Parameters.hpp"
#include "hw/cycle/Channels.hpp"
#include "hw/cycle/CycleNicConfig.hpp"
#include "hw/cycle/Frame.hpp"
#include "hw/cycle/Outbox.hpp"
#include "hw/cycle/Stage.hpp"

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <memory>
#include <vector>

namespace bxisim::test
{
namespace cyc = bxisim::hw::cycle;

/** The configuration of the default parameters, with PCIe figures given by the test. */
inline cyc::CycleNicConfig default_cycle_config(cyc::PcieFigures pcie = {250e-9, 12.5e9})
{
  return cyc::CycleNicConfig::from_parameters(config::Parameters::defaults(), pcie, 12.5e9);
}

/** A Put (or Get) of `bytes` from node 0 process 0 to node `to`, as a request frame. */
inline tlm::tlm_generic_payload* make_request(cyc::FramePool& pool, uint64_t bytes, int to = 1,
                                              portals::OpKind kind = portals::OpKind::put, uint32_t process = 0,
                                              uint64_t address = 0x100000)
{
  auto operation                     = std::make_shared<cyc::Operation>();
  operation->message                 = std::make_unique<portals::Message>();
  operation->message->kind           = kind;
  operation->message->length         = bytes;
  operation->message->ni_options     = PTL_NI_MATCHING | PTL_NI_PHYSICAL;
  operation->message->source_process = process;
  operation->message->target.phys    = {static_cast<ptl_nid_t>(to), 0};
  operation->target_node             = to;
  operation->address                 = address;
  auto* frame                        = pool.allocate(bxisim::hw::FrameKind::Request, operation, 0, to);
  cyc::frame_of(*frame).payload      = operation->message->request_bytes();
  return frame;
}

struct FrameSource : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<FrameSource> out;
  std::vector<std::pair<sc_core::sc_time, tlm::tlm_generic_payload*>> plan; // (when, frame), in time order
  std::vector<sc_core::sc_time> accepted;                                   // when each send returned

  explicit FrameSource(sc_core::sc_module_name name) : sc_core::sc_module(name), out("out")
  {
    SC_HAS_PROCESS(FrameSource);
    SC_THREAD(run);
  }
  void run()
  {
    for (auto& [when, frame] : plan) {
      if (sc_core::sc_time_stamp() < when)
        wait(when - sc_core::sc_time_stamp());
      cyc::forward(out, *frame);
      accepted.push_back(sc_core::sc_time_stamp());
      frame->release();
    }
  }
};

struct FrameSink : sc_core::sc_module {
  tlm_utils::simple_target_socket<FrameSink> in;
  std::vector<sc_core::sc_time> arrivals;
  std::vector<tlm::tlm_generic_payload*> frames;

  explicit FrameSink(sc_core::sc_module_name name) : sc_core::sc_module(name), in("in")
  {
    in.register_b_transport(this, &FrameSink::accept);
  }
  void accept(tlm::tlm_generic_payload& frame, sc_core::sc_time&)
  {
    arrivals.push_back(sc_core::sc_time_stamp());
    frame.acquire(); // kept for the test's checks
    frames.push_back(&frame);
    frame.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

/** Empties a frame queue, recording when each frame came out. */
struct QueueDrain : sc_core::sc_module {
  sc_core::sc_port<cyc::FrameQueueIf> in;
  std::vector<sc_core::sc_time> arrivals;
  std::vector<tlm::tlm_generic_payload*> frames;

  explicit QueueDrain(sc_core::sc_module_name name) : sc_core::sc_module(name), in("in")
  {
    SC_HAS_PROCESS(QueueDrain);
    SC_THREAD(run);
  }
  void run()
  {
    for (;;) {
      frames.push_back(in->pop());
      arrivals.push_back(sc_core::sc_time_stamp());
    }
  }
};

inline sc_core::sc_time ns(double value)
{
  return sc_core::sc_time(value, sc_core::SC_NS);
}

} // namespace bxisim::test
