/* The NicModel framework: what a NIC timing model implements (like an OpenMPI MCA framework; the
 * `message` and `cycle` models are two components behind it).
 *
 * The semantics layer (Core) keeps every Portals object; a model decides WHEN things happen and moves
 * the message to the target. Protocol, for each Message handed to submit():
 *   1. at the target, when the request has arrived: core.deliver_request(msg). It matches, deposits the
 *      data, posts the target events, and fills msg.response / response_bytes() / fail_type.
 *   2. at the initiator, exactly once, when the SEND event is due (early for small messages, at ack
 *      time otherwise: the model's choice): core.complete_send(msg). Either order with step 1.
 *   3. if msg.response != ResponseKind::none, when the response has arrived back at the initiator:
 *      core.complete_response(msg).
 *   4. once msg.finished is true, the model may destroy the message.
 * The model may also call core.drop_request(msg) instead of step 1 when the network lost it for good
 * (after the E2E retries): the initiator then sees PTL_NI_UNDELIVERABLE.
 * A command_only message (a triggered operation's registration) is none of this: the model charges it as any
 * command the CPU posts and destroys it once the NIC has taken it.
 *
 * Blocking calls (PtlEQWait, PtlCTWait, PtlEQPoll, PtlCTPoll) call wait() while their condition is
 * false; Core calls notify() whenever an event or a counter of a process changes. */
#ifndef BXISIM_PORTALS_NIC_MODEL_HPP
#define BXISIM_PORTALS_NIC_MODEL_HPP

#include "portals/core/Message.hpp"
#include "portals/core/ProcessContext.hpp"

#include <memory>

namespace bxisim::portals
{

enum class WaitStatus {
  woken,   // notify() was called for this process (the condition is checked again)
  timeout, // the timeout elapsed
  deadlock // nothing can ever wake this process: the call returns PTL_INTERRUPTED
};

enum class PollAction {
  sleep, // a short delay, growing while the process polls in vain (the model's choice of figures)
  block  // until notify() for the process: Core has checked that nothing it has not seen is pending
};

class NicModel
{
 public:
  virtual ~NicModel()              = default;
  virtual const char* name() const = 0;

  /* Takes an operation issued by process msg->source_process (the current process, or the owner of the
   * counter that fired a triggered operation). Must not call back into Core before returning unless the
   * model is synchronous by design (Core tolerates it). */
  virtual void submit(std::unique_ptr<Message> msg) = 0;

  /* Blocks the calling process `ctx` until notify(ctx.id), or for at most `timeout` seconds of simulated
   * time (infinity = no timeout). */
  virtual WaitStatus wait(const ProcessContext& ctx, double timeout) = 0;

  /* An EQ or CT of process `process_id` changed. */
  virtual void notify(uint32_t process_id) = 0;

  /* A poll found nothing (an empty PtlEQGet, a PtlEQPoll/PtlCTPoll of timeout 0 that found nothing) or a
   * PtlCTGet was made: a program is polling, and simulated time must advance (DESIGN.md section 5,
   * "Polling"). Core decides how (Core::poll_found_nothing): `sleep` a delay (growing while nothing
   * comes), or `block` until the process's next notify(). */
  virtual void polled(const ProcessContext& ctx, PollAction action)
  {
    (void)ctx;
    (void)action;
  }

  /* The current simulated time in seconds (timeouts of PtlEQPoll/PtlCTPoll are measured with it). */
  virtual double now() const = 0;
};

} // namespace bxisim::portals

#endif
