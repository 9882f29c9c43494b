#pragma once
// Command queues: `slots` commands per process (thesis 4.3.2). The CPU side waits for a free slot
// before it writes a command (the bridge mirrors the slots with a semaphore per process, released
// when this module posts CommandTaken); a scheduler takes the next command round robin among the
// processes. Triggered operations are fired by the NIC itself and skip the queues.

#include "CycleNicConfig.hpp"
#include "Outbox.hpp"
#include "Stage.hpp"

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <deque>
#include <map>

namespace bxisim::hw::cycle
{

class CommandQueue : public sc_core::sc_module
{
 public:
  tlm_utils::simple_target_socket<CommandQueue> in; // commands from the PCIe endpoint
  tlm_utils::simple_initiator_socket<CommandQueue> out;

  CommandQueue(sc_core::sc_module_name name, const CommandQueueConfig& config, int node, Outbox& outbox);

  /** A triggered operation fired on this NIC (called by the bridge). */
  void triggered(tlm::tlm_generic_payload* command);

  int occupancy  = 0; // commands queued, all processes (VCD)
  uint64_t taken = 0;

 private:
  void accept(tlm::tlm_generic_payload& command, sc_core::sc_time& delay);
  void scheduler();

  CommandQueueConfig config_;
  int node_;
  Outbox& outbox_;
  std::map<uint32_t, std::deque<tlm::tlm_generic_payload*>> queues_; // by process, ordered: fair round robin
  std::deque<tlm::tlm_generic_payload*> triggered_;
  uint32_t last_process_ = 0;
  sc_core::sc_event arrived_;
};

} // namespace bxisim::hw::cycle
