/* Portal table entries, memory descriptors, event queues and counting events. */
#include "portals/core/Core.hpp"

#include <xbt/log.h>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_portals_resources, bxisim_portals, "Portals PT, MD, EQ and CT management");

namespace bxisim::portals
{

int Core::pt_alloc(ptl_handle_ni_t h, unsigned options, ptl_handle_eq_t eq, ptl_pt_index_t req, ptl_pt_index_t* index)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr || index == nullptr || (options & ~PTL_PT_ALLOC_OPTIONS_MASK) != 0 || !valid_eq_or_none(eq, *ni))
    return PTL_ARG_INVALID;
  if ((options & PTL_PT_FLOWCTRL) && eq == PTL_EQ_NONE)
    return PTL_PT_EQ_NEEDED;
  ptl_pt_index_t chosen = req;
  if (req == PTL_PT_ANY) {
    chosen = 0;
    while (chosen < ni->pts.size() && ni->pts[chosen].allocated)
      ++chosen;
    if (chosen == ni->pts.size())
      return PTL_PT_FULL;
  } else if (req >= ni->pts.size()) {
    return PTL_ARG_INVALID;
  } else if (ni->pts[req].allocated) {
    return PTL_PT_IN_USE;
  }
  PortalTableEntry& pte = ni->pts[chosen];
  pte                   = PortalTableEntry{};
  pte.allocated         = true;
  pte.enabled           = (options & PTL_PT_ALLOC_DISABLED) == 0;
  pte.options           = options;
  pte.eq                = eq;
  *index                = chosen;
  XBT_DEBUG("NI %#x: PT %u allocated (options %#x, EQ %#x)", h, chosen, options, eq);
  return PTL_OK;
}

int Core::pt_free(ptl_handle_ni_t h, ptl_pt_index_t index)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr || index >= ni->pts.size() || !ni->pts[index].allocated)
    return PTL_ARG_INVALID;
  PortalTableEntry& pte = ni->pts[index];
  if (!pte.priority.empty() || !pte.overflow.empty() || !pte.unexpected.empty())
    return PTL_PT_IN_USE;
  pte = PortalTableEntry{};
  return PTL_OK;
}

int Core::pt_enable(ptl_handle_ni_t h, ptl_pt_index_t index, bool enable)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr || index >= ni->pts.size() || !ni->pts[index].allocated)
    return PTL_ARG_INVALID;
  ni->pts[index].enabled                  = enable;
  ni->pts[index].disabled_by_flow_control = false;
  XBT_DEBUG("NI %#x: PT %u %s", h, index, enable ? "enabled" : "disabled");
  return PTL_OK;
}

int Core::md_bind(ptl_handle_ni_t h, const ptl_md_t* md, ptl_handle_md_t* handle)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr || md == nullptr || handle == nullptr || (md->options & ~PTL_MD_OPTIONS_MASK) != 0 ||
      !valid_eq_or_none(md->eq_handle, *ni) || !valid_ct_or_none(md->ct_handle, *ni))
    return PTL_ARG_INVALID;
  bool iovec = (md->options & PTL_IOVEC) != 0;
  if (iovec) {
    if (md->length > static_cast<ptl_size_t>(ni->limits.max_iovecs) || md->start == nullptr)
      return PTL_ARG_INVALID;
    const auto* iov = static_cast<const ptl_iovec_t*>(md->start);
    for (ptl_size_t i = 0; i < md->length; ++i)
      if (iov[i].iov_base == nullptr && iov[i].iov_len > 0)
        return PTL_ARG_INVALID;
  } else if (md->start == nullptr && md->length > 0 && md->length != PTL_SIZE_MAX) {
    // NULL with PTL_SIZE_MAX is the whole address space (OpenMPI binds its send MD so); otherwise
    // NULL with a length is memory that does not exist
    return PTL_ARG_INVALID;
  }
  if (ni->mds.size() >= static_cast<size_t>(ni->limits.max_mds))
    return PTL_NO_SPACE;
  auto obj           = std::make_shared<MemoryDescriptor>();
  obj->ni            = h;
  obj->owner         = ps.ctx.id;
  obj->region        = MemoryRegion(md->start, md->length, iovec);
  obj->options       = md->options;
  obj->eq            = md->eq_handle;
  obj->ct            = md->ct_handle;
  ptl_handle_md_t mh = mds_.insert(obj);
  if (mh == PTL_INVALID_HANDLE)
    return PTL_NO_SPACE;
  ni->mds.insert(mh);
  *handle = mh;
  return PTL_OK;
}

