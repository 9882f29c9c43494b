#include "TestedActivities.hpp"

#include <simgrid/forward.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/version.h>
#include <xbt/log.h>

#include <dlfcn.h>

#include <cstddef>
#include <cstring>
#include <list>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(bxisim_launch);

static_assert(SIMGRID_VERSION_MAJOR == 3 && SIMGRID_VERSION_MINOR == 32,
              "TestedActivities.cpp reads SimGrid 3.32's ActorImpl layout: check it against this SimGrid");

namespace bxisim::runtime
{

namespace
{
using simgrid::kernel::activity::ActivityImplPtr;
using ActivityList = std::list<ActivityImplPtr>;

// offsetof(simgrid::kernel::actor::ActorImpl, activities_) and of waiting_synchro_ just before it, in SimGrid 3.32
// (src/kernel/actor/ActorImpl.hpp), as Debian builds it.
constexpr std::size_t kActivitiesOffset     = 192;
constexpr std::size_t kWaitingSynchroOffset = 184;
constexpr std::size_t kFirstPruneSize       = 64;

using StateName = const char* (*)(const simgrid::kernel::activity::ActivityImpl*);

struct Pruning {
  bool enabled          = true;
  StateName state_name  = nullptr; // ActivityImpl::get_state_str (a member function: `this` first)
  std::size_t next_size = kFirstPruneSize;
};

Pruning& pruning()
{
  static Pruning state = [] {
    Pruning made;
    made.state_name =
        reinterpret_cast<StateName>(dlsym(RTLD_DEFAULT, "_ZNK7simgrid6kernel8activity12ActivityImpl13get_state_strEv"));
    if (made.state_name == nullptr) {
      made.enabled = false;
      XBT_VERB("libsimgrid exports no ActivityImpl::get_state_str: tested requests are left to SimGrid");
    }
    return made;
  }();
  return state;
}

/** Whether `list` is a well-formed std::list of `expected` nodes (walked both ways), so that the offset holds. */
bool holds_together(const ActivityList& list)
{
  struct Links {
    const Links* next;
    const Links* prev;
  };
  const auto* head  = reinterpret_cast<const Links*>(&list);
  std::size_t count = 0;
  for (const Links* node = head->next; node != head; node = node->next) {
    if (node == nullptr || node->prev == nullptr || node->next == nullptr || node->next->prev != node ||
        ++count > list.size())
      return false;
  }
  return count == list.size();
}

void turn_off(const char* why)
{
  pruning().enabled = false;
  XBT_VERB("SimGrid's list of an actor's activities is not where bxisim expects it (%s): tested requests are left to "
           "SimGrid",
           why);
}

bool over(const simgrid::kernel::activity::ActivityImpl* activity, StateName state_name)
{
  const char* state = state_name(activity);
  return std::strcmp(state, "WAITING") != 0 && std::strcmp(state, "READY") != 0 && std::strcmp(state, "RUNNING") != 0;
}
} // namespace

void release_tested_activities()
{
  Pruning& state = pruning();
  if (not state.enabled)
    return;
  simgrid::s4u::Actor* actor = simgrid::s4u::Actor::self();
  if (actor == nullptr)
    return;
  auto* base = reinterpret_cast<char*>(actor->get_impl());
  auto& list = *reinterpret_cast<ActivityList*>(base + kActivitiesOffset);
  if (list.size() < state.next_size)
    return;
  const void* waiting = nullptr; // the raw pointer of the intrusive_ptr: no reference taken
  std::memcpy(&waiting, base + kWaitingSynchroOffset, sizeof(waiting));
  if (waiting != nullptr)
    return turn_off("a running actor waits for an activity");
  if (not holds_together(list))
    return turn_off("its links do not hold together");
  std::size_t before = list.size();
  list.remove_if([&state](const ActivityImplPtr& activity) { return over(activity.get(), state.state_name); });
  state.next_size = 2 * list.size() + kFirstPruneSize;
  XBT_VERB("released %zu finished activities SimGrid kept for %s (%zu left)", before - list.size(), actor->get_cname(),
           list.size());
}

} // namespace bxisim::runtime
