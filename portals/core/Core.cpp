/* Processes, initialization, network interfaces and logical maps. */
#include "portals/core/Core.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

XBT_LOG_EXTERNAL_CATEGORY(bxisim);
XBT_LOG_NEW_SUBCATEGORY(bxisim_portals, bxisim, "Portals 4 semantics");
XBT_LOG_NEW_DEFAULT_SUBCATEGORY(bxisim_portals_ni, bxisim_portals, "Portals network interfaces, maps and identifiers");

namespace bxisim::portals
{

ptl_ni_limits_t default_limits()
{
  ptl_ni_limits_t l{};
  l.max_entries            = 1 << 20;
  l.max_unexpected_headers = 1 << 20;
  l.max_mds                = 1 << 16;
  l.max_cts                = 1 << 16;
  l.max_eqs                = 1 << 10;
  l.max_pt_index           = 255;
  l.max_iovecs             = 1 << 10;
  l.max_list_size          = 1 << 20;
  l.max_triggered_ops      = 1 << 16;
  l.max_msg_size           = ptl_size_t{1} << 32;
  l.max_atomic_size        = 512;
  l.max_fetch_atomic_size  = 512;
  l.max_waw_ordered_size   = 8;
  l.max_war_ordered_size   = 8;
  l.max_volatile_size      = 64;
  l.features               = 0; // reported only when requested, as the reference implementation does
  return l;
}

/* The features bxisim can give (NI features of ptl_ni_limits_t). */
constexpr unsigned kSupportedFeatures = PTL_COHERENT_ATOMICS;

namespace
{
/* A desired limit is granted when positive and not above bxisim's. */
template <typename T>
void grant(T& actual, T desired)
{
  if (desired > 0 && desired < actual)
    actual = desired;
}
} // namespace

Core& Core::instance()
{
  static Core core;
  return core;
}

Core::Core()
{
  auto forget = [this](ptl_handle_any_t h) { forget_local_name(h); };
  nis_.set_erase_observer(forget);
  eqs_.set_erase_observer(forget);
  cts_.set_erase_observer(forget);
  mds_.set_erase_observer(forget);
  mes_.set_erase_observer(forget);
  les_.set_erase_observer(forget);
}

namespace
{
/* PTL_INVALID_HANDLE, PTL_EQ_NONE, PTL_CT_NONE and anything of no kind: the same in every numbering. */
bool is_special_handle(ptl_handle_any_t h)
{
  auto kind = static_cast<uint32_t>(handle_kind(h));
  return handle_index(h) == kMaxIndex || kind < static_cast<uint32_t>(HandleKind::ni) ||
         kind > static_cast<uint32_t>(HandleKind::le);
}
} // namespace

ptl_handle_any_t Core::global_handle(ptl_handle_any_t local)
{
  if (is_special_handle(local))
    return local;
  ProcessState& ps = current();
  auto kind        = static_cast<uint32_t>(handle_kind(local));
  auto& slots      = ps.local_slots[kind];
  uint32_t index   = handle_index(local);
  if (index >= slots.size() || slots[index].global == PTL_INVALID_HANDLE ||
      slots[index].generation != handle_generation(local))
    return encode_handle(handle_kind(local), kMaxIndex - 1, 0); // names no object: the call says PTL_ARG_INVALID
  return slots[index].global;
}

ptl_handle_any_t Core::local_handle(ptl_handle_any_t global)
{
  if (is_special_handle(global))
    return global;
  ProcessState& ps = current();
  auto kind        = static_cast<uint32_t>(handle_kind(global));
  auto& slots      = ps.local_slots[kind];
  if (auto known = local_names_.find(global); known != local_names_.end() && known->second.process == ps.ctx.id)
    return encode_handle(handle_kind(global), known->second.index, slots[known->second.index].generation);
  uint32_t index;
  if (auto& free = ps.free_local_slots[kind]; not free.empty()) {
    index = free.back();
    free.pop_back();
  } else {
    index = static_cast<uint32_t>(slots.size());
    slots.emplace_back();
  }
  slots[index].global  = global;
  local_names_[global] = {ps.ctx.id, index};
  return encode_handle(handle_kind(global), index, slots[index].generation);
}

void Core::forget_local_name(ptl_handle_any_t global)
{
  auto known = local_names_.find(global);
  if (known == local_names_.end())
    return;
  if (ProcessState* owner = process(known->second.process)) {
    auto kind       = static_cast<uint32_t>(handle_kind(global));
    auto& slot      = owner->local_slots[kind][known->second.index];
    slot.global     = PTL_INVALID_HANDLE;
    slot.generation = (slot.generation + 1) & 0xffu;
    owner->free_local_slots[kind].push_back(known->second.index);
  }
  local_names_.erase(known);
}

void Core::reset()
{
  processes_.clear();
  local_names_.clear();
  poll_blocking_ = nullptr;
  process_by_address_.clear();
  nis_.clear();
  eqs_.clear();
  cts_.clear();
  mds_.clear();
  mes_.clear();
  les_.clear();
  ct_work_.clear();
  draining_cts_ = false;
  for (auto& [id, msg] : unfinished_)
    msg->tracked = false; // the models that hold them outlive this reset in tests
  unfinished_.clear();
  pending_notify_.clear();
  batching_notify_ = false;
}

Core::ProcessState& Core::current()
{
  ProcessContext ctx = provider_ ? provider_() : ProcessContext{};
  ProcessState& ps   = processes_[ctx.id];
  ps.ctx             = ctx;
  return ps;
}

Core::ProcessState* Core::process(uint32_t id)
{
  auto it = processes_.find(id);
  return it == processes_.end() ? nullptr : &it->second;
}

void Core::program_acted(uint32_t id)
{
  if (ProcessState* ps = process(id))
    ps->changes++;
}

void Core::wake_process(uint32_t id)
{
  if (ProcessState* ps = process(id)) {
    ps->changes++;
    if (ps->ctx.nic != nullptr)
      ps->ctx.nic->notify(id);
  }
}

uint64_t Core::changes_of(uint32_t id)
{
  ProcessState* ps = process(id);
  return ps != nullptr ? ps->changes : 0;
}

NetworkInterface* Core::owned_ni(ptl_handle_ni_t h, const ProcessState& ps)
{
  NetworkInterface* ni = nis_.find(h);
  return (ni != nullptr && ni->owner == ps.ctx.id) ? ni : nullptr;
}

template <typename T>
T* Core::owned(const HandleTable<T>& table, ptl_handle_any_t h, const ProcessState& ps)
{
  T* obj = table.find(h);
  if (obj == nullptr || obj->owner() != ps.ctx.id)
    return nullptr;
  return obj;
}
template EventQueue* Core::owned(const HandleTable<EventQueue>&, ptl_handle_any_t, const ProcessState&);
template CountingEvent* Core::owned(const HandleTable<CountingEvent>&, ptl_handle_any_t, const ProcessState&);

bool Core::valid_eq_or_none(ptl_handle_eq_t eq, const NetworkInterface& ni)
{
  if (eq == PTL_EQ_NONE)
    return true;
  const EventQueue* q = eqs_.find(eq);
  return q != nullptr && q->ni() == ni.handle;
}

bool Core::valid_ct_or_none(ptl_handle_ct_t ct, const NetworkInterface& ni)
{
  if (ct == PTL_CT_NONE)
    return true;
  const CountingEvent* c = cts_.find(ct);
  return c != nullptr && c->ni() == ni.handle;
}

int Core::init()
{
  ProcessState& ps = current();
  if (ps.init_count++ == 0)
    ps.aborted = false;
  return PTL_OK;
}

void Core::abort()
{
  ProcessState& ps = current();
  ps.aborted       = true;
  notify(ps.ctx.id); // a waiting call returns PTL_ABORTED
}

int Core::atomic_sync()
{
  // Atomics are applied by the simulated NIC in one step, in simulated-time order: nothing to flush.
  return current().init_count == 0 ? PTL_NO_INIT : PTL_OK;
}

void Core::end_process(uint32_t id)
{
  ProcessState* ps = process(id);
  if (ps == nullptr)
    return;
  if (!ps->nis.empty())
    XBT_VERB("process %u ended with %zu NI(s) still initialized: they are finalized now", id, ps->nis.size());
  auto nis = ps->nis;
  for (auto& [key, h] : nis)
    if (NetworkInterface* ni = nis_.find(h))
      destroy_ni(*ni, false);
  ps->nis.clear();
  ps->init_count = 0;
}

void Core::fini()
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return;
  if (--ps.init_count > 0)
    return;
  auto nis = ps.nis;
  for (auto& [key, h] : nis)
    if (NetworkInterface* ni = nis_.find(h))
      destroy_ni(*ni);
  ps.nis.clear();
}

