/* C entry points: portal table entries, memory descriptors, event queues, counting events. */
#include "portals/api/Guard.hpp"

#include <cstdio>
#include <string>

using bxisim::portals::Core;
using bxisim::portals::guarded;

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
  return guarded("PtlPTAlloc",
                 [&](Core& c) { return c.ptAlloc(ni_handle, options, eq_handle, pt_index_req, pt_index); });
}

int PtlPTFree(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return guarded("PtlPTFree", [&](Core& c) { return c.ptFree(ni_handle, pt_index); });
}

int PtlPTDisable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return guarded("PtlPTDisable", [&](Core& c) { return c.ptEnable(ni_handle, pt_index, false); });
}

int PtlPTEnable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return guarded("PtlPTEnable", [&](Core& c) { return c.ptEnable(ni_handle, pt_index, true); });
}

int PtlMDBind(ptl_handle_ni_t ni_handle, const ptl_md_t* md, ptl_handle_md_t* md_handle)
{
  return guarded("PtlMDBind", [&](Core& c) { return c.mdBind(ni_handle, md, md_handle); });
}

int PtlMDRelease(ptl_handle_md_t md_handle)
{
  return guarded("PtlMDRelease", [&](Core& c) { return c.mdRelease(md_handle); });
}

int PtlEQAlloc(ptl_handle_ni_t ni_handle, ptl_size_t count, ptl_handle_eq_t* eq_handle)
{
  return guarded("PtlEQAlloc", [&](Core& c) { return c.eqAlloc(ni_handle, count, eq_handle); });
}

int PtlEQFree(ptl_handle_eq_t eq_handle)
{
  return guarded("PtlEQFree", [&](Core& c) { return c.eqFree(eq_handle); });
}

int PtlEQGet(ptl_handle_eq_t eq_handle, ptl_event_t* event)
{
  return guarded("PtlEQGet", [&](Core& c) { return c.eqGet(eq_handle, event); });
}

int PtlEQWait(ptl_handle_eq_t eq_handle, ptl_event_t* event)
{
  return guarded(
      "PtlEQWait", [&] { return "eq_handle=" + handleText(eq_handle); },
      [&](Core& c) { return c.eqWait(eq_handle, event); });
}

int PtlEQPoll(const ptl_handle_eq_t* eq_handles, unsigned int size, ptl_time_t timeout, ptl_event_t* event,
              unsigned int* which)
{
  return guarded(
      "PtlEQPoll", [&] { return "eq_handles=" + handleList(eq_handles, size) + ", timeout=" + timeoutText(timeout); },
      [&](Core& c) { return c.eqPoll(eq_handles, size, timeout, event, which); });
}

int PtlCTAlloc(ptl_handle_ni_t ni_handle, ptl_handle_ct_t* ct_handle)
{
  return guarded("PtlCTAlloc", [&](Core& c) { return c.ctAlloc(ni_handle, ct_handle); });
}

int PtlCTFree(ptl_handle_ct_t ct_handle)
{
  return guarded("PtlCTFree", [&](Core& c) { return c.ctFree(ct_handle); });
}

int PtlCTCancelTriggered(ptl_handle_ct_t ct_handle)
{
  return guarded("PtlCTCancelTriggered", [&](Core& c) { return c.ctCancelTriggered(ct_handle); });
}

int PtlCTGet(ptl_handle_ct_t ct_handle, ptl_ct_event_t* event)
{
  return guarded("PtlCTGet", [&](Core& c) { return c.ctGet(ct_handle, event); });
}

int PtlCTWait(ptl_handle_ct_t ct_handle, ptl_size_t test, ptl_ct_event_t* event)
{
  return guarded(
      "PtlCTWait", [&] { return "ct_handle=" + handleText(ct_handle) + ", test=" + std::to_string(test); },
      [&](Core& c) { return c.ctWait(ct_handle, test, event); });
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
      [&](Core& c) { return c.ctPoll(ct_handles, tests, size, timeout, event, which); });
}

int PtlCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct)
{
  return guarded("PtlCTSet", [&](Core& c) { return c.ctSet(ct_handle, new_ct); });
}

int PtlCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment)
{
  return guarded("PtlCTInc", [&](Core& c) { return c.ctInc(ct_handle, increment); });
}

} // extern "C"
