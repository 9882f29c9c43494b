#include "LevelSwitch.hpp"

#include "EmptyStatus.hpp"
#include "Entry.hpp"
#include "OpenMpiAbi.hpp"
#include "SmpiAbi.hpp"
#include "SwitchRank.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace bxisim::mw
{

namespace
{
const char* back_end_name(int back_end)
{
  return back_end == LevelSwitch::kSmpi ? "smpi" : "openmpi (message, cycle)";
}

[[noreturn]] void fail(int rank, const std::string& what)
{
  std::fprintf(stderr, "bxisim: rank %d: %s\n", rank, what.c_str());
  std::fflush(stderr);
  exit_rank(1);
}

// after_poll's generalized request: completed only at MPI_Finalize, never seen by the program.
int idle_query(void*, MPI_Status*)
{
  return MPI_SUCCESS;
}
int idle_free(void*)
{
  return MPI_SUCCESS;
}
int idle_cancel(void*, int)
{
  return MPI_SUCCESS;
}
} // namespace

namespace
{
/** Every switching rank, by rank in MPI_COMM_WORLD: the traffic checks read the peers' accounts. */
std::vector<LevelSwitch*>& registry()
{
  static std::vector<LevelSwitch*> ranks;
  return ranks;
}

} // namespace

std::unique_ptr<RankMpi> make_switching_rank(int rank, RankMpi* smpi, const CallHooks* smpi_hooks, RankMpi* openmpi,
                                             bool start_at_smpi)
{
  return std::make_unique<SwitchRank>(rank, smpi, smpi_hooks, openmpi,
                                      start_at_smpi ? LevelSwitch::kSmpi : LevelSwitch::kOpenMpi);
}

std::string switch_wait_detail(const RankMpi& rank)
{
  const auto* level_switch = dynamic_cast<const LevelSwitch*>(&rank);
  return level_switch != nullptr ? level_switch->wait_detail() : std::string();
}

void set_region_place(RankMpi& rank, const std::string& place)
{
  if (auto* level_switch = dynamic_cast<LevelSwitch*>(&rank))
    level_switch->set_place(place);
}

int switch_back_end(RankMpi& rank, bool to_smpi, const std::string& place)
{
  auto* level_switch = dynamic_cast<LevelSwitch*>(&rank);
  if (level_switch == nullptr)
    throw std::logic_error("switch_back_end on a rank without two back ends");
  level_switch->set_place(place);
  return level_switch->switch_to(to_smpi ? LevelSwitch::kSmpi : LevelSwitch::kOpenMpi);
}

LevelSwitch::LevelSwitch(int rank, RankMpi* smpi, const CallHooks* smpi_hooks, RankMpi* openmpi, int start)
    : MpiInterface(rank), current_(start)
{
  slots_[kSmpi].dispatch    = static_cast<MpiInterface*>(smpi);
  slots_[kSmpi].hooks       = smpi_hooks;
  slots_[kOpenMpi].dispatch = static_cast<MpiInterface*>(openmpi);
  if (slots_[kSmpi].dispatch == nullptr || slots_[kOpenMpi].dispatch == nullptr)
    throw std::logic_error("LevelSwitch needs both back ends");
  auto index = static_cast<size_t>(rank);
  if (registry().size() <= index)
    registry().resize(index + 1, nullptr);
  registry()[index] = this;
}

LevelSwitch::~LevelSwitch()
{
  auto index = static_cast<size_t>(rank());
  if (index < registry().size() && registry()[index] == this)
    registry()[index] = nullptr;
}

namespace
{
/** The id of a followed communicator, the same on every rank: by its path of constructors. */
int communicator_id(const std::string& path)
{
  static std::map<std::string, int> ids;
  return ids.try_emplace(path, static_cast<int>(ids.size())).first->second;
}
} // namespace

std::vector<int> LevelSwitch::world_ranks(MPI_Comm in, int be, bool peers)
{
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Group world = MPI_GROUP_NULL;
  int size        = 0;
  int inter       = 0;
  Call call(*this, be);
  MpiInterface& mpi = call.target();
  if (peers)
    mpi.Comm_test_inter(in, &inter);
  if (inter != 0) { // point-to-point ranks name the remote group
    mpi.Comm_remote_size(in, &size);
    mpi.Comm_remote_group(in, &group);
  } else {
    mpi.Comm_size(in, &size);
    mpi.Comm_group(in, &group);
  }
  mpi.Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(static_cast<size_t>(size));
  std::vector<int> world_ranks(static_cast<size_t>(size), MPI_UNDEFINED);
  for (int i = 0; i < size; ++i)
    ranks[static_cast<size_t>(i)] = i;
  mpi.Group_translate_ranks(group, size, ranks.data(), world, world_ranks.data());
  mpi.Group_free(&group);
  mpi.Group_free(&world);
  return world_ranks;
}

std::string LevelSwitch::Followed::name() const
{
  return path == "world" ? "MPI_COMM_WORLD" : "the communicator made by " + path;
}

LevelSwitch::Followed* LevelSwitch::followed(MPI_Comm comm)
{
  auto it = followed_.find(reinterpret_cast<uintptr_t>(comm));
  if (it != followed_.end())
    return &it->second;
  if (comm != MPI_COMM_WORLD)
    return nullptr;
  std::vector<int> world(registry().size()); // every rank is registered before the simulation starts
  for (size_t i = 0; i < world.size(); ++i)
    world[i] = static_cast<int>(i);
  return &(followed_[reinterpret_cast<uintptr_t>(comm)] = {communicator_id("world"), "world", std::move(world), 0});
}

void LevelSwitch::follow(MPI_Comm parent, MPI_Comm made, int be)
{
  last_path_.clear();
  Followed* from = followed(parent);
  if (from == nullptr)
    return;
  std::string path = from->path + "/" + std::to_string(from->children++);
  last_path_       = path;
  if (made == MPI_COMM_NULL)
    return;
  // Its ranks in MPI_COMM_WORLD, asked of the back end that made it.
  std::vector<int> world_ranks                 = this->world_ranks(to_called(made, be), be, true);
  followed_[reinterpret_cast<uintptr_t>(made)] = {communicator_id(path), path, std::move(world_ranks), 0};
}

namespace
{
/** The job's order of sending: ranks run one at a time, so this follows simulated time. */
long next_send_seq()
{
  static long seq = 0;
  return seq++;
}
} // namespace

bool LevelSwitch::as_posted(int source, int tag, MPI_Comm comm, Posted& posted)
{
  const Followed* on = followed(comm);
  if (on == nullptr || source == MPI_PROC_NULL || source < MPI_ANY_SOURCE ||
      (source >= 0 && static_cast<size_t>(source) >= on->world.size()))
    return false;
  posted = {on->id, source == MPI_ANY_SOURCE ? -1 : on->world[static_cast<size_t>(source)], tag};
  return true;
}

void LevelSwitch::match(int back_end)
{
  Level& level = levels_[back_end];
  if (not level.dirty)
    return;
  level.dirty = false;
  // The inbox is in sending order (appended as sent); each receive, in posting order, takes the
  // earliest message it matches: for one sender, MPI's non-overtaking order; for MPI_ANY_SOURCE, the
  // earliest sent (the back end takes the earliest arrived: the same unless messages overtake on the
  // network).
  std::vector<bool> taken(level.inbox.size(), false);
  std::vector<Posted> left;
  size_t first = 0; // the first message not taken
  for (const Posted& posted : level.posted) {
    while (first < taken.size() && taken[first])
      ++first;
    bool found = false;
    for (size_t i = first; i < level.inbox.size(); ++i)
      if (not taken[i] && posted.takes(level.inbox[i])) {
        taken[i] = true;
        found    = true;
        break;
      }
    if (not found)
      left.push_back(posted);
  }
  std::vector<Message> kept;
  for (size_t i = 0; i < level.inbox.size(); ++i)
    if (not taken[i])
      kept.push_back(std::move(level.inbox[i]));
  level.inbox.swap(kept);
  level.posted.swap(left);
}

void LevelSwitch::added(int back_end)
{
  Level& level = levels_[back_end];
  level.dirty  = true;
  if (level.inbox.size() + level.posted.size() >= level.compact_at) {
    // Matching part of the lists now gives what matching them whole would: messages are appended in
    // sending order and receives in posting order, and each receive takes the earliest message.
    match(back_end);
    level.compact_at = std::max<size_t>(1024, 2 * (level.inbox.size() + level.posted.size()));
  }
}

long LevelSwitch::earliest(int back_end, const Posted& posted)
{
  match(back_end);
  const auto& inbox = levels_[back_end].inbox;
  for (size_t i = 0; i < inbox.size(); ++i)
    if (posted.takes(inbox[i]))
      return static_cast<long>(i);
  return -1;
}

int LevelSwitch::send_route(int dest, int tag, MPI_Comm comm, const char* call)
{
  const Followed* on = followed(comm);
  if (on == nullptr || dest < 0 || static_cast<size_t>(dest) >= on->world.size())
    return current_;
  int to            = on->world[static_cast<size_t>(dest)];
  LevelSwitch* peer = static_cast<size_t>(to) < registry().size() ? registry()[static_cast<size_t>(to)] : nullptr;
  if (peer == nullptr)
    return current_;
  Message message{next_send_seq(), on->id, rank(), tag, call, place_};
  int other = 1 - current_;
  if (slots_[other].initialized && not slots_[other].finalized) {
    // A receive the destination posted at the other level that no message sent there takes is this
    // message's match when it is the first such receive that matches it (receives are matched in the
    // order they were posted, and those of the other level were posted before the boundary): the
    // message goes to it, in the other back end.
    peer->match(other);
    auto& waiting = peer->levels_[other].posted;
    for (auto it = waiting.begin(); it != waiting.end(); ++it)
      if (it->takes(message)) {
        waiting.erase(it);
        ++forwarded_;
        return other;
      }
  }
  peer->levels_[current_].inbox.push_back(std::move(message));
  peer->added(current_);
  return current_;
}

int LevelSwitch::receive_route(int source, int tag, MPI_Comm comm)
{
  last_posted_valid_ = false;
  Posted posted;
  if (not as_posted(source, tag, comm, posted))
    return current_;
  posted.id          = ++receives_posted_;
  last_posted_       = posted;
  last_posted_valid_ = true;
  int other          = 1 - current_;
  long waiting       = earliest(other, posted);
  if (waiting >= 0) {
    // A message sent at the other level that no receive there took: received where it waits, unless a
    // message the receive matches was sent earlier at this level (MPI's order for one sender).
    long here = earliest(current_, posted);
    if (here < 0 || levels_[current_].inbox[static_cast<size_t>(here)].seq >
                        levels_[other].inbox[static_cast<size_t>(waiting)].seq) {
      auto& inbox = levels_[other].inbox;
      inbox.erase(inbox.begin() + waiting);
      return other;
    }
  }
  levels_[current_].posted.push_back(posted);
  added(current_);
  return current_;
}

int LevelSwitch::probe_route(int source, int tag, MPI_Comm comm)
{
  Posted posted;
  if (not as_posted(source, tag, comm, posted))
    return current_;
  int other    = 1 - current_;
  long waiting = earliest(other, posted);
  if (waiting < 0)
    return current_;
  long here = earliest(current_, posted);
  return here < 0 || levels_[current_].inbox[static_cast<size_t>(here)].seq >
                         levels_[other].inbox[static_cast<size_t>(waiting)].seq
             ? other
             : current_;
}

void LevelSwitch::note_matched_probe(int source, int tag, MPI_Comm comm, int back_end)
{
  Posted posted;
  if (not as_posted(source, tag, comm, posted))
    return;
  if (back_end != current_) { // the message waiting there, taken out
    long waiting = earliest(back_end, posted);
    if (waiting >= 0)
      levels_[back_end].inbox.erase(levels_[back_end].inbox.begin() + waiting);
    return;
  }
  levels_[back_end].posted.push_back(posted);
  added(back_end);
}

void LevelSwitch::note_receive_request(MPI_Request request, int source, int tag, int back_end)
{
  (void)source;
  (void)tag;
  (void)back_end;
  if (last_posted_valid_ && reinterpret_cast<uintptr_t>(request) >= kPredefinedLimit)
    receives_[reinterpret_cast<uintptr_t>(request)] = {last_posted_, place_};
}

void LevelSwitch::note_cancel(MPI_Request request)
{
  auto it = receives_.find(reinterpret_cast<uintptr_t>(request));
  if (it == receives_.end())
    return;
  int back_end = owner_of(request);
  match(back_end); // a message already sent to the receive has taken it: the cancel will fail
  auto& posted = levels_[back_end].posted;
  uint64_t id  = it->second.posted.id;
  auto found   = std::find_if(posted.begin(), posted.end(), [id](const Posted& p) { return p.id == id; });
  if (found != posted.end())
    posted.erase(found);
}

void LevelSwitch::check_wait(MPI_Request request, const char* call)
{
  // A receive of the other level completes when its message comes: one sent there before the
  // boundary, or one sent now and forwarded to it (send_route). A receive nothing is ever sent to
  // is a deadlock, which the run reports (every rank waiting, with its MPI call and this detail).
  wait_detail_.clear();
  note_wait(request, call);
}

void LevelSwitch::note_wait(MPI_Request request, const char* call)
{
  auto it = receives_.find(reinterpret_cast<uintptr_t>(request));
  if (not wait_detail_.empty() || it == receives_.end() || owner_of(request) == current_)
    return;
  const Receive& receive = it->second;
  std::string on         = "MPI_COMM_WORLD";
  for (const auto& [handle, followed] : followed_)
    if (followed.id == receive.posted.comm)
      on = followed.name();
  std::string from = receive.posted.from < 0 ? std::string("any source (MPI_ANY_SOURCE)")
                                             : "rank " + std::to_string(receive.posted.from) + " (MPI_COMM_WORLD rank)";
  std::string tag  = receive.posted.tag == MPI_ANY_TAG ? std::string("any tag (MPI_ANY_TAG)")
                                                       : "tag " + std::to_string(receive.posted.tag);
  wait_detail_     = std::string(call) + " in " + place_ + " for the receive from " + from + ", " + tag + ", on " + on +
                 ", posted in " + receive.place + " at the " + back_end_name(owner_of(request)) +
                 " level: a message sent to it at either level completes it (one sent at this level is forwarded "
                 "to it); none came";
}

const char* LevelSwitch::back_end() const
{
  return slots_[current_].dispatch->back_end();
}

const CallHooks* LevelSwitch::active_call_hooks() const
{
  return called_ >= 0 ? slots_[called_].hooks : nullptr;
}

LevelSwitch::Call::Call(LevelSwitch& owner, int back_end)
    : owner_(owner), back_end_(back_end), previous_(owner.called_), foreign_(back_end != owner.current_)
{
  owner_.called_ = back_end;
  if (const CallHooks* hooks = owner_.slots_[back_end].hooks) {
    token_ = hooks->enter();
    if (foreign_ && hooks->quiet_polls != nullptr)
      hooks->quiet_polls(true);
  }
}

LevelSwitch::Call::~Call()
{
  if (const CallHooks* hooks = owner_.slots_[back_end_].hooks) {
    if (foreign_ && hooks->quiet_polls != nullptr)
      hooks->quiet_polls(false);
    hooks->leave(token_);
  }
  owner_.called_ = previous_;
}

void LevelSwitch::after_poll(int back_end, bool found)
{
  if (found || back_end == current_)
    return;
  // A request the current back end never completes: testing it runs one round of that back end's
  // progress, which polls as the level does (OpenMPI: the NIC's event queue, with cpu.poll_delay_*;
  // SMPI: smpi/test), and nothing else.
  Slot& slot = slots_[current_];
  Call call(*this, current_);
  if (slot.idle_request == MPI_REQUEST_NULL)
    call.target().Grequest_start(&idle_query, &idle_free, &idle_cancel, nullptr, &slot.idle_request);
  int flag = 0;
  call.target().Test(&slot.idle_request, &flag, MPI_STATUS_IGNORE);
}

uintptr_t LevelSwitch::to_called_value(uintptr_t value, int back_end, const char* kind)
{
  if (value < kPredefinedLimit)
    return value; // predefined and null handles mean the same in both back ends
  if (value == replay_parent_.first)
    return replay_parent_.second;
  auto it = handles_.find(value);
  if (it == handles_.end() || it->second.owner == back_end)
    return value;
  Handle& handle = it->second;
  if (handle.mirror == 0 && handle.make) {
    handle.mirror = handle.make(*this, back_end);
    if (handle.mirror != 0) {
      canonical_[handle.mirror] = value;
      if (handle.committed) {
        auto mirror = reinterpret_cast<MPI_Datatype>(handle.mirror);
        Call call(*this, back_end);
        call.target().Type_commit(&mirror);
      }
    }
  }
  if (handle.mirror == 0)
    fail(rank(), std::string("an MPI ") + kind + " made at the " + back_end_name(handle.owner) +
                     " level is used at the " + back_end_name(back_end) +
                     " level, where bxisim has no copy of it: bxisim re-creates datatypes, operations, groups and "
                     "communicators in the other level (a communicator from the one it was made "
                     "from, unless that one was freed at both levels); make this one inside the region that uses it, "
                     "or run the whole program at one level (bxisim run --level).");
  return handle.mirror;
}

uintptr_t LevelSwitch::from_called_value(uintptr_t value, int back_end)
{
  if (value < kPredefinedLimit)
    return value;
  auto mirrored = canonical_.find(value);
  if (mirrored != canonical_.end())
    return mirrored->second;
  handles_.try_emplace(value, Handle{back_end, 0, nullptr, false});
  return value;
}

bool LevelSwitch::needs(size_t i, int be, int boundary) const
{
  const Collective& record = collectives_[i];
  if (record.pending)
    return true;
  if (record.made == 0)
    return false;
  if (not record.freed)
    return true;
  for (size_t child : record.children)
    if (replays(child, be, boundary))
      return true;
  return false;
}

bool LevelSwitch::replays(size_t i, int be, int boundary) const
{
  const Collective& record = collectives_[i];
  if (record.owner == be || (record.replayed && record.replayed_at < boundary))
    return false;
  if (record.path.empty())
    return true; // not followed: every rank of its parent has the record and replays it
  if (needs(i, be, boundary))
    return true;
  // The ranks of the parent decide together: one needing it is enough (the constructor is collective over the
  // parent, whose ranks may have got different communicators: a split's colours, MPI_COMM_NULL).
  static std::map<std::pair<std::string, int>, bool> decided; // (path, boundary) -> replayed
  auto [it, fresh] = decided.try_emplace({record.path, 2 * boundary + be}, false);
  if (fresh)
    for (const LevelSwitch* peer : registry()) {
      if (peer == nullptr)
        continue;
      auto same = peer->by_path_.find(record.path);
      if (same != peer->by_path_.end() && peer->needs(same->second, be, boundary)) {
        it->second = true;
        break;
      }
    }
  return it->second;
}

void LevelSwitch::forget(uintptr_t value)
{
  for (auto record = collectives_.rbegin(); record != collectives_.rend(); ++record)
    if (record->made == value && not record->freed) {
      record->freed    = true;
      record->freed_at = current_;
      live_records_.erase(value);
      break;
    }
  // Freed: its attributes are deleted (their keyvals' delete functions called), its error handler
  // and info entries dropped.
  for (auto attribute = attributes_.lower_bound({value, INT_MIN});
       attribute != attributes_.end() && attribute->first.first == value;) {
    auto keyval = keyvals_.find(attribute->first.second);
    if (keyval != keyvals_.end())
      call_delete(keyval->second, value, attribute->first.second, attribute->second);
    attribute = attributes_.erase(attribute);
  }
  errhandlers_.erase(value);
  info_entries_.erase(value);
  followed_.erase(value); // a value handed out again may be a communicator the switch does not follow
  auto it = handles_.find(value);
  if (it == handles_.end())
    return;
  if (it->second.mirror != 0)
    canonical_.erase(it->second.mirror);
  handles_.erase(it);
}

void LevelSwitch::record_local_constructor(uintptr_t made, Maker make)
{
  auto it = handles_.find(made);
  if (it != handles_.end() && it->second.owner == called_)
    it->second.make = std::move(make);
}

void LevelSwitch::record_collective_constructor(uintptr_t made, uintptr_t parent, Maker make)
{
  Collective record{called_, made, parent, std::move(make), false, false, std::move(last_path_)};
  last_path_.clear();
  auto from = live_records_.find(parent);
  if (from != live_records_.end()) {
    record.parent_index = static_cast<long>(from->second);
    collectives_[from->second].children.push_back(collectives_.size());
  }
  if (made != 0)
    live_records_[made] = collectives_.size();
  if (not record.path.empty())
    by_path_[record.path] = collectives_.size();
  collectives_.push_back(std::move(record));
}

namespace
{
template <class H>
uintptr_t value_of(H handle)
{
  return reinterpret_cast<uintptr_t>(handle);
}
} // namespace

void LevelSwitch::record_Comm_dup(MPI_Comm comm, MPI_Comm newcomm)
{
  follow(comm, newcomm, called_);
  copy_attributes(AttributeKind::Comm, value_of(comm), value_of(newcomm));
  record_collective_constructor(value_of(newcomm), value_of(comm), [comm](LevelSwitch& s, int be) {
    MPI_Comm made = MPI_COMM_NULL;
    Call call(s, be);
    call.target().Comm_dup(s.to_called(comm, be), &made);
    return value_of(made);
  });
}

int LevelSwitch::Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request)
{
  if (newcomm == nullptr || request == nullptr)
    return MPI_ERR_ARG;
  int be = current_;
  // The back end writes the new communicator into bxisim's slot: at the call (OpenMPI), or at completion (the SMPI
  // back end makes it then). Known at the call, it is recorded at once, and the program's variable is not written
  // later (the Fortran binding's is gone by then).
  auto slot = std::make_unique<MPI_Comm>(MPI_COMM_NULL);
  {
    Call call(*this, be);
    int result = call.target().Comm_idup(to_called(comm, be), slot.get(), request);
    if (result != MPI_SUCCESS)
      return result;
  }
  note_routed(*request, be);
  std::vector<int> world;
  if (Followed* from = followed(comm)) {
    last_path_ = from->path + "/" + std::to_string(from->children++);
    world      = from->world;
  }
  int previous = called_;
  called_      = be;
  record_collective_constructor(0, value_of(comm), [comm](LevelSwitch& s, int to) {
    MPI_Comm made = MPI_COMM_NULL;
    Call call(s, to);
    call.target().Comm_dup(s.to_called(comm, to), &made);
    return value_of(made);
  });
  called_                     = previous;
  collectives_.back().pending = true;
  // Attributes as they are at the call (MPI-3.1 6.4.2: as MPI_Comm_dup at the call).
  Idup idup{std::move(slot),         newcomm,
            collectives_.size() - 1, be,
            std::move(world),        copied_attributes(AttributeKind::Comm, value_of(comm))};
  if (*idup.slot != MPI_COMM_NULL) {
    *newcomm = record_idup(idup);
    return MPI_SUCCESS;
  }
  *newcomm                   = MPI_COMM_NULL;
  idups_[value_of(*request)] = std::move(idup);
  return MPI_SUCCESS;
}

