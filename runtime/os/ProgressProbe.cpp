#include "ProgressProbe.hpp"

#include <algorithm>
#include <cstdlib>

namespace bxisim::os
{

namespace
{
// A wait's loop is a few instructions: two looks in it are this close. A computation that returns to the same
// instruction has moved its index.
constexpr greg_t kLoopSpan      = 256;
constexpr int kSameLooksOfAWait = 2;
} // namespace

ProgressProbe::Finding ProgressProbe::look(unsigned long stretch, const mcontext_t& interrupted)
{
  static_assert(REG_RSP == kRegisters - 1 && REG_RIP == kRegisters, "the general-purpose registers come first");
  Look now;
  now.stretch = stretch;
  std::copy_n(interrupted.gregs, kRegisters, now.registers.begin());
  now.instruction = interrupted.gregs[REG_RIP];

  int earlier_looks = 0;
  int same_looks    = 0;
  for (const Look& earlier : looks_) {
    if (earlier.stretch != stretch)
      continue;
    ++earlier_looks;
    if (earlier.registers == now.registers && std::abs(earlier.instruction - now.instruction) < kLoopSpan)
      ++same_looks;
  }
  // Twice the same: once may be chance, a computation's loop found twice at the same point of its period.
  Finding finding = same_looks >= kSameLooksOfAWait ? Finding::Stuck
                    : earlier_looks > 0             ? Finding::Moving
                                                    : Finding::FirstLook;
  looks_[next_]   = now;
  next_           = (next_ + 1) % looks_.size();
  return finding;
}

} // namespace bxisim::os
