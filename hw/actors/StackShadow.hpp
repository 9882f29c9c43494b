#pragma once
// AddressSanitizer and the ranks' stacks (docs/sanitizers-and-fuzzing.md).
//
// Ranks, NIC actors and the SystemC bridge run on SimGrid actors' stacks, which ASan does not know (SimGrid tells it
// only when SimGrid itself is built with ASan): when an exception, a kill or a longjmp abandons frames there, ASan's
// __asan_handle_no_return declines to clear their redzones (google/sanitizers#189), and the next frames
// built over them see a poisoned shadow: false stack-buffer-overflow reports. bxisim knows where an
// actor's stack is and clears that shadow itself where frames are abandoned, or where every frame below
// a loop is known dead. Without ASan these do nothing.

#include <cstdint>

namespace bxisim::hw
{

/** The part of an actor's stack below its first frame of bxisim code. */
struct ActorStack {
  uintptr_t bottom = 0;
  uintptr_t top    = 0;
};

/** Called first thing by the function an actor runs: its frame tells where the stack is. */
ActorStack actor_stack_from(const void* first_frame);

/** After a longjmp landed, in a catch block, at the top of an actor's loop: every frame below the caller's
 * is gone. `depth` bounds how far below the caller's frame the shadow is cleared (a loop run often). */
void forget_frames_below_caller(const ActorStack& stack, uintptr_t depth = UINTPTR_MAX);

/** The kill SimGrid is about to throw will abandon frames anywhere on the stack: clears it whole. */
void forget_all_frames(const ActorStack& stack);

/** From the actor itself: when it is killed (or ends), its stack is cleared before SimGrid unwinds it. */
void forget_all_frames_at_exit(const ActorStack& stack);

} // namespace bxisim::hw