void LevelSwitch::completed_idup(uintptr_t request)
{
  auto it = idups_.find(request);
  if (it == idups_.end())
    return;
  Idup idup = std::move(it->second);
  idups_.erase(it);
  *idup.newcomm = record_idup(idup);
}

MPI_Comm LevelSwitch::record_idup(Idup& idup)
{
  MPI_Comm made                 = from_called(*idup.slot, idup.back_end);
  size_t index                  = idup.record;
  collectives_[index].made      = value_of(made);
  collectives_[index].pending   = false;
  live_records_[value_of(made)] = index;
  const std::string& path       = collectives_[index].path;
  if (not path.empty())
    followed_[value_of(made)] = {communicator_id(path), path, std::move(idup.world), 0};
  for (const auto& [keyval, value] : idup.attributes)
    attributes_[{value_of(made), keyval}] = value;
  uintptr_t mirror = collectives_[index].mirror;
  if (collectives_[index].replayed && mirror >= kPredefinedLimit) { // a boundary came before its completion
    handles_[value_of(made)].mirror = mirror;
    canonical_[mirror]              = value_of(made);
  }
  return made;
}

void LevelSwitch::record_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm newcomm)
{
  follow(comm, newcomm, called_);
  record_collective_constructor(value_of(newcomm), value_of(comm), [comm, color, key](LevelSwitch& s, int be) {
    MPI_Comm made = MPI_COMM_NULL;
    Call call(s, be);
    call.target().Comm_split(s.to_called(comm, be), color, key, &made);
    return value_of(made);
  });
}