int Core::ni_init(ptl_interface_t iface, unsigned options, ptl_pid_t pid, const ptl_ni_limits_t* desired,
                  ptl_ni_limits_t* actual, ptl_handle_ni_t* handle)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  if (iface == PTL_IFACE_DEFAULT)
    iface = 0;
  bool one_matching = ((options & PTL_NI_MATCHING) != 0) != ((options & PTL_NI_NO_MATCHING) != 0);
  bool one_address  = ((options & PTL_NI_LOGICAL) != 0) != ((options & PTL_NI_PHYSICAL) != 0);
  if (handle == nullptr || iface >= ps.ctx.num_interfaces || (options & ~PTL_NI_INIT_OPTIONS_MASK) != 0 ||
      !one_matching || !one_address) {
    XBT_DEBUG("PtlNIInit: invalid interface %u or options %#x", iface, options);
    return PTL_ARG_INVALID;
  }
  if (pid != PTL_PID_ANY && pid >= PTL_PID_MAX)
    return PTL_ARG_INVALID;

  // The process's pid: the one its context names for PTL_PID_ANY; the same for all its NIs.
  ptl_pid_t wanted = pid == PTL_PID_ANY ? (ps.pid_assigned ? ps.pid : ps.ctx.any_pid) : pid;
  if (ps.pid_assigned && wanted != ps.pid) {
    XBT_DEBUG("PtlNIInit: process %u already has pid %u, cannot take %u", ps.ctx.id, ps.pid, wanted);
    return PTL_PID_IN_USE;
  }
  ptl_process_t phys;
  phys.phys.nid = ps.ctx.nid;
  phys.phys.pid = wanted;
  auto taken    = process_by_address_.find(phys_key(phys));
  if (taken != process_by_address_.end() && taken->second != ps.ctx.id)
    return PTL_PID_IN_USE;

  auto key = std::make_pair(iface, ni_kind_index(options));
  auto it  = ps.nis.find(key);
  if (it != ps.nis.end()) {
    NetworkInterface* ni = nis_.find(it->second);
    ni->ref_count++;
    if (actual != nullptr)
      *actual = ni->limits;
    *handle = ni->handle;
    return PTL_OK;
  }

  auto ni     = std::make_shared<NetworkInterface>();
  ni->owner   = ps.ctx.id;
  ni->iface   = iface;
  ni->options = options;
  ni->phys_id = phys;
  ni->uid     = ps.ctx.uid;
  ni->limits  = default_limits();
  if (desired != nullptr) {
    ptl_ni_limits_t& l = ni->limits;
    grant(l.max_entries, desired->max_entries);
    grant(l.max_unexpected_headers, desired->max_unexpected_headers);
    grant(l.max_mds, desired->max_mds);
    grant(l.max_cts, desired->max_cts);
    grant(l.max_eqs, desired->max_eqs);
    grant(l.max_pt_index, desired->max_pt_index);
    grant(l.max_iovecs, desired->max_iovecs);
    grant(l.max_list_size, desired->max_list_size);
    grant(l.max_triggered_ops, desired->max_triggered_ops);
    grant(l.max_msg_size, desired->max_msg_size);
    grant(l.max_atomic_size, desired->max_atomic_size);
    grant(l.max_fetch_atomic_size, desired->max_fetch_atomic_size);
    grant(l.max_waw_ordered_size, desired->max_waw_ordered_size);
    grant(l.max_war_ordered_size, desired->max_war_ordered_size);
    grant(l.max_volatile_size, desired->max_volatile_size);
    // A fetching atomic is an atomic operation (the specification bounds both by max_atomic_size), so a
    // smaller max_atomic_size bounds it too (the reference implementation's test_limits check so).
    l.max_fetch_atomic_size = std::min(l.max_fetch_atomic_size, l.max_atomic_size);
    l.features              = desired->features & kSupportedFeatures;
  }
  ni->pts.resize(static_cast<size_t>(ni->limits.max_pt_index) + 1);
  ptl_handle_ni_t h = nis_.insert(ni);
  if (h == PTL_INVALID_HANDLE)
    return PTL_NO_SPACE;
  ni->handle                          = h;
  ps.nis[key]                         = h;
  ps.pid                              = wanted;
  ps.pid_assigned                     = true;
  process_by_address_[phys_key(phys)] = ps.ctx.id;
  if (actual != nullptr)
    *actual = ni->limits;
  *handle = h;
  XBT_DEBUG("process %u: NI %#x on iface %u, options %#x, physical id %u/%u", ps.ctx.id, h, iface, options,
            phys.phys.nid, phys.phys.pid);
  return PTL_OK;
}

