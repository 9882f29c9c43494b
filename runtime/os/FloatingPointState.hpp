#pragma once
// The floating-point environment of a process: a rank's own, as if it ran alone on its thread. Ranks and the
// simulator share one thread, whose SSE control and status register (MXCSR) and x87 control and status words would
// otherwise carry what one rank set into the others and into the simulator's own arithmetic.

#include <cstdint>

namespace bxisim::os
{

/**
 * What a rank sets and raises in the floating-point unit: the exception flags its code raised (gfortran's STOP reports
 * them), and the control bits its code or its constructors set: rounding (`fesetround`), flush-to-zero and
 * denormals-are-zero (`-Ofast` links crtfastmath, whose constructor sets them), unmasked exceptions (`feenableexcept`,
 * gfortran's `-ffpe-trap`). Shared, a rank's `fesetround(FE_UPWARD)` rounded the other ranks' arithmetic and the
 * simulator's (simulated times changed in their last bits), and an unmasked exception would have trapped in the
 * simulator's code.
 */
struct FloatingPointState {
  uint32_t sse         = 0x1f80; // MXCSR as a process starts: all exceptions masked, round to nearest, no FTZ/DAZ
  uint16_t x87_control = 0x037f; // likewise for the x87 unit (extended precision)
  uint16_t x87_flags   = 0;      // the x87 status word's exception flags
};

/** Saves the thread's floating-point state (the leaving rank's) and gives the thread the simulator's. */
FloatingPointState take_floating_point_state();
/** Gives the thread `state` (a resuming rank's). */
void put_floating_point_state(const FloatingPointState& state);

} // namespace bxisim::os