std::vector<int> LevelSwitch::group_members(MPI_Group group)
{
  Call call(*this, called_);
  MpiInterface& mpi = call.target();
  MPI_Group in      = to_called(group, called_);
  MPI_Group world   = MPI_GROUP_NULL;
  int size          = 0;
  mpi.Group_size(in, &size);
  mpi.Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(static_cast<size_t>(size > 0 ? size : 0));
  std::vector<int> members(ranks.size(), MPI_UNDEFINED);
  for (size_t i = 0; i < ranks.size(); ++i)
    ranks[i] = static_cast<int>(i);
  mpi.Group_translate_ranks(in, size, ranks.data(), world, members.data());
  mpi.Group_free(&world);
  return members;
}

MPI_Group LevelSwitch::members_group(const std::vector<int>& ranks, int be)
{
  MPI_Group world = MPI_GROUP_NULL;
  MPI_Group group = MPI_GROUP_NULL;
  Call call(*this, be);
  call.target().Comm_group(MPI_COMM_WORLD, &world);
  call.target().Group_incl(world, static_cast<int>(ranks.size()), ranks.data(), &group);
  call.target().Group_free(&world);
  return group;
}

std::string LevelSwitch::follow_members(MPI_Comm made, const char* kind)
{
  std::vector<int> ranks = world_ranks(to_called(made, called_), called_);
  std::string path       = kind;
  for (int r : ranks)
    path += "/" + std::to_string(r);
  path += "#" + std::to_string(by_members_[path]++);
  followed_[value_of(made)] = {communicator_id(path), path, std::move(ranks), 0};
  return path;
}

void LevelSwitch::record_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm newcomm)
{
  follow(comm, newcomm, called_);
  // By its members: the program may free the group before the boundary that re-creates the communicator.
  std::vector<int> members = group_members(group);
  record_collective_constructor(value_of(newcomm), value_of(comm), [comm, members](LevelSwitch& s, int be) {
    MPI_Comm made      = MPI_COMM_NULL;
    MPI_Comm in        = s.to_called(comm, be);
    MPI_Group in_group = s.members_group(members, be);
    Call call(s, be);
    call.target().Comm_create(in, in_group, &made);
    call.target().Group_free(&in_group);
    return value_of(made);
  });
}

void LevelSwitch::record_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm newcomm)
{
  // Collective over the group's members only: followed by its members (the parent's children are counted on
  // every rank of the parent, which the other ranks did not call).
  last_path_               = follow_members(newcomm, "group");
  std::vector<int> members = group_members(group);
  record_collective_constructor(value_of(newcomm), value_of(comm), [comm, members, tag](LevelSwitch& s, int be) {
    MPI_Comm made      = MPI_COMM_NULL;
    MPI_Comm in        = s.to_called(comm, be);
    MPI_Group in_group = s.members_group(members, be);
    Call call(s, be);
    call.target().Comm_create_group(in, in_group, tag, &made);
    call.target().Group_free(&in_group);
    return value_of(made);
  });
}

void LevelSwitch::record_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm newcomm)
{
  (void)info; // hints: the copy at the other level is made without them
  record_Comm_dup(comm, newcomm);
}

void LevelSwitch::record_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm newcomm)
{
  (void)info;
  follow(comm, newcomm, called_);
  record_collective_constructor(value_of(newcomm), value_of(comm), [comm, split_type, key](LevelSwitch& s, int be) {
    MPI_Comm made = MPI_COMM_NULL;
    MPI_Comm in   = s.to_called(comm, be);
    Call call(s, be);
    call.target().Comm_split_type(in, split_type, key, MPI_INFO_NULL, &made);
    return value_of(made);
  });
}

void LevelSwitch::record_Dist_graph_create(MPI_Comm comm_old, int n, const int* sources, const int* degrees,
                                           const int* destinations, const int* weights, MPI_Info info, int reorder,
                                           MPI_Comm comm_dist_graph)
{
  (void)n;
  (void)sources;
  (void)degrees;
  (void)destinations;
  (void)weights;
  (void)info;
  // Re-created from each rank's neighbours as the back end that made it numbers them (the order of
  // MPI_Dist_graph_neighbors is the implementation's: the copy must give the same one).
  Topology graph{MPI_DIST_GRAPH, {}, {}, {}, {}, {}, {}, false};
  {
    Call call(*this, called_);
    MPI_Comm made = to_called(comm_dist_graph, called_);
    int in = 0, out = 0, weighted = 0;
    call.target().Dist_graph_neighbors_count(made, &in, &out, &weighted);
    graph.weighted = weighted != 0;
    graph.sources.resize(static_cast<size_t>(in));
    graph.destinations.resize(static_cast<size_t>(out));
    graph.sourceweights.resize(graph.weighted ? graph.sources.size() : 0);
    graph.destweights.resize(graph.weighted ? graph.destinations.size() : 0);
    call.target().Dist_graph_neighbors(
        made, in, graph.sources.data(), graph.weighted ? graph.sourceweights.data() : MPI_UNWEIGHTED, out,
        graph.destinations.data(), graph.weighted ? graph.destweights.data() : MPI_UNWEIGHTED);
  }
  follow(comm_old, comm_dist_graph, called_);
  record_dist_graph(comm_old, comm_dist_graph, std::move(graph), reorder);
}

void LevelSwitch::record_dist_graph(MPI_Comm comm_old, MPI_Comm made, Topology graph, int reorder)
{
  record_collective_constructor(
      value_of(made), value_of(comm_old), [comm_old, graph = std::move(graph), reorder](LevelSwitch& s, int to) {
        int code = MPI_SUCCESS;
        return value_of(s.make_dist_graph(to, comm_old, graph, MPI_INFO_NULL, reorder, &code));
      });
}

void LevelSwitch::record_Cart_create(MPI_Comm old_comm, int ndims, const int* dims, const int* periods, int reorder,
                                     MPI_Comm comm_cart)
{
  follow(old_comm, comm_cart, called_);
  size_t n = ndims > 0 ? static_cast<size_t>(ndims) : 0;
  std::vector<int> extents(dims, dims + n);
  std::vector<int> wraps(periods, periods + n);
  record_collective_constructor(
      value_of(comm_cart), value_of(old_comm), [old_comm, extents, wraps, reorder](LevelSwitch& s, int be) {
        MPI_Comm made = MPI_COMM_NULL;
        MPI_Comm in   = s.to_called(old_comm, be);
        Call call(s, be);
        call.target().Cart_create(in, static_cast<int>(extents.size()), extents.data(), wraps.data(), reorder, &made);
        return value_of(made);
      });
}

void LevelSwitch::record_Cart_sub(MPI_Comm comm, const int* remain_dims, MPI_Comm new_comm)
{
  follow(comm, new_comm, called_);
  int ndims = 0;
  {
    Call call(*this, called_);
    call.target().Cartdim_get(to_called(comm, called_), &ndims);
  }
  std::vector<int> remain(remain_dims, remain_dims + (ndims > 0 ? ndims : 0));
  record_collective_constructor(value_of(new_comm), value_of(comm), [comm, remain](LevelSwitch& s, int be) {
    MPI_Comm made = MPI_COMM_NULL;
    MPI_Comm in   = s.to_called(comm, be);
    Call call(s, be);
    call.target().Cart_sub(in, remain.data(), &made);
    return value_of(made);
  });
}

void LevelSwitch::record_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm bridge_comm,
                                          int remote_leader, int tag, MPI_Comm newintercomm)
{
  // Re-created by the same call, the leaders bridged by a communicator of the two of them made for it: the
  // program's bridge may be freed by then (its value another communicator's), and the other ranks may have passed
  // one the leader alone has. Followed by its two groups (each side names them in the same order: the group of
  // the lower MPI_COMM_WORLD rank first), its ranks those of the remote group.
  int local_rank = -1;
  {
    Call call(*this, called_);
    call.target().Comm_rank(to_called(local_comm, called_), &local_rank);
  }
  bool leader             = local_rank == local_leader;
  int remote_leader_world = leader ? world_ranks(to_called(bridge_comm, called_), called_).at(remote_leader) : -1;
  MPI_Comm here           = to_called(newintercomm, called_);
  std::vector<int> ours = world_ranks(here, called_), theirs = world_ranks(here, called_, true);
  auto lowest        = [](const std::vector<int>& ranks) { return *std::min_element(ranks.begin(), ranks.end()); };
  const auto& first  = lowest(ours) < lowest(theirs) ? ours : theirs;
  const auto& second = &first == &ours ? theirs : ours;
  std::string path   = "inter";
  for (int r : first)
    path += "/" + std::to_string(r);
  path += "|";
  for (int r : second)
    path += "/" + std::to_string(r);
  path += "#" + std::to_string(by_members_[path]++);
  followed_[value_of(newintercomm)] = {communicator_id(path), path, std::move(theirs), 0};
  last_path_                        = path;
  record_collective_constructor(
      value_of(newintercomm), value_of(local_comm),
      [local_comm, local_leader, remote_leader_world, tag](LevelSwitch& s, int be) {
        MPI_Comm made   = MPI_COMM_NULL;
        MPI_Comm local  = s.to_called(local_comm, be);
        MPI_Comm bridge = MPI_COMM_NULL;
        int me          = s.rank();
        if (remote_leader_world >= 0) { // the local leader
          std::vector<int> leaders = {std::min(me, remote_leader_world), std::max(me, remote_leader_world)};
          MPI_Group pair           = s.members_group(leaders, be);
          Call call(s, be);
          call.target().Comm_create_group(MPI_COMM_WORLD, pair, 0x5EEF, &bridge);
          call.target().Group_free(&pair);
        }
        Call call(s, be);
        call.target().Intercomm_create(local, local_leader, bridge != MPI_COMM_NULL ? bridge : MPI_COMM_WORLD,
                                       me < remote_leader_world ? 1 : 0, tag, &made);
        if (bridge != MPI_COMM_NULL)
          call.target().Comm_free(&bridge);
        return value_of(made);
      });
}

void LevelSwitch::record_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm newintracomm)
{
  (void)high;
  // An intra-communicator of known ranks: followed by its members, and made at the other level by
  // MPI_Comm_create_group over MPI_COMM_WORLD with those ranks in its order.
  (void)intercomm; // made from MPI_COMM_WORLD at the other level: the intercommunicator may be freed by then
  std::vector<int> ranks = world_ranks(to_called(newintracomm, called_), called_);
  last_path_             = follow_members(newintracomm, "merge");
  record_collective_constructor(value_of(newintracomm), value_of(MPI_COMM_WORLD), [ranks](LevelSwitch& s, int be) {
    MPI_Comm made   = MPI_COMM_NULL;
    MPI_Group group = s.members_group(ranks, be);
    Call call(s, be);
    call.target().Comm_create_group(MPI_COMM_WORLD, group, 0x5EED, &made);
    call.target().Group_free(&group);
    return value_of(made);
  });
}

