#include "StackShadow.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <xbt/config.hpp>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace bxisim::hw
{

namespace
{
// The actor's first bxisim frame lies below SimGrid's own frames at the top of the stack, so the
// stack's size measured from it overshoots the bottom: this much is left out, rather than clearing
// the shadow of memory beyond the stack (a guard page, or another heap block when guards are off).
constexpr uintptr_t kBottomMargin = 16 * 1024;

#if defined(__SANITIZE_ADDRESS__)
void clear(uintptr_t from, uintptr_t to)
{
  if (to > from)
    __asan_unpoison_memory_region(reinterpret_cast<void*>(from), to - from);
}
#endif
} // namespace

ActorStack actor_stack_from(const void* first_frame)
{
  ActorStack stack;
  stack.top      = reinterpret_cast<uintptr_t>(first_frame);
  uintptr_t size = static_cast<uintptr_t>(simgrid::config::get_value<int>("contexts/stack-size")) * 1024;
  stack.bottom   = size > stack.top ? 0 : stack.top - size + kBottomMargin;
  return stack;
}

__attribute__((noinline)) void forget_frames_below_caller([[maybe_unused]] const ActorStack& stack,
                                                          [[maybe_unused]] uintptr_t depth)
{
#if defined(__SANITIZE_ADDRESS__)
  // The caller's frame is above this one's: the frame address of the caller is where its frame ends.
  auto caller_frame_end = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (stack.top == 0 || caller_frame_end < stack.bottom || caller_frame_end > stack.top)
    return; // not on that actor's stack: nothing known about this one
  uintptr_t from = caller_frame_end - stack.bottom > depth ? caller_frame_end - depth : stack.bottom;
  clear(from, caller_frame_end);
#endif
}

void forget_all_frames([[maybe_unused]] const ActorStack& stack)
{
#if defined(__SANITIZE_ADDRESS__)
  if (stack.top != 0)
    clear(stack.bottom, stack.top);
#endif
}

void forget_all_frames_at_exit([[maybe_unused]] const ActorStack& stack)
{
#if defined(__SANITIZE_ADDRESS__)
  simgrid::s4u::this_actor::on_exit([stack](bool) { forget_all_frames(stack); });
#endif
}

} // namespace bxisim::hw
