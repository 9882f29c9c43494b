/* C entry points: initialization, network interfaces, maps and identifiers. */
#include "portals/api/Guard.hpp"

#include <xbt/log.h>

XBT_LOG_EXTERNAL_CATEGORY(bxisim_portals);
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_portals_api, bxisim_portals, "Portals C API");

using bxisim::portals::Core;
using bxisim::portals::guarded;
using bxisim::portals::returning_handle;

void bxisim::portals::log_api_failure(const char* function, const char* what)
{
  XBT_ERROR("%s failed on an internal error: %s", function, what);
}

extern "C" {

int PtlInit(void)
{
  return guarded("PtlInit", [](Core& c) { return c.init(); });
}

void PtlAbort(void)
{
  guarded("PtlAbort", [](Core& c) {
    c.abort();
    return PTL_OK;
  });
}

void PtlFini(void)
{
  guarded("PtlFini", [](Core& c) {
    c.fini();
    return PTL_OK;
  });
}

int PtlNIInit(ptl_interface_t iface, unsigned int options, ptl_pid_t pid, const ptl_ni_limits_t* desired,
              ptl_ni_limits_t* actual, ptl_handle_ni_t* ni_handle)
{
  return guarded("PtlNIInit", [&](Core& c) {
    return returning_handle(c, c.ni_init(iface, options, pid, desired, actual, ni_handle), ni_handle);
  });
}

int PtlNIFini(ptl_handle_ni_t ni_handle)
{
  return guarded("PtlNIFini", [&](Core& c) { return c.ni_fini(c.global_handle(ni_handle)); });
}

int PtlNIStatus(ptl_handle_ni_t ni_handle, ptl_sr_index_t status_register, ptl_sr_value_t* status)
{
  return guarded("PtlNIStatus",
                 [&](Core& c) { return c.ni_status(c.global_handle(ni_handle), status_register, status); });
}

int PtlNIHandle(ptl_handle_any_t handle, ptl_handle_ni_t* ni_handle)
{
  return guarded("PtlNIHandle", [&](Core& c) {
    return returning_handle(c, c.ni_handle(c.global_handle(handle), ni_handle), ni_handle);
  });
}

int PtlSetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size, const ptl_process_t* mapping)
{
  return guarded("PtlSetMap", [&](Core& c) { return c.set_map(c.global_handle(ni_handle), map_size, mapping); });
}

int PtlGetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size, ptl_process_t* mapping, ptl_size_t* actual_map_size)
{
  return guarded("PtlGetMap",
                 [&](Core& c) { return c.get_map(c.global_handle(ni_handle), map_size, mapping, actual_map_size); });
}

int PtlGetUid(ptl_handle_ni_t ni_handle, ptl_uid_t* uid)
{
  return guarded("PtlGetUid", [&](Core& c) { return c.get_uid(c.global_handle(ni_handle), uid); });
}

int PtlGetId(ptl_handle_ni_t ni_handle, ptl_process_t* id)
{
  return guarded("PtlGetId", [&](Core& c) { return c.get_id(c.global_handle(ni_handle), id); });
}

int PtlGetPhysId(ptl_handle_ni_t ni_handle, ptl_process_t* id)
{
  return guarded("PtlGetPhysId", [&](Core& c) { return c.get_phys_id(c.global_handle(ni_handle), id); });
}

int PtlHandleIsEqual(ptl_handle_any_t handle1, ptl_handle_any_t handle2)
{
  return handle1 == handle2 ? 1 : 0;
}

int PtlStartBundle(ptl_handle_ni_t ni_handle)
{
  return guarded("PtlStartBundle", [&](Core& c) { return c.bundle(c.global_handle(ni_handle)); });
}

int PtlEndBundle(ptl_handle_ni_t ni_handle)
{
  return guarded("PtlEndBundle", [&](Core& c) { return c.bundle(c.global_handle(ni_handle)); });
}

} // extern "C"