MPI_Comm LevelSwitch::make_graph(int be, MPI_Comm comm_old, int nnodes, const int* index, const int* edges, int reorder,
                                 int* result)
{
  MPI_Comm made = MPI_COMM_NULL;
  MPI_Comm in   = to_called(comm_old, be);
  Call call(*this, be);
  *result = call.target().Graph_create(in, nnodes, index, edges, reorder, &made);
  return made;
}

MPI_Comm LevelSwitch::make_dist_graph(int be, MPI_Comm comm_old, const Topology& graph, MPI_Info info, int reorder,
                                      int* result)
{
  MPI_Comm made = MPI_COMM_NULL;
  MPI_Comm in   = to_called(comm_old, be);
  MPI_Info hint = to_called(info, be);
  Call call(*this, be);
  const int* in_weights  = graph.weighted ? graph.sourceweights.data() : MPI_UNWEIGHTED;
  const int* out_weights = graph.weighted ? graph.destweights.data() : MPI_UNWEIGHTED;
  if (graph.weighted && graph.sources.empty())
    in_weights = MPI_WEIGHTS_EMPTY;
  if (graph.weighted && graph.destinations.empty())
    out_weights = MPI_WEIGHTS_EMPTY;
  *result = call.target().Dist_graph_create_adjacent(in, static_cast<int>(graph.sources.size()), graph.sources.data(),
                                                     in_weights, static_cast<int>(graph.destinations.size()),
                                                     graph.destinations.data(), out_weights, hint, reorder, &made);
  return made;
}

int LevelSwitch::Graph_create(MPI_Comm comm_old, int nnodes, const int* index, const int* edges, int reorder,
                              MPI_Comm* comm_graph)
{
  if (comm_graph == nullptr || nnodes < 0 || (nnodes > 0 && (index == nullptr || edges == nullptr)))
    return MPI_ERR_ARG;
  int result    = MPI_SUCCESS;
  int be        = current_;
  MPI_Comm made = make_graph(be, comm_old, nnodes, index, edges, reorder, &result);
  if (result != MPI_SUCCESS)
    return result;
  *comm_graph  = from_called(made, be);
  int previous = called_;
  called_      = be; // the constructor's back end, for the records
  follow(comm_old, *comm_graph, be);
  Topology graph{MPI_GRAPH, {}, {}, {}, {}, {}, {}, false};
  graph.index.assign(index, index + nnodes);
  graph.edges.assign(edges, edges + (nnodes > 0 ? index[nnodes - 1] : 0));
  record_collective_constructor(value_of(*comm_graph), value_of(comm_old),
                                [comm_old, graph, reorder](LevelSwitch& s, int to) {
                                  int code = MPI_SUCCESS;
                                  return value_of(s.make_graph(to, comm_old, static_cast<int>(graph.index.size()),
                                                               graph.index.data(), graph.edges.data(), reorder, &code));
                                });
  called_ = previous;
  return MPI_SUCCESS;
}

int LevelSwitch::Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int* sources,
                                            const int* sourceweights, int outdegree, const int* destinations,
                                            const int* destweights, MPI_Info info, int reorder,
                                            MPI_Comm* comm_dist_graph)
{
  if (comm_dist_graph == nullptr || indegree < 0 || outdegree < 0)
    return MPI_ERR_ARG;
  Topology graph{MPI_DIST_GRAPH, {}, {}, {}, {}, {}, {}, false};
  graph.sources.assign(sources, sources + indegree);
  graph.destinations.assign(destinations, destinations + outdegree);
  graph.weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
  if (graph.weighted) {
    if (sourceweights != MPI_WEIGHTS_EMPTY)
      graph.sourceweights.assign(sourceweights, sourceweights + indegree);
    if (destweights != MPI_WEIGHTS_EMPTY)
      graph.destweights.assign(destweights, destweights + outdegree);
  }
  int result    = MPI_SUCCESS;
  int be        = current_;
  MPI_Comm made = make_dist_graph(be, comm_old, graph, info, reorder, &result);
  if (result != MPI_SUCCESS)
    return result;
  *comm_dist_graph = from_called(made, be);
  int previous     = called_;
  called_          = be;
  follow(comm_old, *comm_dist_graph, be);
  record_dist_graph(comm_old, *comm_dist_graph, std::move(graph), reorder);
  called_ = previous;
  return MPI_SUCCESS;
}

void LevelSwitch::record_Comm_group(MPI_Comm comm, MPI_Group group)
{
  record_local_constructor(value_of(group), [comm](LevelSwitch& s, int be) {
    MPI_Group made = MPI_GROUP_NULL;
    MPI_Comm in    = s.to_called(comm, be);
    Call call(s, be);
    call.target().Comm_group(in, &made);
    return value_of(made);
  });
}

void LevelSwitch::record_Group_incl(MPI_Group group, int n, const int* ranks, MPI_Group newgroup)
{
  std::vector<int> kept(ranks, ranks + (n > 0 ? n : 0));
  record_local_constructor(value_of(newgroup), [group, kept](LevelSwitch& s, int be) {
    MPI_Group made = MPI_GROUP_NULL;
    MPI_Group in   = s.to_called(group, be);
    Call call(s, be);
    call.target().Group_incl(in, static_cast<int>(kept.size()), kept.data(), &made);
    return value_of(made);
  });
}

void LevelSwitch::record_Op_create(MPI_User_function* function, int commute, MPI_Op op)
{
  record_local_constructor(value_of(op), [function, commute](LevelSwitch& s, int be) {
    MPI_Op made = MPI_OP_NULL;
    Call call(s, be);
    call.target().Op_create(function, commute, &made);
    return value_of(made);
  });
}

void LevelSwitch::record_Type_commit(MPI_Datatype type)
{
  auto it = handles_.find(value_of(type));
  if (it == handles_.end())
    return;
  it->second.committed = true;
  int other            = 1 - called_;
  if (it->second.owner == called_ && it->second.mirror != 0) { // a mirror made before the commit
    auto mirror = reinterpret_cast<MPI_Datatype>(it->second.mirror);
    Call call(*this, other);
    call.target().Type_commit(&mirror);
  }
}

namespace
{
/** What re-creates, at another back end, a datatype made from `oldtype`: `construct(target, old type there, &made)`. */
template <class Construct>
auto type_maker(MPI_Datatype oldtype, Construct construct)
{
  return [oldtype, construct](LevelSwitch& s, int be) {
    MPI_Datatype made = MPI_DATATYPE_NULL;
    MPI_Datatype in   = s.to_called(oldtype, be);
    LevelSwitch::Call call(s, be);
    construct(call.target(), in, &made);
    return value_of(made);
  };
}

/** A copy of a constructor's array argument (`count` of them; none for a negative count). */
template <class T>
std::vector<T> kept(const T* values, int count)
{
  return count > 0 ? std::vector<T>(values, values + count) : std::vector<T>();
}
} // namespace

void LevelSwitch::record_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype newtype)
{
  record_local_constructor(value_of(newtype),
                           type_maker(oldtype, [count](MpiInterface& mpi, MPI_Datatype in, MPI_Datatype* made) {
                             mpi.Type_contiguous(count, in, made);
                           }));
}

void LevelSwitch::record_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype newtype)
{
  record_local_constructor(
      value_of(newtype),
      type_maker(oldtype, [count, blocklength, stride](MpiInterface& mpi, MPI_Datatype in, MPI_Datatype* made) {
        mpi.Type_vector(count, blocklength, stride, in, made);
      }));
}

void LevelSwitch::record_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                             MPI_Datatype newtype)
{
  record_local_constructor(
      value_of(newtype),
      type_maker(oldtype, [count, blocklength, stride](MpiInterface& mpi, MPI_Datatype in, MPI_Datatype* made) {
        mpi.Type_create_hvector(count, blocklength, stride, in, made);
      }));
}

void LevelSwitch::record_Type_indexed(int count, const int* blocklengths, const int* displacements,
                                      MPI_Datatype oldtype, MPI_Datatype newtype)
{
  record_local_constructor(
      value_of(newtype), type_maker(oldtype, [lengths = kept(blocklengths, count), places = kept(displacements, count)](
                                                 MpiInterface& mpi, MPI_Datatype in, MPI_Datatype* made) {
        mpi.Type_indexed(static_cast<int>(lengths.size()), lengths.data(), places.data(), in, made);
      }));
}

void LevelSwitch::record_Type_create_hindexed(int count, const int* blocklengths, const MPI_Aint* displacements,
                                              MPI_Datatype oldtype, MPI_Datatype newtype)
{
  record_local_constructor(
      value_of(newtype), type_maker(oldtype, [lengths = kept(blocklengths, count), places = kept(displacements, count)](
                                                 MpiInterface& mpi, MPI_Datatype in, MPI_Datatype* made) {
        mpi.Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), places.data(), in, made);
      }));
}

void LevelSwitch::record_Type_create_indexed_block(int count, int blocklength, const int* displacements,
                                                   MPI_Datatype oldtype, MPI_Datatype newtype)
{
  record_local_constructor(
      value_of(newtype), type_maker(oldtype, [blocklength, places = kept(displacements, count)](
                                                 MpiInterface& mpi, MPI_Datatype in, MPI_Datatype* made) {
        mpi.Type_create_indexed_block(static_cast<int>(places.size()), blocklength, places.data(), in, made);
      }));
}

void LevelSwitch::record_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint* displacements,
                                                    MPI_Datatype oldtype, MPI_Datatype newtype)
{
  record_local_constructor(
      value_of(newtype), type_maker(oldtype, [blocklength, places = kept(displacements, count)](
                                                 MpiInterface& mpi, MPI_Datatype in, MPI_Datatype* made) {
        mpi.Type_create_hindexed_block(static_cast<int>(places.size()), blocklength, places.data(), in, made);
      }));
}

void LevelSwitch::record_Type_create_subarray(int ndims, const int* sizes, const int* subsizes, const int* starts,
                                              int order, MPI_Datatype oldtype, MPI_Datatype newtype)
{
  record_local_constructor(
      value_of(newtype),
      type_maker(oldtype, [whole = kept(sizes, ndims), part = kept(subsizes, ndims), from = kept(starts, ndims),
                           order](MpiInterface& mpi, MPI_Datatype in, MPI_Datatype* made) {
        mpi.Type_create_subarray(static_cast<int>(whole.size()), whole.data(), part.data(), from.data(), order, in,
                                 made);
      }));
}

void LevelSwitch::record_Type_create_darray(int size, int rank, int ndims, const int* array_of_gsizes,
                                            const int* array_of_distribs, const int* array_of_dargs,
                                            const int* array_of_psizes, int order, MPI_Datatype oldtype,
                                            MPI_Datatype newtype)
{
  record_local_constructor(
      value_of(newtype),
      type_maker(oldtype, [size, rank, whole = kept(array_of_gsizes, ndims), how = kept(array_of_distribs, ndims),
                           blocks = kept(array_of_dargs, ndims), grid = kept(array_of_psizes, ndims),
                           order](MpiInterface& mpi, MPI_Datatype in, MPI_Datatype* made) {
        mpi.Type_create_darray(size, rank, static_cast<int>(whole.size()), whole.data(), how.data(), blocks.data(),
                               grid.data(), order, in, made);
      }));
}