int Core::md_release(ptl_handle_md_t h)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  MemoryDescriptor* md = mds_.find(h);
  if (md == nullptr || md->owner != ps.ctx.id)
    return PTL_ARG_INVALID;
  if (md->in_flight > 0)
    return PTL_IN_USE;
  if (NetworkInterface* ni = nis_.find(md->ni))
    ni->mds.erase(h);
  mds_.erase(h);
  return PTL_OK;
}

int Core::eq_alloc(ptl_handle_ni_t h, ptl_size_t count, ptl_handle_eq_t* handle)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr || handle == nullptr || count == 0)
    return PTL_ARG_INVALID;
  if (ni->eqs.size() >= static_cast<size_t>(ni->limits.max_eqs))
    return PTL_NO_SPACE;
  ptl_handle_eq_t eh = eqs_.insert(std::make_shared<EventQueue>(h, ps.ctx.id, count));
  if (eh == PTL_INVALID_HANDLE)
    return PTL_NO_SPACE;
  ni->eqs.insert(eh);
  *handle = eh;
  return PTL_OK;
}

int Core::eq_free(ptl_handle_eq_t h)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  EventQueue* eq = owned(eqs_, h, ps);
  if (eq == nullptr)
    return PTL_ARG_INVALID;
  // As in the reference implementation (the spec leaves it to the user), an EQ that a PT or an MD still
  // posts to may be freed: their later events are discarded.
  if (NetworkInterface* ni = nis_.find(eq->ni()))
    ni->eqs.erase(h);
  eqs_.erase(h);
  notify(ps.ctx.id);
  return PTL_OK;
}

int Core::eq_get(ptl_handle_eq_t h, ptl_event_t* ev)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  EventQueue* eq = owned(eqs_, h, ps);
  if (eq == nullptr || ev == nullptr)
    return PTL_ARG_INVALID;
  int rc = eq->get(ev);
  if (rc == PTL_EQ_EMPTY)
    poll_found_nothing(ps, h, true);
  else
    took_event(ps, *ev);
  return rc;
}

int Core::ct_alloc(ptl_handle_ni_t h, ptl_handle_ct_t* handle)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr || handle == nullptr)
    return PTL_ARG_INVALID;
  if (ni->cts.size() >= static_cast<size_t>(ni->limits.max_cts))
    return PTL_NO_SPACE;
  ptl_handle_ct_t ch = cts_.insert(std::make_shared<CountingEvent>(h, ps.ctx.id));
  if (ch == PTL_INVALID_HANDLE)
    return PTL_NO_SPACE;
  ni->cts.insert(ch);
  *handle = ch;
  return PTL_OK;
}

int Core::ct_free(ptl_handle_ct_t h)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  CountingEvent* ct = owned(cts_, h, ps);
  if (ct == nullptr)
    return PTL_ARG_INVALID;
  if (NetworkInterface* ni = nis_.find(ct->ni())) {
    ni->triggered_ops -= static_cast<int>(ct->cancel_triggered());
    ni->cts.erase(h);
  }
  cts_.erase(h);
  notify(ps.ctx.id);
  return PTL_OK;
}

int Core::ct_cancel_triggered(ptl_handle_ct_t h)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  CountingEvent* ct = owned(cts_, h, ps);
  if (ct == nullptr)
    return PTL_ARG_INVALID;
  size_t n = ct->cancel_triggered();
  if (NetworkInterface* ni = nis_.find(ct->ni()))
    ni->triggered_ops -= static_cast<int>(n);
  XBT_DEBUG("CT %#x: %zu triggered operations cancelled", h, n);
  return PTL_OK;
}

int Core::ct_get(ptl_handle_ct_t h, ptl_ct_event_t* ev)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  CountingEvent* ct = owned(cts_, h, ps);
  if (ct == nullptr || ev == nullptr)
    return PTL_ARG_INVALID;
  *ev = ct->value();
  poll_found_nothing(ps, h, false);
  return PTL_OK;
}

int Core::ct_set(ptl_handle_ct_t h, ptl_ct_event_t value)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  CountingEvent* ct = owned(cts_, h, ps);
  if (ct == nullptr)
    return PTL_ARG_INVALID;
  ct->set(value);
  ct_changed(h);
  return PTL_OK;
}

int Core::ct_inc(ptl_handle_ct_t h, ptl_ct_event_t inc)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  CountingEvent* ct = owned(cts_, h, ps);
  if (ct == nullptr || (inc.success != 0 && inc.failure != 0)) // one of the two only, says the spec
    return PTL_ARG_INVALID;
  ct->add(inc);
  ct_changed(h);
  return PTL_OK;
}

bool Core::targets_ranks(ptl_handle_md_t md_handle)
{
  const MemoryDescriptor* md = mds_.find(global_handle(md_handle));
  const NetworkInterface* ni = md != nullptr ? nis_.find(md->ni) : nullptr;
  return ni != nullptr && ni->logical();
}

} // namespace bxisim::portals
