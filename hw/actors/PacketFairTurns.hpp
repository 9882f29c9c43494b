#pragma once
// Which virtual network sends the next message on a NIC's link. Packets of different messages are never
// interleaved on the cable (thesis 2.2.3), so the link goes to one whole message at a time; the
// arbiter is fair in packets, not in messages: deficit round robin with a quantum of one packet (as
// InfiniBand's virtual lane arbiter weighs lanes in 64-byte units). A network that sent a message of k
// packets waits until the others have had the chance to send k packets.
//
// Why not one message per network in turn: a node that receives a stream of Puts owes two response
// frames per Put (its BXI ACK and its Portals ACK) and, while it streams Puts itself, got one turn per
// Put it sent. Its acknowledgements fell further behind with every Put, the peer's sends completed late
// and the exchange turned on who happened to get ahead (a 500 x 500 strided exchange took 350 us at one
// NIC level and 231 us at the other). Counting packets, a stream of 32 KiB Puts lets hundreds of
// acknowledgements by.
//
// Both NIC models ask it at each grant of their link (hw/message's send_on_wire, hw/cycle's
// WireArbiter), with the packets of the message each network could send now (0: none).

#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>

namespace bxisim::hw
{

template <std::size_t Networks>
class PacketFairTurns
{
 public:
  using Heads = std::array<uint64_t, Networks>; // packets of the message each network could send; 0: none

  /** The network whose message goes next (-1 if none has one); changes nothing. */
  int next(const Heads& packets) const { return std::get<0>(decide(packets)); }

  /** The link goes to `next(packets)`'s message: the turns it took are accounted for. */
  int grant(const Heads& packets)
  {
    auto [chosen, rounds, position] = decide(packets);
    if (chosen < 0)
      return chosen;
    if (rounds > 0) {
      for (std::size_t network = 0; network < Networks; ++network) {
        if (packets[network] == 0)
          deficit_[network] = 0; // a network with nothing to send keeps no credit
        else
          deficit_[network] += position_after(network) <= position ? rounds : rounds - 1;
      }
    }
    current_ = chosen;
    deficit_[chosen] -= packets[chosen];
    return chosen;
  }

 private:
  /** Position of `network` in the next round, counting from the one after the current network (1..N). */
  std::size_t position_after(std::size_t network) const
  {
    std::size_t offset = (network + Networks - static_cast<std::size_t>(current_)) % Networks;
    return offset == 0 ? Networks : offset;
  }

  /** The chosen network, the round of visits in which it gets the link (0: the current network's turn
   * goes on) and its position in that round. */
  std::tuple<int, uint64_t, std::size_t> decide(const Heads& packets) const
  {
    if (packets[current_] > 0 && packets[current_] <= deficit_[current_])
      return {current_, 0, 0};
    int chosen           = -1;
    uint64_t best_rounds = 0;
    std::size_t best_at  = 0;
    for (std::size_t network = 0; network < Networks; ++network) {
      if (packets[network] == 0)
        continue;
      // Each visit adds one packet of credit; the message goes at the visit where it is covered.
      uint64_t credit = deficit_[network];
      uint64_t rounds = packets[network] > credit ? packets[network] - credit : 1;
      std::size_t at  = position_after(network);
      if (chosen < 0 || rounds < best_rounds || (rounds == best_rounds && at < best_at)) {
        chosen      = static_cast<int>(network);
        best_rounds = rounds;
        best_at     = at;
      }
    }
    return {chosen, best_rounds, best_at};
  }

  std::array<uint64_t, Networks> deficit_{};
  int current_ = Networks - 1; // the first round starts with network 0
};

} // namespace bxisim::hw
