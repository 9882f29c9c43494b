#pragma once
// The channels between the modules of the cycle NIC: a frame queue (a FIFO that BXI ACKs may jump),
// the in-order commit point of the list matching engines, and the flow-control credit interface.

#include "Frame.hpp"
#include "StageTrace.hpp"

#include <systemc>

#include <deque>
#include <limits>

namespace bxisim::hw::cycle
{

class FrameQueueIf : public virtual sc_core::sc_interface
{
 public:
  /** Blocks (in a thread) while the queue is full. */
  virtual void push_back(tlm::tlm_generic_payload* frame) = 0;
  /** Never blocks: for BXI ACKs, which overtake the frames waiting (and for the bridge's inputs). */
  virtual void push_front(tlm::tlm_generic_payload* frame) = 0;
  /** Blocks (in a thread) while the queue is empty; the caller takes over the queue's reference. */
  virtual tlm::tlm_generic_payload* pop()          = 0;
  virtual tlm::tlm_generic_payload* front() const  = 0;
  virtual size_t size() const                      = 0;
  virtual bool full() const                        = 0;
  virtual const sc_core::sc_event& written() const = 0;
  /** Notified when a frame leaves the queue (room for another). */
  virtual const sc_core::sc_event& read() const = 0;
};

/** A FIFO of frames (the frames are acquired while queued). Occupancy is traced for VCD. */
class FrameQueue : public sc_core::sc_prim_channel, public FrameQueueIf
{
 public:
  explicit FrameQueue(const char* name, size_t capacity = std::numeric_limits<size_t>::max())
      : sc_core::sc_prim_channel(name), capacity_(capacity)
  {
  }
  void push_back(tlm::tlm_generic_payload* frame) override
  {
    while (frames_.size() >= capacity_)
      sc_core::wait(read_);
    frame->acquire();
    frames_.push_back(frame);
    changed();
  }
  void push_front(tlm::tlm_generic_payload* frame) override
  {
    frame->acquire();
    frames_.push_front(frame);
    changed();
  }
  tlm::tlm_generic_payload* pop() override
  {
    while (frames_.empty())
      sc_core::wait(written_);
    tlm::tlm_generic_payload* frame = frames_.front();
    frames_.pop_front();
    read_.notify(sc_core::SC_ZERO_TIME);
    occupancy = static_cast<int>(frames_.size());
    if (tracing_stages() && counter_ != nullptr)
      trace_counter(node_, counter_, occupancy);
    return frame; // the caller takes over the queue's reference and releases it when done
  }
  tlm::tlm_generic_payload* front() const override { return frames_.empty() ? nullptr : frames_.front(); }
  size_t size() const override { return frames_.size(); }
  bool full() const override { return frames_.size() >= capacity_; }
  const sc_core::sc_event& written() const override { return written_; }
  const sc_core::sc_event& read() const override { return read_; }

  int occupancy = 0; // for VCD traces
  /** Reports the occupancy as counter `counter` of NIC `node` on the timeline (with --trace). */
  void trace_as(int node, const char* counter)
  {
    node_    = node;
    counter_ = counter;
  }

 private:
  void changed()
  {
    occupancy = static_cast<int>(frames_.size());
    written_.notify(sc_core::SC_ZERO_TIME);
    if (tracing_stages() && counter_ != nullptr)
      trace_counter(node_, counter_, occupancy);
  }
  int node_            = 0;
  const char* counter_ = nullptr;
  size_t capacity_;
  std::deque<tlm::tlm_generic_payload*> frames_;
  sc_core::sc_event written_, read_;
};

/** NIC flow control: the E2E engine returns a request's credit when its acknowledgement comes back. */
class FlowCreditIf : public virtual sc_core::sc_interface
{
 public:
  virtual void return_credit(Operation& operation) = 0;
};

/** What the wire arbiter asks the link port before it hands it a frame of a virtual network: the
 * port is free and the peer's receive buffer of that network has room for one packet. A frame that
 * starts so always finishes: the credits of its own earlier chunks come back as they arrive. */
class LinkReadyIf : public virtual sc_core::sc_interface
{
 public:
  virtual bool busy() const                        = 0;
  virtual bool has_credits(unsigned network) const = 0;
  /** Notified when the port becomes free or credits come back. */
  virtual const sc_core::sc_event& changed() const = 0;
};

/** The response generator's slots (nic.response_queue_depth): a list matching engine takes one before
 * it commits a request, the response generator gives it back once the response has gone to the
 * packetizer (at once when no response is due). So the stages between the LMEs and the response
 * generator never wait for it: arrived responses, which share them, always drain (the target's
 * back-pressure stops at the LMEs, as in the message model). */
class ResponseSlotsIf : public virtual sc_core::sc_interface
{
 public:
  virtual void acquire() = 0; // blocks (in a thread) while none is free
  virtual void release() = 0;
};

class ResponseSlots : public sc_core::sc_prim_channel, public ResponseSlotsIf
{
 public:
  ResponseSlots(const char* name, unsigned slots) : sc_core::sc_prim_channel(name), free_(slots) {}
  void acquire() override
  {
    while (free_ == 0)
      sc_core::wait(released_);
    --free_;
  }
  void release() override
  {
    ++free_;
    released_.notify(sc_core::SC_ZERO_TIME);
  }
  unsigned free() const { return free_; }

 private:
  unsigned free_;
  sc_core::sc_event released_;
};

/** The list matching engines work in parallel, but the semantics layer sees headers in arrival order:
 * an engine commits its header only when every earlier one is committed. */
class CommitOrder : public sc_core::sc_prim_channel
{
 public:
  explicit CommitOrder(const char* name) : sc_core::sc_prim_channel(name) {}
  uint64_t take_ticket() { return next_ticket_++; }
  void wait_turn(uint64_t ticket)
  {
    while (committed_ != ticket)
      sc_core::wait(advanced_);
  }
  void commit()
  {
    ++committed_;
    advanced_.notify(sc_core::SC_ZERO_TIME);
  }
  /** Notified by the bridge when the semantics layer has delivered a header. */
  sc_core::sc_event delivered;

 private:
  uint64_t next_ticket_ = 0;
  uint64_t committed_   = 0;
  sc_core::sc_event advanced_;
};

} // namespace bxisim::hw::cycle
