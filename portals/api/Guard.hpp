/* Every C entry point runs its C++ body through guarded(): an exception (a bug, or an allocation
 * failure) becomes a logged PTL_FAIL instead of unwinding through C code. The one exception that
 * must unwind is SimGrid's ForcefulKillException: it ends the calling actor (a rank killed when the
 * simulation ends, or by a crash report). The runtime's call scope is open while the body runs. */
#ifndef BXISIM_PORTALS_API_GUARD_HPP
#define BXISIM_PORTALS_API_GUARD_HPP

#include "portals/core/Core.hpp"

#include <simgrid/Exception.hpp>

#include <exception>
#include <utility>

namespace bxisim::portals
{

void log_api_failure(const char* function, const char* what);

/* The edges of an API call (Core::CallEdges): the first object built, the last destroyed. */
class CallEdge
{
 public:
  CallEdge()
  {
    if (auto enter = Core::call_edges().enter)
      enter();
  }
  ~CallEdge()
  {
    if (auto leave = Core::call_edges().leave)
      leave();
  }
  CallEdge(const CallEdge&)            = delete;
  CallEdge& operator=(const CallEdge&) = delete;
};

/* `arguments` describes the call's arguments, for the blocking calls (see Core::set_call_scope). */
/* A call that made an object: its handle, written in `*handle` by Core, becomes the calling process's
 * own number for it (Core::local_handle). */
inline int returning_handle(Core& core, int rc, ptl_handle_any_t* handle)
{
  if (rc == PTL_OK && handle != nullptr)
    *handle = core.local_handle(*handle);
  return rc;
}

/* `describe(core)` gives the call's arguments (Core::CallArguments); it runs inside the guard, as the body does. */
template <typename D, typename F>
int guarded_described(const char* function, D&& describe, F&& body)
{
  CallEdge edge;
  try {
    Core& core                    = Core::instance();
    Core::CallArguments arguments = describe(core); // the scope refers to it until the call returns
    auto scope                    = core.open_call_scope(function, arguments);
    return body(core);
  } catch (const simgrid::ForcefulKillException&) {
    throw;
  } catch (const std::exception& e) {
    log_api_failure(function, e.what());
  } catch (...) {
    log_api_failure(function, "unknown exception");
  }
  return PTL_FAIL;
}

template <typename F>
int guarded(const char* function, const Core::CallArguments& arguments, F&& body)
{
  return guarded_described(
      function, [&arguments](Core&) { return arguments; }, std::forward<F>(body));
}

template <typename F>
int guarded(const char* function, F&& body)
{
  return guarded(function, Core::CallArguments(), std::forward<F>(body));
}

} // namespace bxisim::portals

#endif