void LevelSwitch::record_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype newtype)
{
  record_local_constructor(value_of(newtype),
                           type_maker(oldtype, [lb, extent](MpiInterface& mpi, MPI_Datatype in, MPI_Datatype* made) {
                             mpi.Type_create_resized(in, lb, extent, made);
                           }));
}

void LevelSwitch::record_Type_create_struct(int count, const int* blocklengths, const MPI_Aint* displacements,
                                            const MPI_Datatype* types, MPI_Datatype newtype)
{
  size_t n = count > 0 ? static_cast<size_t>(count) : 0;
  std::vector<int> lengths(blocklengths, blocklengths + n);
  std::vector<MPI_Aint> places(displacements, displacements + n);
  std::vector<MPI_Datatype> old(types, types + n);
  record_local_constructor(value_of(newtype), [lengths, places, old](LevelSwitch& s, int be) {
    MPI_Datatype made = MPI_DATATYPE_NULL;
    std::vector<MPI_Datatype> in;
    for (MPI_Datatype type : old)
      in.push_back(s.to_called(type, be));
    Call call(s, be);
    call.target().Type_create_struct(static_cast<int>(lengths.size()), lengths.data(), places.data(), in.data(), &made);
    return value_of(made);
  });
}

void LevelSwitch::record_Type_dup(MPI_Datatype type, MPI_Datatype newtype)
{
  copy_attributes(AttributeKind::Type, value_of(type), value_of(newtype));
  record_local_constructor(value_of(newtype), type_maker(type, [](MpiInterface& mpi, MPI_Datatype in,
                                                                  MPI_Datatype* made) { mpi.Type_dup(in, made); }));
}

namespace
{
/** What re-creates, at another back end, an error handler the program made with `create`. */
template <class Function>
auto errhandler_maker(Function* function, int (MpiInterface::*create)(Function*, MPI_Errhandler*))
{
  return [function, create](LevelSwitch& s, int be) {
    MPI_Errhandler made = MPI_ERRHANDLER_NULL;
    LevelSwitch::Call call(s, be);
    (call.target().*create)(function, &made);
    return value_of(made);
  };
}
} // namespace

void LevelSwitch::record_Comm_create_errhandler(MPI_Comm_errhandler_function* function, MPI_Errhandler errhandler)
{
  record_local_constructor(value_of(errhandler), errhandler_maker(function, &MpiInterface::Comm_create_errhandler));
}

void LevelSwitch::record_Win_create_errhandler(MPI_Win_errhandler_function* function, MPI_Errhandler errhandler)
{
  record_local_constructor(value_of(errhandler), errhandler_maker(function, &MpiInterface::Win_create_errhandler));
}

void LevelSwitch::record_File_create_errhandler(MPI_File_errhandler_function* function, MPI_Errhandler errhandler)
{
  record_local_constructor(value_of(errhandler), errhandler_maker(function, &MpiInterface::File_create_errhandler));
}

namespace
{
/** An info made in `be` with the program's entries, in order. */
uintptr_t make_info(LevelSwitch& s, int be, const std::vector<std::pair<std::string, std::string>>& entries)
{
  MPI_Info made = MPI_INFO_NULL;
  LevelSwitch::Call call(s, be);
  call.target().Info_create(&made);
  for (const auto& [key, value] : entries)
    call.target().Info_set(made, key.c_str(), value.c_str());
  return value_of(made);
}
} // namespace

void LevelSwitch::record_Info_create(MPI_Info info)
{
  uintptr_t made = value_of(info);
  info_entries_[made].clear();
  record_local_constructor(made, [made](LevelSwitch& s, int be) { return make_info(s, be, s.info_entries_[made]); });
}

void LevelSwitch::record_Info_dup(MPI_Info info, MPI_Info newinfo)
{
  uintptr_t made      = value_of(newinfo);
  info_entries_[made] = info_entries_[value_of(info)];
  record_local_constructor(made, [made](LevelSwitch& s, int be) { return make_info(s, be, s.info_entries_[made]); });
}

bool LevelSwitch::present_in(uintptr_t value, int back_end) const
{
  if (value < kPredefinedLimit)
    return true;
  auto it = handles_.find(value);
  return it != handles_.end() && (it->second.owner == back_end || it->second.mirror != 0);
}

void LevelSwitch::record_Info_set(MPI_Info info, const char* key, const char* value)
{
  auto& entries = info_entries_[value_of(info)];
  auto same     = std::find_if(entries.begin(), entries.end(), [key](const auto& entry) { return entry.first == key; });
  if (same != entries.end())
    same->second = value;
  else
    entries.emplace_back(key, value);
  int other = 1 - called_;
  if (value_of(info) >= kPredefinedLimit && present_in(value_of(info), other)) { // its copy there follows
    MPI_Info there = to_called(info, other);
    Call call(*this, other);
    call.target().Info_set(there, key, value);
  }
}

void LevelSwitch::record_Info_delete(MPI_Info info, const char* key)
{
  auto& entries = info_entries_[value_of(info)];
  entries.erase(std::remove_if(entries.begin(), entries.end(), [key](const auto& entry) { return entry.first == key; }),
                entries.end());
  int other = 1 - called_;
  if (value_of(info) >= kPredefinedLimit && present_in(value_of(info), other)) {
    MPI_Info there = to_called(info, other);
    Call call(*this, other);
    call.target().Info_delete(there, key);
  }
}

int LevelSwitch::Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
  Call call(*this, current_);
  int result = call.target().Comm_set_errhandler(to_called(comm, current_), to_called(errhandler, current_));
  if (result == MPI_SUCCESS)
    errhandlers_[value_of(comm)] = value_of(errhandler);
  return result;
}

void LevelSwitch::apply_errhandlers(int back_end)
{
  for (const auto& [comm, errhandler] : errhandlers_)
    if (present_in(comm, back_end)) {
      MPI_Comm there    = to_called(reinterpret_cast<MPI_Comm>(comm), back_end);
      MPI_Errhandler eh = to_called(reinterpret_cast<MPI_Errhandler>(errhandler), back_end);
      Call call(*this, back_end);
      call.target().Comm_set_errhandler(there, eh);
    }
}

// --- Keyvals and attributes ------------------------------------------------------------------------

int LevelSwitch::create_keyval(AttributeKind kind, void* copy, void* remove, int* keyval, void* extra_state)
{
  if (keyval == nullptr)
    return MPI_ERR_ARG;
  *keyval           = next_keyval_++;
  keyvals_[*keyval] = {kind, copy, remove, extra_state, false};
  return MPI_SUCCESS;
}

const LevelSwitch::Keyval* LevelSwitch::user_keyval(AttributeKind kind, int keyval) const
{
  auto it = keyvals_.find(keyval);
  return it != keyvals_.end() && it->second.kind == kind ? &it->second : nullptr;
}

int LevelSwitch::free_keyval(AttributeKind kind, int* keyval)
{
  if (keyval == nullptr || user_keyval(kind, *keyval) == nullptr)
    return MPI_ERR_KEYVAL;
  bool used = false;
  for (const auto& [key, value] : attributes_)
    used = used || key.second == *keyval;
  if (used)
    keyvals_[*keyval].freed = true; // kept until its last attribute is deleted
  else
    keyvals_.erase(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int LevelSwitch::call_delete(const Keyval& keyval, uintptr_t object, int key, void* value) const
{
  if (keyval.remove == nullptr)
    return MPI_SUCCESS;
  switch (keyval.kind) {
  case AttributeKind::Comm:
    return reinterpret_cast<MPI_Comm_delete_attr_function*>(keyval.remove)(reinterpret_cast<MPI_Comm>(object), key,
                                                                           value, keyval.extra_state);
  case AttributeKind::Type:
    return reinterpret_cast<MPI_Type_delete_attr_function*>(keyval.remove)(reinterpret_cast<MPI_Datatype>(object), key,
                                                                           value, keyval.extra_state);
  case AttributeKind::Win:
    return reinterpret_cast<MPI_Win_delete_attr_function*>(keyval.remove)(reinterpret_cast<MPI_Win>(object), key, value,
                                                                          keyval.extra_state);
  }
  return MPI_SUCCESS;
}

int LevelSwitch::set_attribute(AttributeKind kind, uintptr_t object, int keyval, void* value)
{
  const Keyval* key = user_keyval(kind, keyval);
  if (key == nullptr || key->freed)
    return MPI_ERR_KEYVAL;
  auto it = attributes_.find({object, keyval});
  if (it != attributes_.end()) { // replaced: the old value is deleted first
    int code = call_delete(*key, object, keyval, it->second);
    if (code != MPI_SUCCESS)
      return code;
  }
  attributes_[{object, keyval}] = value;
  return MPI_SUCCESS;
}

int LevelSwitch::get_attribute(uintptr_t object, int keyval, void* value, int* flag) const
{
  if (value == nullptr || flag == nullptr)
    return MPI_ERR_ARG;
  auto it = attributes_.find({object, keyval});
  *flag   = it != attributes_.end() ? 1 : 0;
  if (*flag)
    *static_cast<void**>(value) = it->second;
  return MPI_SUCCESS;
}

int LevelSwitch::delete_attribute(AttributeKind kind, uintptr_t object, int keyval)
{
  const Keyval* key = user_keyval(kind, keyval);
  if (key == nullptr)
    return MPI_ERR_KEYVAL;
  auto it = attributes_.find({object, keyval});
  if (it == attributes_.end())
    return MPI_ERR_ARG;
  int code = call_delete(*key, object, keyval, it->second);
  if (code != MPI_SUCCESS)
    return code;
  attributes_.erase(it);
  if (key->freed) {
    bool used = false;
    for (const auto& [entry, value] : attributes_)
      used = used || entry.second == keyval;
    if (not used)
      keyvals_.erase(keyval);
  }
  return MPI_SUCCESS;
}

void LevelSwitch::copy_attributes(AttributeKind kind, uintptr_t from, uintptr_t to)
{
  for (const auto& [keyval, value] : copied_attributes(kind, from))
    attributes_[{to, keyval}] = value;
}

std::vector<std::pair<int, void*>> LevelSwitch::copied_attributes(AttributeKind kind, uintptr_t from)
{
  std::vector<std::pair<int, void*>> copied;
  for (auto it = attributes_.lower_bound({from, INT_MIN}); it != attributes_.end() && it->first.first == from; ++it) {
    const Keyval* key = user_keyval(kind, it->first.second);
    if (key == nullptr || key->copy == nullptr)
      continue; // MPI_*_NULL_COPY_FN
    void* out = nullptr;
    int flag  = 0;
    if (key->copy == reinterpret_cast<void*>(1)) { // MPI_*_DUP_FN
      out  = it->second;
      flag = 1;
    } else if (kind == AttributeKind::Comm) {
      reinterpret_cast<MPI_Comm_copy_attr_function*>(key->copy)(reinterpret_cast<MPI_Comm>(from), it->first.second,
                                                                key->extra_state, it->second, &out, &flag);
    } else if (kind == AttributeKind::Type) {
      reinterpret_cast<MPI_Type_copy_attr_function*>(key->copy)(reinterpret_cast<MPI_Datatype>(from), it->first.second,
                                                                key->extra_state, it->second, &out, &flag);
    }
    if (flag)
      copied.emplace_back(it->first.second, out);
  }
  return copied;
}

int LevelSwitch::Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                               void* extra_state)
{
  return create_keyval(AttributeKind::Comm, reinterpret_cast<void*>(copy_fn), reinterpret_cast<void*>(delete_fn),
                       keyval, extra_state);
}

int LevelSwitch::Keyval_free(int* keyval)
{
  return free_keyval(AttributeKind::Comm, keyval);
}

int LevelSwitch::Attr_put(MPI_Comm comm, int keyval, void* attribute_val)
{
  return Comm_set_attr(comm, keyval, attribute_val);
}

int LevelSwitch::Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag)
{
  return Comm_get_attr(comm, keyval, attribute_val, flag);
}

