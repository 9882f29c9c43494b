// Fuzz target: the argument checks of the Portals API. The input is a program: each step picks a
// Portals call and its arguments (handles made earlier, or arbitrary values; sizes; offsets; flags).
// Without a NIC model (no runtime), object management runs fully and data movement stops at its
// checks. Every call must return a Portals code: a crash, a sanitizer report or a hang is a finding.
// Memory given to Portals is always a real buffer of the target, so that only Portals' own checks are
// tested (Portals cannot validate a wild pointer, nor does the spec ask it to).
#include "FuzzInput.hpp"
#include "portals/core/Core.hpp"

#include <portals4.h>
#include <xbt/log.h>

#include <array>
#include <cstdint>
#include <vector>

namespace
{
using bxisim::fuzz::FuzzInput;

std::array<unsigned char, 4096> memory;

struct Handles {
  std::vector<ptl_handle_any_t> values = {PTL_INVALID_HANDLE, PTL_EQ_NONE, PTL_CT_NONE};
  ptl_handle_any_t pick(FuzzInput& in)
  {
    auto choice = in.take<uint8_t>();
    if (choice == 0xff)
      return in.take<uint32_t>(); // an arbitrary value
    return values[choice % values.size()];
  }
  void add(int rc, ptl_handle_any_t handle)
  {
    if (rc == PTL_OK)
      values.push_back(handle);
  }
};

ptl_md_t make_md(FuzzInput& in, Handles& handles)
{
  ptl_md_t md{};
  auto offset  = in.take<uint16_t>() % memory.size();
  md.start     = memory.data() + offset;
  md.length    = in.take<uint16_t>() % (memory.size() - offset + 1);
  md.options   = in.take<uint32_t>() & ~static_cast<unsigned>(PTL_IOVEC); // an iovec list is a pointer table
  md.eq_handle = handles.pick(in);
  md.ct_handle = handles.pick(in);
  return md;
}

ptl_me_t make_me(FuzzInput& in, Handles& handles)
{
  ptl_me_t me{};
  auto offset      = in.take<uint16_t>() % memory.size();
  me.start         = memory.data() + offset;
  me.length        = in.take<uint16_t>() % (memory.size() - offset + 1);
  me.ct_handle     = handles.pick(in);
  me.uid           = in.take<uint8_t>() == 0 ? PTL_UID_ANY : in.take<ptl_uid_t>();
  me.options       = in.take<uint32_t>() & ~static_cast<unsigned>(PTL_IOVEC);
  me.match_id.rank = in.take<uint32_t>();
  me.match_bits    = in.take<uint64_t>();
  me.ignore_bits   = in.take<uint64_t>();
  me.min_free      = in.take<uint16_t>();
  return me;
}
} // namespace

namespace
{
/** Portals logs each refused call: quiet, or the log would cost more than the calls. */
bool quiet_logs = [] {
  xbt_log_control_set("bxisim_portals.thres:critical");
  return true;
}();
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  FuzzInput in(data, size);
  Handles handles;
  bxisim::portals::Core::instance().reset();
  PtlInit();
  for (int step = 0; step < 64 && not in.empty(); ++step) {
    ptl_handle_any_t handle = PTL_INVALID_HANDLE;
    switch (in.take<uint8_t>() % 20) {
    case 0: {
      unsigned options = in.take<uint8_t>();
      handles.add(PtlNIInit(PTL_IFACE_DEFAULT, options, in.take<uint8_t>() == 0 ? PTL_PID_ANY : in.take<uint16_t>(),
                            nullptr, nullptr, &handle),
                  handle);
      break;
    }
    case 1:
      PtlNIFini(handles.pick(in));
      break;
    case 2:
      handles.add(PtlEQAlloc(handles.pick(in), in.take<uint16_t>(), &handle), handle);
      break;
    case 3:
      PtlEQFree(handles.pick(in));
      break;
    case 4:
      handles.add(PtlCTAlloc(handles.pick(in), &handle), handle);
      break;
    case 5:
      PtlCTFree(handles.pick(in));
      break;
    case 6: {
      ptl_pt_index_t index = 0;
      auto ni              = handles.pick(in);
      auto options         = in.take<uint32_t>();
      auto eq              = handles.pick(in);
      PtlPTAlloc(ni, options, eq, in.take<uint8_t>() == 0 ? PTL_PT_ANY : in.take<uint16_t>(), &index);
      break;
    }
    case 7:
      PtlPTFree(handles.pick(in), in.take<uint16_t>());
      break;
    case 8: {
      auto ni = handles.pick(in);
      auto md = make_md(in, handles);
      handles.add(PtlMDBind(ni, &md, &handle), handle);
      break;
    }
    case 9:
      PtlMDRelease(handles.pick(in));
      break;
    case 10: {
      auto ni   = handles.pick(in);
      auto pt   = in.take<uint16_t>();
      auto me   = make_me(in, handles);
      auto list = static_cast<ptl_list_t>(in.take<uint8_t>() % 3);
      handles.add(PtlMEAppend(ni, pt, &me, list, nullptr, &handle), handle);
      break;
    }
    case 11:
      PtlMEUnlink(handles.pick(in));
      break;
    case 12: {
      ptl_event_t event;
      PtlEQGet(handles.pick(in), &event);
      break;
    }
    case 13: {
      ptl_ct_event_t event;
      PtlCTGet(handles.pick(in), &event);
      break;
    }
    case 14: {
      ptl_ct_event_t value{in.take<uint32_t>(), in.take<uint8_t>()};
      if (in.take<uint8_t>() % 2 == 0)
        PtlCTSet(handles.pick(in), value);
      else
        PtlCTInc(handles.pick(in), value);
      break;
    }
    case 15: {
      ptl_handle_eq_t eqs[2] = {handles.pick(in), handles.pick(in)};
      ptl_event_t event;
      unsigned which = 0;
      PtlEQPoll(eqs, in.take<uint8_t>() % 3, 0, &event, &which);
      break;
    }
    case 16: {
      auto md           = handles.pick(in);
      ptl_size_t offset = in.take<uint32_t>();
      ptl_size_t length = in.take<uint32_t>();
      ptl_process_t peer{};
      peer.phys.nid = in.take<uint16_t>();
      peer.phys.pid = in.take<uint16_t>();
      PtlPut(md, offset, length, in.take<uint8_t>() % 3, peer, in.take<uint8_t>(), in.take<uint64_t>(), 0, nullptr, 0);
      break;
    }
    case 17: {
      auto md           = handles.pick(in);
      ptl_size_t offset = in.take<uint32_t>();
      ptl_size_t length = in.take<uint32_t>();
      ptl_process_t peer{};
      PtlGet(md, offset, length, peer, in.take<uint8_t>(), in.take<uint64_t>(), 0, nullptr);
      break;
    }
    case 18: {
      ptl_process_t id;
      PtlGetId(handles.pick(in), &id);
      ptl_ni_limits_t limits;
      (void)limits;
      break;
    }
    case 19: {
      auto ct      = handles.pick(in);
      auto trigger = handles.pick(in);
      PtlTriggeredCTInc(ct, ptl_ct_event_t{in.take<uint16_t>(), 0}, trigger, in.take<uint16_t>());
      break;
    }
    }
  }
  PtlFini();
  return 0;
}
