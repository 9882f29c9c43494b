#pragma once
// A pipeline stage: frames come in through `in` (b_transport blocks while the stage's input FIFO is
// full: back-pressure), one thread takes them in order and spends the stage's time on each.

#include "Frame.hpp"

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

namespace bxisim::hw::cycle
{

class Stage : public sc_core::sc_module
{
 public:
  tlm_utils::multi_passthrough_target_socket<Stage> in;

  Stage(sc_core::sc_module_name name, unsigned depth) : sc_core::sc_module(name), in("in"), queue_("queue", depth)
  {
    in.register_b_transport(this, &Stage::accept);
    SC_HAS_PROCESS(Stage);
    SC_THREAD(run);
  }
  /** Frames waiting in the input FIFO (for VCD traces and tests). */
  int waiting() const { return queue_.num_available(); }
  /** Frames accepted and not yet processed (counted from the moment `in` takes them). */
  int held() const { return held_; }
  /** Notified each time the stage has processed a frame. */
  const sc_core::sc_event& processed() const { return processed_; }

 protected:
  /** Spends the stage's time on `frame` and hands it on; called in the stage's thread. */
  virtual void process(tlm::tlm_generic_payload& frame) = 0;

 private:
  void accept(int, tlm::tlm_generic_payload& frame, sc_core::sc_time& delay)
  {
    if (delay > sc_core::SC_ZERO_TIME)
      wait(delay);
    delay = sc_core::SC_ZERO_TIME;
    frame.acquire();
    ++held_;
    queue_.write(&frame);
    frame.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  void run()
  {
    for (;;) {
      tlm::tlm_generic_payload* frame = queue_.read();
      process(*frame);
      frame->release();
      --held_;
      processed_.notify(sc_core::SC_ZERO_TIME);
    }
  }
  sc_core::sc_fifo<tlm::tlm_generic_payload*> queue_;
  int held_ = 0;
  sc_core::sc_event processed_;
};

/** Hands `frame` to the target bound to `socket`, now. */
template <typename Socket>
void forward(Socket& socket, tlm::tlm_generic_payload& frame)
{
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  socket->b_transport(frame, delay);
}

} // namespace bxisim::hw::cycle