int LevelSwitch::Attr_delete(MPI_Comm comm, int keyval)
{
  return Comm_delete_attr(comm, keyval);
}

int LevelSwitch::Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                                    MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                                    void* extra_state)
{
  return create_keyval(AttributeKind::Comm, reinterpret_cast<void*>(comm_copy_attr_fn),
                       reinterpret_cast<void*>(comm_delete_attr_fn), comm_keyval, extra_state);
}

int LevelSwitch::Comm_free_keyval(int* comm_keyval)
{
  return free_keyval(AttributeKind::Comm, comm_keyval);
}

int LevelSwitch::Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val)
{
  if (keyvals_.count(comm_keyval) != 0)
    return set_attribute(AttributeKind::Comm, value_of(comm), comm_keyval, attribute_val);
  Call call(*this, current_);
  return call.target().Comm_set_attr(to_called(comm, current_), comm_keyval, attribute_val);
}

int LevelSwitch::Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag)
{
  if (keyvals_.count(comm_keyval) != 0)
    return get_attribute(value_of(comm), comm_keyval, attribute_val, flag);
  Call call(*this, current_); // a predefined attribute: the current level's value
  return call.target().Comm_get_attr(to_called(comm, current_), comm_keyval, attribute_val, flag);
}

int LevelSwitch::Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
  if (keyvals_.count(comm_keyval) != 0)
    return delete_attribute(AttributeKind::Comm, value_of(comm), comm_keyval);
  Call call(*this, current_);
  return call.target().Comm_delete_attr(to_called(comm, current_), comm_keyval);
}

int LevelSwitch::Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                                    MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                                    void* extra_state)
{
  return create_keyval(AttributeKind::Type, reinterpret_cast<void*>(type_copy_attr_fn),
                       reinterpret_cast<void*>(type_delete_attr_fn), type_keyval, extra_state);
}

int LevelSwitch::Type_free_keyval(int* type_keyval)
{
  return free_keyval(AttributeKind::Type, type_keyval);
}

int LevelSwitch::Type_set_attr(MPI_Datatype type, int type_keyval, void* attr_val)
{
  if (keyvals_.count(type_keyval) != 0)
    return set_attribute(AttributeKind::Type, value_of(type), type_keyval, attr_val);
  Call call(*this, current_);
  return call.target().Type_set_attr(to_called(type, current_), type_keyval, attr_val);
}

int LevelSwitch::Type_get_attr(MPI_Datatype type, int type_keyval, void* attribute_val, int* flag)
{
  if (keyvals_.count(type_keyval) != 0)
    return get_attribute(value_of(type), type_keyval, attribute_val, flag);
  Call call(*this, current_);
  return call.target().Type_get_attr(to_called(type, current_), type_keyval, attribute_val, flag);
}

int LevelSwitch::Type_delete_attr(MPI_Datatype type, int type_keyval)
{
  if (keyvals_.count(type_keyval) != 0)
    return delete_attribute(AttributeKind::Type, value_of(type), type_keyval);
  Call call(*this, current_);
  return call.target().Type_delete_attr(to_called(type, current_), type_keyval);
}

int LevelSwitch::Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                                   MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval, void* extra_state)
{
  return create_keyval(AttributeKind::Win, reinterpret_cast<void*>(win_copy_attr_fn),
                       reinterpret_cast<void*>(win_delete_attr_fn), win_keyval, extra_state);
}

int LevelSwitch::Win_free_keyval(int* win_keyval)
{
  return free_keyval(AttributeKind::Win, win_keyval);
}

int LevelSwitch::Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val)
{
  if (keyvals_.count(win_keyval) != 0)
    return set_attribute(AttributeKind::Win, value_of(win), win_keyval, attribute_val);
  Call call(*this, owner_of_handle(win));
  return call.target().Win_set_attr(to_called(win, call.back_end()), win_keyval, attribute_val);
}

int LevelSwitch::Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag)
{
  if (keyvals_.count(win_keyval) != 0)
    return get_attribute(value_of(win), win_keyval, attribute_val, flag);
  Call call(*this, owner_of_handle(win)); // MPI_WIN_BASE, MPI_WIN_SIZE, ...: the window's back end
  return call.target().Win_get_attr(to_called(win, call.back_end()), win_keyval, attribute_val, flag);
}

int LevelSwitch::Win_delete_attr(MPI_Win win, int win_keyval)
{
  if (keyvals_.count(win_keyval) != 0)
    return delete_attribute(AttributeKind::Win, value_of(win), win_keyval);
  Call call(*this, owner_of_handle(win));
  return call.target().Win_delete_attr(to_called(win, call.back_end()), win_keyval);
}

int LevelSwitch::init_back_end(int back_end, int* argc, char*** argv)
{
  Call call(*this, back_end);
  int result = MPI_SUCCESS;
  if (thread_init_) {
    int provided = MPI_THREAD_SINGLE;
    result       = call.target().Init_thread(argc, argv, thread_required_, &provided);
  } else {
    result = call.target().Init(argc, argv);
  }
  if (result == MPI_SUCCESS)
    slots_[back_end].initialized = true;
  return result;
}

int LevelSwitch::switch_to(int back_end)
{
  if (back_end == current_)
    return MPI_SUCCESS;
  if (finalized_)
    return MPI_SUCCESS;
  if (not initialized_) { // before MPI_Init: MPI starts at this level
    current_ = back_end;
    return MPI_SUCCESS;
  }
  int result = MPI_SUCCESS;
  if (not slots_[back_end].initialized) {
    result = init_back_end(back_end, nullptr, nullptr);
    if (result != MPI_SUCCESS)
      return result;
  }
  current_ = back_end; // messages left at the other level are found by receive_route (Level)
  // Communicators made collectively in the other back end, re-created here in creation order (every
  // rank crosses this boundary, so each constructor is called by all the ranks that made it). Those
  // freed (MPI_Comm_free is collective: on every rank) are left out, but for the parents of those
  // re-created, made again for them and freed after. A rank left out of one (MPI_COMM_NULL) does what
  // its members do.
  ++boundary_;
  std::vector<size_t> scaffolds; // records of freed communicators re-made as parents, freed at the end
  for (size_t i = 0; i < collectives_.size(); ++i) {
    Collective& made = collectives_[i];
    if (made.owner == back_end || (made.replayed && made.replayed_at < boundary_))
      continue;
    if (not replays(i, back_end, boundary_))
      continue;
    // A freed parent is not found by its value (handed out again, or forgotten): the replay is given its copy.
    long parent = made.parent_index;
    if (parent >= 0 && collectives_[static_cast<size_t>(parent)].freed) {
      const Collective& from = collectives_[static_cast<size_t>(parent)];
      uintptr_t copy         = from.owner == back_end ? from.made : from.mirror;
      if (copy == 0 || from.freed_at == back_end)
        continue; // gone at this level too: using the child there fails, naming it
      replay_parent_ = {made.parent, copy};
    }
    made.replayed    = true;
    made.replayed_at = boundary_;
    uintptr_t mirror = made.make(*this, back_end);
    replay_parent_   = {0, 0};
    made.mirror      = mirror;
    if (made.freed) {
      if (mirror >= kPredefinedLimit)
        scaffolds.push_back(i);
      continue;
    }
    if (made.made != 0 && mirror >= kPredefinedLimit) {
      handles_[made.made].mirror = mirror;
      canonical_[mirror]         = made.made;
      auto on                    = followed_.find(made.made);
      if (on != followed_.end() && world_ranks(reinterpret_cast<MPI_Comm>(mirror), back_end, true) != on->second.world)
        fail(rank(), on->second.name() + " numbers its ranks differently at the " + back_end_name(back_end) +
                         " level than at the " + back_end_name(made.owner) +
                         " level, where it was made (a topology constructor called with reorder=1 that "
                         "reordered): bxisim cannot make the same communicator there; pass reorder=0 "
                         "(MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create(_adjacent)) or use it at one "
                         "level only.");
    }
  }
  for (auto scaffold = scaffolds.rbegin(); scaffold != scaffolds.rend(); ++scaffold) {
    Collective& record = collectives_[*scaffold];
    auto comm          = reinterpret_cast<MPI_Comm>(record.mirror);
    record.mirror      = 0; // gone: no later record was made from it (it was freed before this boundary)
    Call call(*this, back_end);
    call.target().Comm_free(&comm);
  }
  apply_errhandlers(back_end);
  return result;
}

int LevelSwitch::Init(int* argc, char*** argv)
{
  return init_back_end(current_, argc, argv);
}

int LevelSwitch::Init_thread(int* argc, char*** argv, int required, int* provided)
{
  // The run's SMPI parts run one actor per rank (SMPI 3.32): MPI_THREAD_SERIALIZED at most, asked of both back ends
  // so that they grant the same level whichever starts first.
  thread_init_     = true;
  thread_required_ = required == MPI_THREAD_MULTIPLE ? MPI_THREAD_SERIALIZED : required;
  Call call(*this, current_);
  int result = call.target().Init_thread(argc, argv, thread_required_, provided);
  if (result == MPI_SUCCESS)
    slots_[current_].initialized = true;
  return result;
}

int LevelSwitch::Finalize()
{
  int result = MPI_SUCCESS;
  for (int back_end : {1 - current_, current_})
    if (slots_[back_end].initialized && not slots_[back_end].finalized) {
      Call call(*this, back_end);
      if (MPI_Request& idle = slots_[back_end].idle_request; idle != MPI_REQUEST_NULL) {
        call.target().Grequest_complete(idle);
        call.target().Wait(&idle, MPI_STATUS_IGNORE);
      }
      int code = call.target().Finalize();
      if (code != MPI_SUCCESS && result == MPI_SUCCESS)
        result = code;
      slots_[back_end].finalized = true;
    }
  return result;
}

int LevelSwitch::Initialized(int* flag)
{
  if (flag == nullptr)
    return MPI_ERR_ARG;
  *flag = initialized_ ? 1 : 0;
  return MPI_SUCCESS;
}

int LevelSwitch::Finalized(int* flag)
{
  if (flag == nullptr)
    return MPI_ERR_ARG;
  *flag = finalized_ ? 1 : 0;
  return MPI_SUCCESS;
}

int LevelSwitch::Query_thread(int* provided)
{
  Call call(*this, current_);
  return call.target().Query_thread(provided);
}

int LevelSwitch::Is_thread_main(int* flag)
{
  Call call(*this, current_);
  return call.target().Is_thread_main(flag);
}

bool LevelSwitch::has_persistent(int count, const MPI_Request* requests) const
{
  if (persistent_.empty())
    return false;
  for (int i = 0; i < count; ++i)
    if (is_persistent(requests[i]))
      return true;
  return false;
}

std::vector<MPI_Request> LevelSwitch::unwrap(int count, MPI_Request* requests)
{
  std::vector<MPI_Request> program(requests, requests + count);
  for (int i = 0; i < count; ++i)
    if (is_persistent(requests[i]))
      requests[i] = persistent_.at(reinterpret_cast<uintptr_t>(requests[i]))->active;
  return program;
}

void LevelSwitch::rewrap(int count, MPI_Request* requests, const std::vector<MPI_Request>& program)
{
  for (int i = 0; i < count; ++i)
    if (is_persistent(program[static_cast<size_t>(i)])) {
      persistent_.at(reinterpret_cast<uintptr_t>(program[static_cast<size_t>(i)]))->active = requests[i];
      requests[i] = program[static_cast<size_t>(i)];
    }
}

