#pragma once
// Frames carried by SimGrid transfers nobody waits for, handed to their receiver when the transfer
// ends: across senders in the order they arrive, within a lane (one sender's frames to one receiver
// on one virtual network: one link, one sequence) in the order they were sent. Both NIC models send
// their wire frames this way; a SimGrid mailbox would hand them over in the order they were posted,
// so that a frame that has arrived would wait for any longer one posted earlier by another NIC.

#include "CommCompletion.hpp"

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <unordered_map>
#include <utility>

namespace bxisim::hw
{

/** What one receiving actor has been handed, in order. `push` runs in SimGrid's maestro (no simcall
 * made there: the release of a semaphore is direct), `take` in the receiving actor. */
template <class Frame>
class Arrivals
{
 public:
  void push(Frame frame)
  {
    frames_.push_back(std::move(frame));
    if (asleep_) {
      asleep_ = false;
      ready_->release();
    }
  }
  /** The next frame; waits while there is none. */
  Frame take()
  {
    while (frames_.empty()) {
      asleep_ = true;
      ready_->acquire();
    }
    Frame next = std::move(frames_.front());
    frames_.pop_front();
    return next;
  }

 private:
  std::deque<Frame> frames_;
  simgrid::s4u::SemaphorePtr ready_ = simgrid::s4u::Semaphore::create(0);
  bool asleep_                      = false;
};

template <class Frame>
class WireLanes
{
 public:
  WireLanes()
  {
    watch_ = watch_completions([this](const void* transfer) { ended(transfer); });
  }
  ~WireLanes() { stop_watching_completions(watch_); }
  WireLanes(const WireLanes&)            = delete;
  WireLanes& operator=(const WireLanes&) = delete;

  /** Records that `transfer` (started, not waited for by anyone but perhaps its sender) carries
   * `frame` from node `from` to node `to` on `network`, for `receiver`. */
  void sent(const simgrid::s4u::Comm& transfer, int from, int to, unsigned network, Arrivals<Frame>& receiver,
            Frame frame)
  {
    uint64_t key = (static_cast<uint64_t>(from) << 33) | (static_cast<uint64_t>(to) << 1) | (network & 1U);
    Lane& lane   = lanes_[key];
    in_flight_.emplace(kernel_of(transfer), InFlight{key, &lane, lane.sent++, &receiver, std::move(frame)});
  }

 private:
  struct Lane {
    uint64_t sent = 0, taken = 0;
    std::map<uint64_t, Frame> early; // arrived before an earlier frame of the lane, by number
  };
  struct InFlight {
    uint64_t key;
    Lane* lane;
    uint64_t number;
    Arrivals<Frame>* receiver;
    Frame frame;
  };

  void ended(const void* transfer)
  {
    auto it = in_flight_.find(transfer);
    if (it == in_flight_.end())
      return; // not one of ours
    InFlight arrived = std::move(it->second);
    in_flight_.erase(it);
    Lane& lane = *arrived.lane;
    if (arrived.number != lane.taken) {
      lane.early.emplace(arrived.number, std::move(arrived.frame));
      return;
    }
    arrived.receiver->push(std::move(arrived.frame));
    ++lane.taken;
    for (auto next = lane.early.begin(); next != lane.early.end() && next->first == lane.taken;
         next      = lane.early.erase(next)) {
      arrived.receiver->push(std::move(next->second));
      ++lane.taken;
    }
    if (lane.taken == lane.sent) // nothing of the lane in flight: its numbers may start again
      lanes_.erase(arrived.key);
  }

  std::unordered_map<const void*, InFlight> in_flight_; // by SimGrid kernel communication
  std::unordered_map<uint64_t, Lane> lanes_;            // those with frames in flight
  unsigned watch_ = 0;
};

} // namespace bxisim::hw