namespace
{
/* Whether [p, p + len) is mapped memory of this process (mincore fails with ENOMEM otherwise). */
bool is_mapped(const void* p, size_t len)
{
  if (len == 0)
    return true;
  static const long page = sysconf(_SC_PAGESIZE);
  auto first             = reinterpret_cast<uintptr_t>(p) & ~static_cast<uintptr_t>(page - 1);
  auto end               = reinterpret_cast<uintptr_t>(p) + len;
  std::vector<unsigned char> pages((end - first + page - 1) / page);
  return mincore(reinterpret_cast<void*>(first), end - first, pages.data()) == 0;
}
} // namespace

namespace
{
/* The NIC's read of a payload left in the memory of a process that has ended: still mapped, but no
 * longer the process's own (a buffer on a stack that returned, say). Not checked by AddressSanitizer
 * (docs/sanitizers-and-fuzzing.md); a byte loop, as ASan checks memcpy whatever the attributes. */
__attribute__((no_sanitize_address, noinline)) void copy_unchecked(unsigned char* to, const void* from, size_t count)
{
  const auto* bytes = static_cast<const volatile unsigned char*>(from);
  for (size_t i = 0; i < count; ++i)
    to[i] = bytes[i];
}
} // namespace

void Core::destroy_ni(NetworkInterface& ni, bool memory_valid)
{
  // Requests of this NI whose payload the NIC has not read yet: read it now, while the memory is there.
  for (auto& [id, msg] : unfinished_) {
    if (msg->source_ni != ni.handle || msg->delivered || !msg->payload_borrowed())
      continue;
    if (memory_valid) {
      msg->own_payload();
    } else if (is_mapped(msg->payload(), msg->length)) {
      std::vector<unsigned char> snapshot(msg->length);
      copy_unchecked(snapshot.data(), msg->payload(), msg->length);
      msg->borrow_payload(snapshot.data());
      msg->own_payload();
    }
  }
  for (ptl_handle_any_t h : std::vector<ptl_handle_any_t>(ni.entries.begin(), ni.entries.end())) {
    ListEntryPtr e = mes_.find_shared(h) ? mes_.find_shared(h) : les_.find_shared(h);
    if (e)
      unlink_entry(ni, e, false);
  }
  for (PortalTableEntry& pte : ni.pts)
    pte.unexpected.clear();
  for (ptl_handle_any_t h : ni.mds)
    mds_.erase(h);
  for (ptl_handle_any_t h : ni.cts)
    cts_.erase(h);
  for (ptl_handle_any_t h : ni.eqs)
    eqs_.erase(h);
  ptl_handle_ni_t handle = ni.handle;
  uint32_t owner         = ni.owner;
  if (ProcessState* ps = process(owner)) {
    ps->nis.erase(std::make_pair(ni.iface, ni_kind_index(ni.options)));
  }
  nis_.erase(handle);
  notify(owner); // a process waiting on one of the freed objects wakes up and sees it gone
}

