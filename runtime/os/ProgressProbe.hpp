#pragma once
// Telling a rank that busy-waits on memory from one that computes, without CPU simulation.
//
// A preempted rank's pause lets simulated time pass only if it waits (os/Preemption.hpp): a pause of a computing rank
// that added time would make its simulated times depend on the host's speed. The pauses of one stretch of its own code
// (between two simulator calls) come a quantum apart; a wait on memory (`while (!flag) {}`, `while (*counter < n)
// cpu_relax();`) is found with the same general-purpose registers each time, in the same few instructions, as nothing
// it computes changes; a computation moves at least its loop's index (an outer loop without an integer index may bring
// it back to the same registers once by chance: a wait is one found so at two earlier looks). A wait whose registers
// change (a loop that also counts) is not told from a computation here: the supervisor's --preempt-after still ends the
// doubt.

#include <array>
#include <cstdint>
#include <ucontext.h>

namespace bxisim::os
{

class ProgressProbe
{
 public:
  enum class Finding {
    FirstLook, ///< no earlier look in this stretch: nothing to compare with
    Stuck,     ///< the same registers as at two earlier looks of this stretch: it waits
    Moving,    ///< not so, though it was looked at before in this stretch: it computes
  };

  /** Records the registers of the rank's code, interrupted in the stretch numbered `stretch`, and compares them with
   * the earlier looks of that stretch (a few are kept: threads of one rank alternate). */
  Finding look(unsigned long stretch, const mcontext_t& interrupted);

 private:
  static constexpr int kRegisters = 16; // REG_R8 .. REG_RSP; REG_RIP follows
  struct Look {
    unsigned long stretch = ~0UL;
    std::array<greg_t, kRegisters> registers{};
    greg_t instruction = 0;
  };
  std::array<Look, 4> looks_;
  size_t next_ = 0;
};

} // namespace bxisim::os
