#include "CommCompletion.hpp"

// SimGrid 3.32: `xbt::signal<void(CommImpl const&)> simgrid::kernel::activity::CommImpl::on_completion`
// (src/kernel/activity/CommImpl.cpp), exported by libsimgrid. CommImpl derives from ActivityImpl by
// single, non-virtual inheritance, so its address is the one s4u::Activity::get_impl() returns.
extern simgrid::xbt::signal<void(const simgrid::kernel::activity::CommImpl&)>
    simgrid_comm_impl_on_completion asm("_ZN7simgrid6kernel8activity8CommImpl13on_completionE");

namespace bxisim::hw
{

unsigned watch_completions(std::function<void(const void* kernel_comm)> callback)
{
  return simgrid_comm_impl_on_completion.connect(
      [callback = std::move(callback)](const simgrid::kernel::activity::CommImpl& comm) { callback(&comm); });
}

void stop_watching_completions(unsigned id)
{
  simgrid_comm_impl_on_completion.disconnect(id);
}

} // namespace bxisim::hw
