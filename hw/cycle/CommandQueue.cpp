#include "CommandQueue.hpp"

#include "StageTrace.hpp"

#include <stdexcept>

namespace bxisim::hw::cycle
{

CommandQueue::CommandQueue(sc_core::sc_module_name name, const CommandQueueConfig& config, int node, Outbox& outbox)
    : sc_core::sc_module(name), in("in"), out("out"), config_(config), node_(node), outbox_(outbox)
{
  in.register_b_transport(this, &CommandQueue::accept);
  SC_HAS_PROCESS(CommandQueue);
  SC_THREAD(scheduler);
}

void CommandQueue::accept(tlm::tlm_generic_payload& command, sc_core::sc_time& delay)
{
  if (delay > sc_core::SC_ZERO_TIME)
    wait(delay);
  delay            = sc_core::SC_ZERO_TIME;
  uint32_t process = frame_of(command).operation->message->source_process;
  auto& queue      = queues_[process];
  if (queue.size() >= config_.slots)
    SC_REPORT_ERROR("/bxisim/CommandQueue", "a process wrote a command into a full queue (the CPU side must wait "
                                            "for a slot)");
  command.acquire();
  queue.push_back(&command);
  ++occupancy;
  arrived_.notify(sc_core::SC_ZERO_TIME);
  command.set_response_status(tlm::TLM_OK_RESPONSE);
  if (tracing_stages())
    trace_counter(node_, "command queue", occupancy);
}

void CommandQueue::triggered(tlm::tlm_generic_payload* command)
{
  triggered_.push_back(command);
  ++occupancy;
  arrived_.notify(sc_core::SC_ZERO_TIME);
  if (tracing_stages())
    trace_counter(node_, "command queue", occupancy);
}

void CommandQueue::scheduler()
{
  for (;;) {
    while (occupancy == 0)
      wait(arrived_);
    wait(config_.schedule);
    tlm::tlm_generic_payload* command = nullptr;
    bool from_queue                   = false;
    if (not triggered_.empty()) {
      command = triggered_.front();
      triggered_.pop_front();
    } else {
      // Round robin: the first process after the last one served that has a command.
      auto it = queues_.upper_bound(last_process_);
      for (int pass = 0; pass < 2 && command == nullptr; ++pass, it = queues_.begin())
        for (; it != queues_.end(); ++it)
          if (not it->second.empty()) {
            command = it->second.front();
            it->second.pop_front();
            last_process_ = it->first;
            from_queue    = true;
            break;
          }
    }
    --occupancy;
    ++taken;
    if (tracing_stages())
      trace_counter(node_, "command queue", occupancy);
    if (from_queue) {
      OutboxRequest slot{OutboxRequest::Kind::CommandTaken, node_};
      slot.process = last_process_;
      outbox_.post(slot);
    }
    if (not frame_of(*command).operation->message->command_only) // a triggered operation's registration: stored
      forward(out, *command);
    command->release();
  }
}

} // namespace bxisim::hw::cycle