int LevelSwitch::make_persistent(PersistentKind kind, const void* buf, int count, MPI_Datatype datatype, int peer,
                                 int tag, MPI_Comm comm, MPI_Request* request)
{
  if (request == nullptr)
    return MPI_ERR_ARG;
  if (count < 0)
    return MPI_ERR_COUNT;
  if (comm == MPI_COMM_NULL)
    return MPI_ERR_COMM;
  if (datatype == MPI_DATATYPE_NULL)
    return MPI_ERR_TYPE;
  auto made = std::make_unique<Persistent>(Persistent{kind, const_cast<void*>(buf), count, datatype, peer, tag, comm});
  auto handle = reinterpret_cast<uintptr_t>(made.get());
  persistent_.emplace(handle, std::move(made));
  *request = reinterpret_cast<MPI_Request>(handle);
  return MPI_SUCCESS;
}

int LevelSwitch::Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request* request)
{
  return make_persistent(PersistentKind::Send, buf, count, datatype, dest, tag, comm, request);
}

int LevelSwitch::Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                            MPI_Request* request)
{
  return make_persistent(PersistentKind::Bsend, buf, count, datatype, dest, tag, comm, request);
}

int LevelSwitch::Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                            MPI_Request* request)
{
  return make_persistent(PersistentKind::Ssend, buf, count, datatype, dest, tag, comm, request);
}

int LevelSwitch::Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                            MPI_Request* request)
{
  return make_persistent(PersistentKind::Rsend, buf, count, datatype, dest, tag, comm, request);
}

int LevelSwitch::Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                           MPI_Request* request)
{
  return make_persistent(PersistentKind::Recv, buf, count, datatype, source, tag, comm, request);
}

int LevelSwitch::persistent_start(MPI_Request* request)
{
  Persistent& p = *persistent_.at(reinterpret_cast<uintptr_t>(*request));
  if (p.active != MPI_REQUEST_NULL)
    return MPI_ERR_REQUEST; // started again before it completed
  // The generated Isend/Irecv route it (forwarded to a receive of the other level, or received where
  // its message waits) and count it.
  switch (p.kind) {
  case PersistentKind::Send:
    return Isend(p.buf, p.count, p.datatype, p.peer, p.tag, p.comm, &p.active);
  case PersistentKind::Bsend:
    return Ibsend(p.buf, p.count, p.datatype, p.peer, p.tag, p.comm, &p.active);
  case PersistentKind::Ssend:
    return Issend(p.buf, p.count, p.datatype, p.peer, p.tag, p.comm, &p.active);
  case PersistentKind::Rsend:
    return Irsend(p.buf, p.count, p.datatype, p.peer, p.tag, p.comm, &p.active);
  case PersistentKind::Recv:
    return Irecv(p.buf, p.count, p.datatype, p.peer, p.tag, p.comm, &p.active);
  }
  return MPI_ERR_INTERN;
}

int LevelSwitch::persistent_wait(MPI_Request* request, MPI_Status* status)
{
  Persistent& p = *persistent_.at(reinterpret_cast<uintptr_t>(*request));
  if (p.active == MPI_REQUEST_NULL) {
    set_empty_status(status); // an inactive persistent request's
    return MPI_SUCCESS;
  }
  return Wait(&p.active, status);
}

int LevelSwitch::persistent_test(MPI_Request* request, int* flag, MPI_Status* status)
{
  Persistent& p = *persistent_.at(reinterpret_cast<uintptr_t>(*request));
  if (p.active == MPI_REQUEST_NULL) {
    if (flag != nullptr)
      *flag = 1;
    set_empty_status(status); // an inactive persistent request's
    return MPI_SUCCESS;
  }
  return Test(&p.active, flag, status);
}

int LevelSwitch::persistent_free(MPI_Request* request)
{
  auto it    = persistent_.find(reinterpret_cast<uintptr_t>(*request));
  int result = MPI_SUCCESS;
  if (it->second->active != MPI_REQUEST_NULL) // it completes on its own (MPI_Request_free of an active request)
    result = Request_free(&it->second->active);
  persistent_.erase(it);
  *request = MPI_REQUEST_NULL;
  return result;
}

int LevelSwitch::persistent_cancel(MPI_Request* request)
{
  Persistent& p = *persistent_.at(reinterpret_cast<uintptr_t>(*request));
  return p.active == MPI_REQUEST_NULL ? MPI_SUCCESS : Cancel(&p.active);
}

int LevelSwitch::persistent_get_status(MPI_Request request, int* flag, MPI_Status* status)
{
  Persistent& p = *persistent_.at(reinterpret_cast<uintptr_t>(request));
  if (p.active == MPI_REQUEST_NULL) {
    if (flag != nullptr)
      *flag = 1;
    set_empty_status(status); // an inactive persistent request's
    return MPI_SUCCESS;
  }
  return Request_get_status(p.active, flag, status);
}

int LevelSwitch::matched_probe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status)
{
  if (message == nullptr)
    return MPI_ERR_ARG;
  int route = probe_route(source, tag, comm);
  int found = 1;
  Call call(*this, route);
  int result = flag == nullptr ? call.target().Mprobe(source, tag, to_called(comm, route), message, status)
                               : call.target().Improbe(source, tag, to_called(comm, route), &found, message, status);
  if (result == MPI_SUCCESS && found)
    note_routed(*message, route);
  if (flag != nullptr)
    *flag = found;
  if (result == MPI_SUCCESS && found)
    note_matched_probe(source, tag, comm, route);
  return result;
}

int LevelSwitch::Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status)
{
  return matched_probe(source, tag, comm, nullptr, message, status);
}

int LevelSwitch::Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status)
{
  if (flag == nullptr)
    return MPI_ERR_ARG;
  return matched_probe(source, tag, comm, flag, message, status);
}

int LevelSwitch::Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status)
{
  if (message == nullptr)
    return MPI_ERR_ARG;
  int route          = owner_of(*message);
  MPI_Message before = *message;
  Call call(*this, route);
  int result = call.target().Mrecv(buf, count, to_called(datatype, route), message, status);
  if (result == MPI_SUCCESS)
    after_routed(before, *message);
  return result;
}

int LevelSwitch::Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Request* request)
{
  if (message == nullptr || request == nullptr)
    return MPI_ERR_ARG;
  int route          = owner_of(*message);
  MPI_Message before = *message;
  Call call(*this, route);
  int result = call.target().Imrecv(buf, count, to_called(datatype, route), message, request);
  if (result == MPI_SUCCESS) {
    after_routed(before, *message);
    note_routed(*request, route);
  }
  return result;
}

int LevelSwitch::Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                  int recvtag, MPI_Comm comm, MPI_Status* status)
{
  int route   = receive_route(source, recvtag, comm);
  int sent_at = send_route(dest, sendtag, comm, "MPI_Sendrecv_replace");
  if (route == sent_at) {
    Call call(*this, route);
    return call.target().Sendrecv_replace(buf, count, to_called(datatype, route), dest, sendtag, source, recvtag,
                                          to_called(comm, route), status);
  }
  // Send in one back end and receive in the other: the message sent is a copy of the buffer's data.
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  {
    Call call(*this, sent_at);
    MPI_Datatype type = to_called(datatype, sent_at);
    int code          = call.target().Type_get_extent(type, &lb, &extent);
    if (code == MPI_SUCCESS)
      code = call.target().Type_get_true_extent(type, &true_lb, &true_extent);
    if (code != MPI_SUCCESS)
      return code;
  }
  MPI_Aint span = count > 0 ? (count - 1) * extent + true_extent : 0;
  std::vector<char> copy(static_cast<size_t>(span > 0 ? span : 0) + 1);
  if (span > 0)
    std::memcpy(copy.data(), static_cast<char*>(buf) + true_lb, static_cast<size_t>(span));
  void* from       = copy.data() - true_lb;
  MPI_Request sent = MPI_REQUEST_NULL;
  int result       = MPI_SUCCESS;
  {
    Call call(*this, sent_at);
    result =
        call.target().Isend(from, count, to_called(datatype, sent_at), dest, sendtag, to_called(comm, sent_at), &sent);
  }
  if (result != MPI_SUCCESS)
    return result;
  {
    Call call(*this, route);
    result =
        call.target().Recv(buf, count, to_called(datatype, route), source, recvtag, to_called(comm, route), status);
  }
  Call call(*this, sent_at);
  int waited = call.target().Wait(&sent, MPI_STATUS_IGNORE);
  return result != MPI_SUCCESS ? result : waited;
}

bool LevelSwitch::one_owner(int count, const MPI_Request* requests, int& back_end) const
{
  back_end = -1;
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL)
      continue;
    int owner = owner_of(requests[i]);
    if (back_end >= 0 && owner != back_end)
      return false;
    back_end = owner;
  }
  if (back_end < 0)
    back_end = current_;
  return true;
}

namespace
{
MPI_Status* status_at(MPI_Status* statuses, int i)
{
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}
} // namespace

int LevelSwitch::Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                          void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                          MPI_Status* status)
{
  int route   = receive_route(source, recvtag, comm);
  int sent_at = send_route(dest, sendtag, comm, "MPI_Sendrecv");
  if (route == sent_at) {
    Call call(*this, route);
    return call.target().Sendrecv(sendbuf, sendcount, to_called(sendtype, route), dest, sendtag, recvbuf, recvcount,
                                  to_called(recvtype, route), source, recvtag, to_called(comm, route), status);
  }
  // The receive takes a message sent at the other level before the boundary, or the send goes to a
  // receive posted there: send in one back end, receive in the other.
  MPI_Request sent = MPI_REQUEST_NULL;
  int result       = MPI_SUCCESS;
  {
    Call call(*this, sent_at);
    result = call.target().Isend(sendbuf, sendcount, to_called(sendtype, sent_at), dest, sendtag,
                                 to_called(comm, sent_at), &sent);
  }
  if (result != MPI_SUCCESS)
    return result;
  {
    Call call(*this, route);
    result = call.target().Recv(recvbuf, recvcount, to_called(recvtype, route), source, recvtag, to_called(comm, route),
                                status);
  }
  Call call(*this, sent_at);
  int waited = call.target().Wait(&sent, MPI_STATUS_IGNORE);
  return result != MPI_SUCCESS ? result : waited;
}

int LevelSwitch::Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
  if (count > 0 && array_of_requests != nullptr && has_persistent(count, array_of_requests)) {
    std::vector<MPI_Request> program = unwrap(count, array_of_requests);
    int result                       = Waitall(count, array_of_requests, array_of_statuses);
    rewrap(count, array_of_requests, program);
    return result;
  }
  int back_end = current_;
  if (count < 0 || (count > 0 && array_of_requests == nullptr))
    return MPI_ERR_ARG;
  wait_detail_.clear();
  for (int i = 0; i < count; ++i)
    note_wait(array_of_requests[i], "MPI_Waitall");
  std::vector<MPI_Request> before(array_of_requests, array_of_requests + count);
  int result = MPI_SUCCESS;
  if (one_owner(count, array_of_requests, back_end)) {
    Call call(*this, back_end);
    result = call.target().Waitall(count, array_of_requests, array_of_statuses);
  } else {
    // Requests of both back ends: each completes in its own, one after the other (each completes on
    // its own, so the order changes only when the rank notices completions).
    bool error = false;
    for (int i = 0; i < count; ++i) {
      if (array_of_requests[i] == MPI_REQUEST_NULL)
        continue;
      Call call(*this, owner_of(array_of_requests[i]));
      int code = call.target().Wait(&array_of_requests[i], status_at(array_of_statuses, i));
      if (code != MPI_SUCCESS) {
        error = true;
        if (array_of_statuses != MPI_STATUSES_IGNORE)
          array_of_statuses[i].MPI_ERROR = code;
      } else if (array_of_statuses != MPI_STATUSES_IGNORE) {
        array_of_statuses[i].MPI_ERROR = MPI_SUCCESS;
      }
    }
    result = error ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
  }
  for (int i = 0; i < count; ++i)
    after_routed(before[static_cast<size_t>(i)], array_of_requests[i]);
  return result;
}