int Core::ni_fini(ptl_handle_ni_t h)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr)
    return PTL_ARG_INVALID;
  if (--ni->ref_count == 0)
    destroy_ni(*ni);
  return PTL_OK;
}

int Core::ni_status(ptl_handle_ni_t h, ptl_sr_index_t reg, ptl_sr_value_t* status)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr || status == nullptr || static_cast<unsigned>(reg) >= PTL_SR_LAST)
    return PTL_ARG_INVALID;
  *status = ni->status[reg];
  return PTL_OK;
}

int Core::ni_handle(ptl_handle_any_t h, ptl_handle_ni_t* out)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  if (out == nullptr)
    return PTL_ARG_INVALID;
  ptl_handle_ni_t ni = PTL_INVALID_HANDLE;
  switch (handle_kind(h)) {
  case HandleKind::ni:
    ni = nis_.find(h) ? h : PTL_INVALID_HANDLE;
    break;
  case HandleKind::eq:
    ni = eqs_.find(h) ? eqs_.find(h)->ni() : PTL_INVALID_HANDLE;
    break;
  case HandleKind::ct:
    ni = cts_.find(h) ? cts_.find(h)->ni() : PTL_INVALID_HANDLE;
    break;
  case HandleKind::md:
    ni = mds_.find(h) ? mds_.find(h)->ni : PTL_INVALID_HANDLE;
    break;
  case HandleKind::me:
    ni = mes_.find(h) ? mes_.find(h)->ni : PTL_INVALID_HANDLE;
    break;
  case HandleKind::le:
    ni = les_.find(h) ? les_.find(h)->ni : PTL_INVALID_HANDLE;
    break;
  }
  if (ni == PTL_INVALID_HANDLE || owned_ni(ni, ps) == nullptr)
    return PTL_ARG_INVALID;
  *out = ni;
  return PTL_OK;
}

