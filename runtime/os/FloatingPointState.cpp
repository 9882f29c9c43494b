#include "FloatingPointState.hpp"

#include <xmmintrin.h>

namespace bxisim::os
{
namespace
{
constexpr uint32_t kFlagBits = 0x3f; // invalid, denormal, divide by zero, overflow, underflow, inexact: both units

/** The x87 environment as fnstenv stores it (32-bit protected mode layout, 28 bytes). */
struct X87Environment {
  uint32_t control, status, tags, instruction_offset, instruction_selector, operand_offset, operand_selector;
};

uint16_t x87_control_word()
{
  uint16_t control = 0;
  asm volatile("fnstcw %0" : "=m"(control));
  return control;
}

uint16_t x87_status_word()
{
  uint16_t status = 0;
  asm volatile("fnstsw %0" : "=m"(status));
  return status;
}

/** The simulator's own control bits, as the process started (before any rank's code or constructor ran). */
struct SimulatorControl {
  uint32_t sse = _mm_getcsr() & ~kFlagBits;
  uint16_t x87 = x87_control_word();
};
const SimulatorControl simulator_control;
} // namespace

FloatingPointState take_floating_point_state()
{
  FloatingPointState state;
  state.sse = _mm_getcsr();
  if (state.sse != simulator_control.sse) // the simulator's flags start clear too
    _mm_setcsr(simulator_control.sse);
  state.x87_control = x87_control_word();
  if (state.x87_control != simulator_control.x87)
    asm volatile("fldcw %0" : : "m"(simulator_control.x87));
  state.x87_flags = x87_status_word() & kFlagBits;
  if (state.x87_flags != 0)
    asm volatile("fnclex");
  return state;
}

void put_floating_point_state(const FloatingPointState& state)
{
  if (_mm_getcsr() != state.sse)
    _mm_setcsr(state.sse);
  if (x87_control_word() != state.x87_control)
    asm volatile("fldcw %0" : : "m"(state.x87_control));
  if ((x87_status_word() & kFlagBits) == state.x87_flags)
    return;
  X87Environment environment{}; // only long double arithmetic raises these: a rare, slower path
  asm volatile("fnstenv %0" : "=m"(environment));
  environment.status = (environment.status & ~kFlagBits) | state.x87_flags;
  asm volatile("fldenv %0" : : "m"(environment));
}

} // namespace bxisim::os
