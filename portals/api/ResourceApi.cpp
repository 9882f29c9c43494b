/* C entry points: portal table entries, memory descriptors, event queues, counting events. */
#include "portals/api/Guard.hpp"

#include <cstdio>
#include <string>
#include <vector>

using bxisim::portals::Core;
using bxisim::portals::guarded;
using bxisim::portals::returningHandle;

namespace
{
/* How the blocking calls' arguments read in the runtime's deadlock report. */
std::string handleText(ptl_handle_any_t handle)
{
  char text[16];
  std::snprintf(text, sizeof(text), "%#x", handle);
  return text;
}

std::string handleList(const ptl_handle_any_t* handles, unsigned size)
{
  std::string text = "{";
  for (unsigned i = 0; handles != nullptr && i < size; ++i)
    text += (i > 0 ? "," : "") + handleText(handles[i]);
  return text + "}";
}

std::string timeoutText(ptl_time_t timeout)
{
  return timeout == PTL_TIME_FOREVER ? std::string("PTL_TIME_FOREVER") : std::to_string(timeout) + " ms";
}
} // namespace

extern "C" {

int PtlPTAlloc(ptl_handle_ni_t ni_handle, unsigned int options, ptl_handle_eq_t eq_handle, ptl_pt_index_t pt_index_req,
               ptl_pt_index_t* pt_index)
{
  return guarded("PtlPTAlloc", [&](Core& c) {
    return c.ptAlloc(c.globalHandle(ni_handle), options, c.globalHandle(eq_handle), pt_index_req, pt_index);
  });
}

int PtlPTFree(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return guarded("PtlPTFree", [&](Core& c) { return c.ptFree(c.globalHandle(ni_handle), pt_index); });
}

int PtlPTDisable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return guarded("PtlPTDisable", [&](Core& c) { return c.ptEnable(c.globalHandle(ni_handle), pt_index, false); });
}

int PtlPTEnable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return guarded("PtlPTEnable", [&](Core& c) { return c.ptEnable(c.globalHandle(ni_handle), pt_index, true); });
}

int PtlMDBind(ptl_handle_ni_t ni_handle, const ptl_md_t* md, ptl_handle_md_t* md_handle)
{
  return guarded("PtlMDBind", [&](Core& c) {
    if (md == nullptr)
      return c.mdBind(c.globalHandle(ni_handle), md, md_handle);
    ptl_md_t inside  = *md;
    inside.eq_handle = c.globalHandle(md->eq_handle);
    inside.ct_handle = c.globalHandle(md->ct_handle);
    return returningHandle(c, c.mdBind(c.globalHandle(ni_handle), &inside, md_handle), md_handle);
  });
}

int PtlMDRelease(ptl_handle_md_t md_handle)
{
  return guarded("PtlMDRelease", [&](Core& c) { return c.mdRelease(c.globalHandle(md_handle)); });
}

int PtlEQAlloc(ptl_handle_ni_t ni_handle, ptl_size_t count, ptl_handle_eq_t* eq_handle)
{
  return guarded("PtlEQAlloc", [&](Core& c) {
    return returningHandle(c, c.eqAlloc(c.globalHandle(ni_handle), count, eq_handle), eq_handle);
  });
}

int PtlEQFree(ptl_handle_eq_t eq_handle)
{
  return guarded("PtlEQFree", [&](Core& c) { return c.eqFree(c.globalHandle(eq_handle)); });
}

int PtlEQGet(ptl_handle_eq_t eq_handle, ptl_event_t* event)
{
  return guarded("PtlEQGet", [&](Core& c) { return c.eqGet(c.globalHandle(eq_handle), event); });
}

int PtlEQWait(ptl_handle_eq_t eq_handle, ptl_event_t* event)
{
  return guarded(
      "PtlEQWait", [&] { return "eq_handle=" + handleText(eq_handle); },
      [&](Core& c) { return c.eqWait(c.globalHandle(eq_handle), event); });
}

int PtlEQPoll(const ptl_handle_eq_t* eq_handles, unsigned int size, ptl_time_t timeout, ptl_event_t* event,
              unsigned int* which)
{
  return guarded(
      "PtlEQPoll", [&] { return "eq_handles=" + handleList(eq_handles, size) + ", timeout=" + timeoutText(timeout); },
      [&](Core& c) {
        std::vector<ptl_handle_eq_t> inside(eq_handles != nullptr ? size : 0);
        for (size_t i = 0; i < inside.size(); ++i)
          inside[i] = c.globalHandle(eq_handles[i]);
        return c.eqPoll(eq_handles != nullptr ? inside.data() : nullptr, size, timeout, event, which);
      });
}

int PtlCTAlloc(ptl_handle_ni_t ni_handle, ptl_handle_ct_t* ct_handle)
{
  return guarded("PtlCTAlloc", [&](Core& c) {
    return returningHandle(c, c.ctAlloc(c.globalHandle(ni_handle), ct_handle), ct_handle);
  });
}

int PtlCTFree(ptl_handle_ct_t ct_handle)
{
  return guarded("PtlCTFree", [&](Core& c) { return c.ctFree(c.globalHandle(ct_handle)); });
}

int PtlCTCancelTriggered(ptl_handle_ct_t ct_handle)
{
  return guarded("PtlCTCancelTriggered", [&](Core& c) { return c.ctCancelTriggered(c.globalHandle(ct_handle)); });
}

int PtlCTGet(ptl_handle_ct_t ct_handle, ptl_ct_event_t* event)
{
  return guarded("PtlCTGet", [&](Core& c) { return c.ctGet(c.globalHandle(ct_handle), event); });
}

int PtlCTWait(ptl_handle_ct_t ct_handle, ptl_size_t test, ptl_ct_event_t* event)
{
  return guarded(
      "PtlCTWait", [&] { return "ct_handle=" + handleText(ct_handle) + ", test=" + std::to_string(test); },
      [&](Core& c) { return c.ctWait(c.globalHandle(ct_handle), test, event); });
}

int PtlCTPoll(const ptl_handle_ct_t* ct_handles, const ptl_size_t* tests, unsigned int size, ptl_time_t timeout,
              ptl_ct_event_t* event, unsigned int* which)
{
  return guarded(
      "PtlCTPoll",
      [&] {
        std::string text = "ct_handles=" + handleList(ct_handles, size) + ", tests=";
        for (unsigned i = 0; tests != nullptr && i < size; ++i)
          text += (i > 0 ? "," : "") + std::to_string(tests[i]);
        return text + ", timeout=" + timeoutText(timeout);
      },
      [&](Core& c) {
        std::vector<ptl_handle_ct_t> inside(ct_handles != nullptr ? size : 0);
        for (size_t i = 0; i < inside.size(); ++i)
          inside[i] = c.globalHandle(ct_handles[i]);
        return c.ctPoll(ct_handles != nullptr ? inside.data() : nullptr, tests, size, timeout, event, which);
      });
}

int PtlCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct)
{
  return guarded("PtlCTSet", [&](Core& c) { return c.ctSet(c.globalHandle(ct_handle), new_ct); });
}

int PtlCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment)
{
  return guarded("PtlCTInc", [&](Core& c) { return c.ctInc(c.globalHandle(ct_handle), increment); });
}

} // extern "C"