int Core::set_map(ptl_handle_ni_t h, ptl_size_t size, const ptl_process_t* mapping)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr || !ni->logical() || mapping == nullptr || size == 0 || size > PTL_RANK_ANY)
    return PTL_ARG_INVALID;
  if (ni->map_set)
    return PTL_IGNORED;
  ni->map.assign(mapping, mapping + size);
  for (ptl_size_t r = 0; r < size; ++r)
    ni->rank_of.emplace(phys_key(mapping[r]), static_cast<ptl_rank_t>(r));
  ni->map_set = true;
  XBT_DEBUG("NI %#x: logical map of %llu ranks", h, static_cast<unsigned long long>(size));
  return PTL_OK;
}

int Core::get_map(ptl_handle_ni_t h, ptl_size_t size, ptl_process_t* mapping, ptl_size_t* actual_size)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr || !ni->logical() || actual_size == nullptr || (size > 0 && mapping == nullptr))
    return PTL_ARG_INVALID;
  if (!ni->map_set)
    return PTL_NO_SPACE;
  *actual_size = ni->map.size();
  std::copy_n(ni->map.begin(), std::min<ptl_size_t>(size, ni->map.size()), mapping);
  return PTL_OK;
}

int Core::get_uid(ptl_handle_ni_t h, ptl_uid_t* uid)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr || uid == nullptr)
    return PTL_ARG_INVALID;
  *uid = ni->uid;
  return PTL_OK;
}

int Core::get_id(ptl_handle_ni_t h, ptl_process_t* id)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr || id == nullptr)
    return PTL_ARG_INVALID;
  if (!ni->logical()) {
    *id = ni->phys_id;
    return PTL_OK;
  }
  auto it = ni->rank_of.find(phys_key(ni->phys_id));
  if (it == ni->rank_of.end())
    return PTL_FAIL; // the map is not set, or does not contain this process
  id->rank = it->second;
  return PTL_OK;
}

int Core::get_phys_id(ptl_handle_ni_t h, ptl_process_t* id)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  NetworkInterface* ni = owned_ni(h, ps);
  if (ni == nullptr || id == nullptr)
    return PTL_ARG_INVALID;
  *id = ni->phys_id;
  return PTL_OK;
}

int Core::bundle(ptl_handle_ni_t h)
{
  ProcessState& ps = current();
  if (ps.init_count == 0)
    return PTL_NO_INIT;
  return owned_ni(h, ps) == nullptr ? PTL_ARG_INVALID : PTL_OK;
}

size_t Core::unexpected_count(ptl_handle_ni_t h, ptl_pt_index_t pt)
{
  const NetworkInterface* ni = nis_.find(global_handle(h));
  if (ni == nullptr || pt >= ni->pts.size())
    return 0;
  return ni->pts[pt].unexpected.size();
}

} // namespace bxisim::portals
