#pragma once
// AddressSanitizer and the ranks' stacks (docs/sanitizers-and-fuzzing.md).
//
// A rank runs on a SimGrid actor's stack, which ASan does not know (SimGrid tells it only when SimGrid
// itself is built with ASan): when an exception, a kill or a longjmp abandons frames there, ASan's
// __asan_handle_no_return declines to clear their redzones (google/sanitizers#189), and the next frames
// built over them see a poisoned shadow: false stack-buffer-overflow reports. bxisim knows where a
// rank's stack is and clears that shadow itself where frames are abandoned. Without ASan these do nothing.

#include <cstdint>

namespace bxisim::os
{

/** The part of an actor's stack below its first frame of bxisim code. */
struct ActorStack {
  uintptr_t bottom = 0;
  uintptr_t top    = 0;
};

/** Called first thing by the function an actor runs: its frame tells where the stack is. */
ActorStack actor_stack_from(const void* first_frame);

/** After a longjmp landed or in a catch block: every frame below the caller's is gone. */
void forget_frames_below_caller(const ActorStack& stack);

/** The kill SimGrid is about to throw will abandon frames anywhere on the stack: clears it whole. */
void forget_all_frames(const ActorStack& stack);

} // namespace bxisim::os
