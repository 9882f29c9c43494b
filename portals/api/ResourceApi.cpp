/* C entry points: portal table entries, memory descriptors, event queues, counting events. */
#include "portals/api/Guard.hpp"

#include <cstdio>
#include <string>
#include <vector>

using bxisim::portals::Core;
using bxisim::portals::guarded;
using bxisim::portals::returning_handle;

namespace
{
/* How the blocking calls' arguments read in the runtime's deadlock report. */
std::string handle_text(ptl_handle_any_t handle)
{
  char text[16];
  std::snprintf(text, sizeof(text), "%#x", handle);
  return text;
}

std::string handle_list(const ptl_handle_any_t* handles, unsigned size)
{
  std::string text = "{";
  for (unsigned i = 0; handles != nullptr && i < size; ++i)
    text += (i > 0 ? "," : "") + handle_text(handles[i]);
  return text + "}";
}

std::string timeout_text(ptl_time_t timeout)
{
  return timeout == PTL_TIME_FOREVER ? std::string("PTL_TIME_FOREVER") : std::to_string(timeout) + " ms";
}
} // namespace

extern "C" {

int PtlPTAlloc(ptl_handle_ni_t ni_handle, unsigned int options, ptl_handle_eq_t eq_handle, ptl_pt_index_t pt_index_req,
               ptl_pt_index_t* pt_index)
{
  return guarded("PtlPTAlloc", [&](Core& c) {
    return c.pt_alloc(c.global_handle(ni_handle), options, c.global_handle(eq_handle), pt_index_req, pt_index);
  });
}

int PtlPTFree(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return guarded("PtlPTFree", [&](Core& c) { return c.pt_free(c.global_handle(ni_handle), pt_index); });
}

int PtlPTDisable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return guarded("PtlPTDisable", [&](Core& c) { return c.pt_enable(c.global_handle(ni_handle), pt_index, false); });
}

int PtlPTEnable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return guarded("PtlPTEnable", [&](Core& c) { return c.pt_enable(c.global_handle(ni_handle), pt_index, true); });
}

int PtlMDBind(ptl_handle_ni_t ni_handle, const ptl_md_t* md, ptl_handle_md_t* md_handle)
{
  return guarded("PtlMDBind", [&](Core& c) {
    if (md == nullptr)
      return c.md_bind(c.global_handle(ni_handle), md, md_handle);
    ptl_md_t inside  = *md;
    inside.eq_handle = c.global_handle(md->eq_handle);
    inside.ct_handle = c.global_handle(md->ct_handle);
    return returning_handle(c, c.md_bind(c.global_handle(ni_handle), &inside, md_handle), md_handle);
  });
}

int PtlMDRelease(ptl_handle_md_t md_handle)
{
  return guarded("PtlMDRelease", [&](Core& c) { return c.md_release(c.global_handle(md_handle)); });
}

int PtlEQAlloc(ptl_handle_ni_t ni_handle, ptl_size_t count, ptl_handle_eq_t* eq_handle)
{
  return guarded("PtlEQAlloc", [&](Core& c) {
    return returning_handle(c, c.eq_alloc(c.global_handle(ni_handle), count, eq_handle), eq_handle);
  });
}

int PtlEQFree(ptl_handle_eq_t eq_handle)
{
  return guarded("PtlEQFree", [&](Core& c) { return c.eq_free(c.global_handle(eq_handle)); });
}

int PtlEQGet(ptl_handle_eq_t eq_handle, ptl_event_t* event)
{
  return guarded("PtlEQGet", [&](Core& c) { return c.eq_get(c.global_handle(eq_handle), event); });
}

int PtlEQWait(ptl_handle_eq_t eq_handle, ptl_event_t* event)
{
  return guarded(
      "PtlEQWait", [&] { return "eq_handle=" + handle_text(eq_handle); },
      [&](Core& c) { return c.eq_wait(c.global_handle(eq_handle), event); });
}

int PtlEQPoll(const ptl_handle_eq_t* eq_handles, unsigned int size, ptl_time_t timeout, ptl_event_t* event,
              unsigned int* which)
{
  return guarded(
      "PtlEQPoll", [&] { return "eq_handles=" + handle_list(eq_handles, size) + ", timeout=" + timeout_text(timeout); },
      [&](Core& c) {
        std::vector<ptl_handle_eq_t> inside(eq_handles != nullptr ? size : 0);
        for (size_t i = 0; i < inside.size(); ++i)
          inside[i] = c.global_handle(eq_handles[i]);
        return c.eq_poll(eq_handles != nullptr ? inside.data() : nullptr, size, timeout, event, which);
      });
}

int PtlCTAlloc(ptl_handle_ni_t ni_handle, ptl_handle_ct_t* ct_handle)
{
  return guarded("PtlCTAlloc", [&](Core& c) {
    return returning_handle(c, c.ct_alloc(c.global_handle(ni_handle), ct_handle), ct_handle);
  });
}

int PtlCTFree(ptl_handle_ct_t ct_handle)
{
  return guarded("PtlCTFree", [&](Core& c) { return c.ct_free(c.global_handle(ct_handle)); });
}

int PtlCTCancelTriggered(ptl_handle_ct_t ct_handle)
{
  return guarded("PtlCTCancelTriggered", [&](Core& c) { return c.ct_cancel_triggered(c.global_handle(ct_handle)); });
}

int PtlCTGet(ptl_handle_ct_t ct_handle, ptl_ct_event_t* event)
{
  return guarded("PtlCTGet", [&](Core& c) { return c.ct_get(c.global_handle(ct_handle), event); });
}

int PtlCTWait(ptl_handle_ct_t ct_handle, ptl_size_t test, ptl_ct_event_t* event)
{
  return guarded(
      "PtlCTWait", [&] { return "ct_handle=" + handle_text(ct_handle) + ", test=" + std::to_string(test); },
      [&](Core& c) { return c.ct_wait(c.global_handle(ct_handle), test, event); });
}

int PtlCTPoll(const ptl_handle_ct_t* ct_handles, const ptl_size_t* tests, unsigned int size, ptl_time_t timeout,
              ptl_ct_event_t* event, unsigned int* which)
{
  return guarded(
      "PtlCTPoll",
      [&] {
        std::string text = "ct_handles=" + handle_list(ct_handles, size) + ", tests=";
        for (unsigned i = 0; tests != nullptr && i < size; ++i)
          text += (i > 0 ? "," : "") + std::to_string(tests[i]);
        return text + ", timeout=" + timeout_text(timeout);
      },
      [&](Core& c) {
        std::vector<ptl_handle_ct_t> inside(ct_handles != nullptr ? size : 0);
        for (size_t i = 0; i < inside.size(); ++i)
          inside[i] = c.global_handle(ct_handles[i]);
        return c.ct_poll(ct_handles != nullptr ? inside.data() : nullptr, tests, size, timeout, event, which);
      });
}

int PtlCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct)
{
  return guarded("PtlCTSet", [&](Core& c) { return c.ct_set(c.global_handle(ct_handle), new_ct); });
}

int PtlCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment)
{
  return guarded("PtlCTInc", [&](Core& c) { return c.ct_inc(c.global_handle(ct_handle), increment); });
}

} // extern "C"