int LevelSwitch::Testall(int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[])
{
  if (count > 0 && array_of_requests != nullptr && has_persistent(count, array_of_requests)) {
    std::vector<MPI_Request> program = unwrap(count, array_of_requests);
    int result                       = Testall(count, array_of_requests, flag, array_of_statuses);
    rewrap(count, array_of_requests, program);
    return result;
  }
  int back_end = current_;
  if (count < 0 || (count > 0 && array_of_requests == nullptr) || flag == nullptr)
    return MPI_ERR_ARG;
  if (one_owner(count, array_of_requests, back_end)) {
    std::vector<MPI_Request> before(array_of_requests, array_of_requests + count);
    int result = [&] {
      Call call(*this, back_end);
      return call.target().Testall(count, array_of_requests, flag, array_of_statuses);
    }();
    for (int i = 0; i < count; ++i)
      after_routed(before[static_cast<size_t>(i)], array_of_requests[i]);
    if (result == MPI_SUCCESS)
      after_poll(back_end, *flag != 0);
    return result;
  }
  // Complete none unless all are complete: ask each its state first.
  *flag       = 1;
  bool polled = false; // a request of the current level was asked (its back end polled)
  for (int i = 0; i < count && *flag; ++i) {
    if (array_of_requests[i] == MPI_REQUEST_NULL)
      continue;
    int done = 0;
    Call call(*this, owner_of(array_of_requests[i]));
    int code = call.target().Request_get_status(array_of_requests[i], &done, MPI_STATUS_IGNORE);
    if (code != MPI_SUCCESS)
      return code;
    polled = polled || call.back_end() == current_;
    *flag  = done;
  }
  if (not *flag) {
    after_poll(polled ? current_ : 1 - current_, false);
    return MPI_SUCCESS;
  }
  return Waitall(count, array_of_requests, array_of_statuses);
}

int LevelSwitch::Testany(int count, MPI_Request array_of_requests[], int* index, int* flag, MPI_Status* status)
{
  if (count > 0 && array_of_requests != nullptr && has_persistent(count, array_of_requests)) {
    std::vector<MPI_Request> program = unwrap(count, array_of_requests);
    int result                       = Testany(count, array_of_requests, index, flag, status);
    rewrap(count, array_of_requests, program);
    return result;
  }
  int back_end = current_;
  if (count < 0 || (count > 0 && array_of_requests == nullptr) || flag == nullptr || index == nullptr)
    return MPI_ERR_ARG;
  if (one_owner(count, array_of_requests, back_end)) {
    std::vector<MPI_Request> before(array_of_requests, array_of_requests + count);
    int result = [&] {
      Call call(*this, back_end);
      return call.target().Testany(count, array_of_requests, index, flag, status);
    }();
    for (int i = 0; i < count; ++i)
      after_routed(before[static_cast<size_t>(i)], array_of_requests[i]);
    if (result == MPI_SUCCESS)
      after_poll(back_end, *flag != 0);
    return result;
  }
  *flag       = 0;
  *index      = MPI_UNDEFINED;
  bool polled = false; // a request of the current level was tested (its back end polled)
  for (int i = 0; i < count; ++i) {
    if (array_of_requests[i] == MPI_REQUEST_NULL)
      continue;
    MPI_Request before = array_of_requests[i];
    int done           = 0;
    Call call(*this, owner_of(before));
    int code = call.target().Test(&array_of_requests[i], &done, status);
    after_routed(before, array_of_requests[i]);
    if (code != MPI_SUCCESS)
      return code;
    polled = polled || call.back_end() == current_;
    if (done) {
      *flag  = 1;
      *index = i;
      return MPI_SUCCESS;
    }
  }
  *flag = 1; // no active request: as MPI says
  for (int i = 0; i < count; ++i)
    if (array_of_requests[i] != MPI_REQUEST_NULL)
      *flag = 0;
  after_poll(polled ? current_ : 1 - current_, *flag != 0);
  return MPI_SUCCESS;
}

int LevelSwitch::Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status)
{
  if (count > 0 && array_of_requests != nullptr && has_persistent(count, array_of_requests)) {
    std::vector<MPI_Request> program = unwrap(count, array_of_requests);
    int result                       = Waitany(count, array_of_requests, index, status);
    rewrap(count, array_of_requests, program);
    return result;
  }
  int back_end = current_;
  if (count < 0 || (count > 0 && array_of_requests == nullptr) || index == nullptr)
    return MPI_ERR_ARG;
  if (count == 1)
    check_wait(array_of_requests[0], "MPI_Waitany");
  if (one_owner(count, array_of_requests, back_end)) {
    std::vector<MPI_Request> before(array_of_requests, array_of_requests + count);
    Call call(*this, back_end);
    int result = call.target().Waitany(count, array_of_requests, index, status);
    for (int i = 0; i < count; ++i)
      after_routed(before[static_cast<size_t>(i)], array_of_requests[i]);
    return result;
  }
  // Requests of both back ends: test them in turn; each test advances simulated time (SMPI's
  // smpi/test, OpenMPI's polling delay), so the loop ends when one completes.
  for (;;) {
    int flag   = 0;
    int result = Testany(count, array_of_requests, index, &flag, status);
    if (result != MPI_SUCCESS || flag)
      return result;
  }
}

int LevelSwitch::Testsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                          MPI_Status array_of_statuses[])
{
  if (incount > 0 && array_of_requests != nullptr && has_persistent(incount, array_of_requests)) {
    std::vector<MPI_Request> program = unwrap(incount, array_of_requests);
    int result = Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    rewrap(incount, array_of_requests, program);
    return result;
  }
  int back_end = current_;
  if (incount < 0 || (incount > 0 && array_of_requests == nullptr) || outcount == nullptr)
    return MPI_ERR_ARG;
  if (one_owner(incount, array_of_requests, back_end)) {
    std::vector<MPI_Request> before(array_of_requests, array_of_requests + incount);
    int result = [&] {
      Call call(*this, back_end);
      return call.target().Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    }();
    for (int i = 0; i < incount; ++i)
      after_routed(before[static_cast<size_t>(i)], array_of_requests[i]);
    if (result == MPI_SUCCESS)
      after_poll(back_end, *outcount != 0);
    return result;
  }
  *outcount   = 0;
  bool active = false;
  bool polled = false; // a request of the current level was tested (its back end polled)
  for (int i = 0; i < incount; ++i) {
    if (array_of_requests[i] == MPI_REQUEST_NULL)
      continue;
    active             = true;
    MPI_Request before = array_of_requests[i];
    int done           = 0;
    Call call(*this, owner_of(before));
    int code = call.target().Test(&array_of_requests[i], &done, status_at(array_of_statuses, *outcount));
    after_routed(before, array_of_requests[i]);
    if (code != MPI_SUCCESS)
      return code;
    polled = polled || call.back_end() == current_;
    if (done)
      array_of_indices[(*outcount)++] = i;
  }
  if (not active)
    *outcount = MPI_UNDEFINED;
  after_poll(polled ? current_ : 1 - current_, *outcount != 0);
  return MPI_SUCCESS;
}

int LevelSwitch::Waitsome(int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                          MPI_Status array_of_statuses[])
{
  if (incount > 0 && array_of_requests != nullptr && has_persistent(incount, array_of_requests)) {
    std::vector<MPI_Request> program = unwrap(incount, array_of_requests);
    int result = Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    rewrap(incount, array_of_requests, program);
    return result;
  }
  int back_end = current_;
  if (incount < 0 || (incount > 0 && array_of_requests == nullptr) || outcount == nullptr)
    return MPI_ERR_ARG;
  if (one_owner(incount, array_of_requests, back_end)) {
    std::vector<MPI_Request> before(array_of_requests, array_of_requests + incount);
    Call call(*this, back_end);
    int result = call.target().Waitsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    for (int i = 0; i < incount; ++i)
      after_routed(before[static_cast<size_t>(i)], array_of_requests[i]);
    return result;
  }
  for (;;) {
    int result = Testsome(incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
    if (result != MPI_SUCCESS || *outcount != 0)
      return result;
  }
}

int LevelSwitch::Startall(int count, MPI_Request array_of_requests[])
{
  int back_end = current_;
  if (count < 0 || (count > 0 && array_of_requests == nullptr))
    return MPI_ERR_ARG;
  if (has_persistent(count, array_of_requests)) {
    for (int i = 0; i < count; ++i) {
      int code =
          is_persistent(array_of_requests[i]) ? persistent_start(&array_of_requests[i]) : Start(&array_of_requests[i]);
      if (code != MPI_SUCCESS)
        return code;
    }
    return MPI_SUCCESS;
  }
  if (one_owner(count, array_of_requests, back_end)) {
    Call call(*this, back_end);
    return call.target().Startall(count, array_of_requests);
  }
  for (int i = 0; i < count; ++i) {
    Call call(*this, owner_of(array_of_requests[i]));
    int code = call.target().Start(&array_of_requests[i]);
    if (code != MPI_SUCCESS)
      return code;
  }
  return MPI_SUCCESS;
}

int LevelSwitch::peer_count(MPI_Comm comm)
{
  int inter = 0;
  int size  = 0;
  Comm_test_inter(comm, &inter);
  if (inter)
    Comm_remote_size(comm, &size);
  else
    Comm_size(comm, &size);
  return size;
}

int LevelSwitch::in_degree(MPI_Comm comm)
{
  int topology = MPI_UNDEFINED;
  Topo_test(comm, &topology);
  int in       = 0;
  int out      = 0;
  int weighted = 0;
  if (topology == MPI_CART) {
    Cartdim_get(comm, &in);
    return 2 * in;
  }
  if (topology == MPI_GRAPH) {
    int me = 0;
    Comm_rank(comm, &me);
    Graph_neighbors_count(comm, me, &in);
    return in;
  }
  if (topology == MPI_DIST_GRAPH)
    Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  return in;
}

int LevelSwitch::out_degree(MPI_Comm comm)
{
  int topology = MPI_UNDEFINED;
  Topo_test(comm, &topology);
  if (topology != MPI_DIST_GRAPH)
    return in_degree(comm);
  int in       = 0;
  int out      = 0;
  int weighted = 0;
  Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  return out;
}

const BackEndCallbacks& LevelSwitch::called_callbacks() const
{
  int back_end = called_ >= 0 ? called_ : current_;
  return *dynamic_cast<const BackEndCallbacks*>(static_cast<RankMpi*>(slots_[back_end].dispatch));
}

MPI_Datatype LevelSwitch::callback_datatype(void* handle) const
{
  MPI_Datatype value = called_callbacks().callback_datatype(handle);
  auto it            = canonical_.find(reinterpret_cast<uintptr_t>(value));
  return it != canonical_.end() ? reinterpret_cast<MPI_Datatype>(it->second) : value;
}

MPI_Comm LevelSwitch::callback_comm(void* handle) const
{
  MPI_Comm value = called_callbacks().callback_comm(handle);
  auto it        = canonical_.find(reinterpret_cast<uintptr_t>(value));
  return it != canonical_.end() ? reinterpret_cast<MPI_Comm>(it->second) : value;
}

MPI_Win LevelSwitch::callback_win(void* handle) const
{
  return called_callbacks().callback_win(handle);
}

MPI_File LevelSwitch::callback_file(void* handle) const
{
  return called_callbacks().callback_file(handle);
}

int LevelSwitch::callback_errcode(int code) const
{
  return called_callbacks().callback_errcode(code);
}

int LevelSwitch::callback_to_be_errcode(int code) const
{
  return called_callbacks().callback_to_be_errcode(code);
}

int LevelSwitch::callback_keyval(int keyval) const
{
  return called_callbacks().callback_keyval(keyval);
}

void LevelSwitch::callback_to_be_status(const MPI_Status* status, void* be_status) const
{
  called_callbacks().callback_to_be_status(status, be_status);
}

} // namespace bxisim::mw
