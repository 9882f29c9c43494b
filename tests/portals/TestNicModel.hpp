/* TEST DOUBLE of a NIC timing model, for unit tests of the semantics layer only.
 *
 * It has no notion of time: submitted messages wait in a FIFO until the test (or a blocking call, via
 * wait()) drives them; each step delivers one message at its target, completes its SEND and brings its
 * response back. With `synchronous` set, messages are carried out inside submit(). */
#ifndef BXISIM_TESTS_PORTALS_TEST_NIC_MODEL_HPP
#define BXISIM_TESTS_PORTALS_TEST_NIC_MODEL_HPP

#include "portals/core/Core.hpp"

#include <simgrid/Exception.hpp>

#include <deque>
#include <limits>
#include <memory>

namespace bxisim::portals::testing
{

class TestNicModel : public NicModel
{
 public:
  bool synchronous = false;
  /* When true, step() completes SEND before delivering (an early SEND, as BXI does for small messages). */
  bool send_before_delivery = false;
  double clock              = 0;
  int notifications         = 0;
  int polls                 = 0;
  int blocks                = 0; // polls Core let block

  const char* name() const override { return "test-double"; }
  void submit(std::unique_ptr<Message> msg) override
  {
    if (msg->command_only) // a triggered operation's registration: this model has no command path to charge
      return;
    queue_.push_back(std::move(msg));
    if (synchronous)
      run();
  }
  WaitStatus wait(const ProcessContext&, double timeout) override
  {
    if (queue_.empty()) {
      if (timeout == std::numeric_limits<double>::infinity())
        return WaitStatus::deadlock;
      clock += timeout;
      return WaitStatus::timeout;
    }
    step();
    return WaitStatus::woken;
  }
  /* When true, a wake-up throws as SimGrid does in an actor killed at the end of a run. */
  bool killed = false;
  void notify(uint32_t) override
  {
    notifications++;
    if (killed)
      throw simgrid::ForcefulKillException();
  }
  void polled(const ProcessContext&, PollAction action) override
  {
    polls++;
    if (action == PollAction::block)
      blocks++;
  }
  double now() const override { return clock; }

  size_t pending() const { return queue_.size(); }
  const Message& front() const { return *queue_.front(); }
  /* Posts the SEND of the oldest message only (an early SEND), leaving it queued for step(). */
  void complete_send_of_front() { Core::instance().complete_send(*queue_.front()); }
  /* Carries out the oldest message completely. */
  void step()
  {
    std::unique_ptr<Message> m = std::move(queue_.front());
    queue_.pop_front();
    Core& core = Core::instance();
    if (send_before_delivery)
      core.complete_send(*m);
    core.deliver_request(*m);
    core.complete_send(*m);
    if (m->response != ResponseKind::none)
      core.complete_response(*m);
    finished_ += m->finished ? 1 : 0;
  }
  /* Carries out every message, including those submitted meanwhile. */
  void run()
  {
    if (running_)
      return;
    running_ = true;
    while (!queue_.empty())
      step();
    running_ = false;
  }
  int finished() const { return finished_; }

 private:
  std::deque<std::unique_ptr<Message>> queue_;
  int finished_ = 0;
  bool running_ = false;
};

} // namespace bxisim::portals::testing

#endif
