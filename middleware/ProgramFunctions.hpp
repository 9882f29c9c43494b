#pragma once
// A function of the program, named the same way in every rank. Each rank runs its own copy of the
// program, so a function a rank hands to MPI (a user operation, an error handler) has another address
// in every rank. The trampoline pools (Callbacks.cpp, FortranSupport.cpp) key their slots by this
// name, so that one function takes one slot whatever the number of ranks (a slot per rank's copy ran
// out at 512 ranks), and call the calling rank's copy of it.

#include <cstdint>

namespace bxisim::mw
{

struct ProgramFunction {
  uintptr_t value = 0;     // the offset in the program's image, or the address itself
  bool in_program = false; // false: in an object every rank shares (a library, bxisim)
  bool operator==(const ProgramFunction& other) const { return value == other.value && in_program == other.in_program; }
};

/** `function` as `rank` handed it to MPI. */
ProgramFunction program_function_of(int rank, const void* function);
/** The address of `function` in `rank`'s copy of the program. */
void* address_in(int rank, ProgramFunction function);

} // namespace bxisim::mw
