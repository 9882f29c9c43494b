// Inter-communicators at the smpi level (MPI-3.1 6.6), which SMPI 3.32 lacks (MPICH's test utilities make them in
// every communicator loop; the HLRS suite makes them at start).
//
// An inter-communicator is an SMPI communicator of both groups, the group with the lowest MPI_COMM_WORLD rank
// first (its handle, on which its point-to-point messages travel, a remote rank r being the bridge rank
// remote_in_bridge[r]), a second one of the same ranks for the collectives below, and one of the local group.
// SMPI's MPI_Comm_create makes a communicator among its members only, so the two groups make theirs without the
// rest of MPI_COMM_WORLD. Collectives are MPI's inter-communicator ones, written with SMPI's point-to-point calls
// and the groups' own collectives (the root group's root sends or receives for both groups through the other
// group's rank 0, or each rank exchanges with every remote rank). Nonblocking collectives on them run when called
// and hand out a completed request. Calls this file does not carry on an inter-communicator fail with a message.

#include "SmpiRank.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace bxisim::mw
{

namespace
{
/** A rank of the remote group as a rank of the bridge (SMPI's special values kept). */
int to_bridge(const std::vector<int>& remote_in_bridge, int rank)
{
  if (rank == MPI_PROC_NULL)
    return SmpiAbi::kSmpiProcNull;
  if (rank == MPI_ANY_SOURCE)
    return SmpiAbi::kSmpiAnySource;
  if (rank < 0 || static_cast<size_t>(rank) >= remote_in_bridge.size())
    return SmpiAbi::kSmpiUndefined; // SMPI refuses it: MPI_ERR_RANK
  return remote_in_bridge[static_cast<size_t>(rank)];
}

const char* at(const void* buffer, MPI_Aint bytes)
{
  return static_cast<const char*>(buffer) + bytes;
}
} // namespace

void SmpiAbi::from_bridge_status(const std::vector<int>& remote_in_bridge, const be_status& status, MPI_Status* out,
                                 bool single) const
{
  if (out == MPI_STATUS_IGNORE)
    return;
  be_status remote = status;
  auto found       = std::find(remote_in_bridge.begin(), remote_in_bridge.end(), status.source);
  if (status.source >= 0 && found != remote_in_bridge.end())
    remote.source = static_cast<int>(found - remote_in_bridge.begin());
  if (single)
    from_be_single_status(remote, out);
  else
    from_be_status(remote, out);
}

int SmpiRank::intercomm_unsupported(const char* function)
{
  std::fprintf(stderr,
               "bxisim: %s on an inter-communicator at the smpi level: SMPI 3.32 has no inter-communicators and "
               "bxisim's own carry their point-to-point calls, collectives, MPI_Comm_dup, _split, _create, _free and "
               "MPI_Intercomm_merge only; the call fails with MPI_ERR_COMM. Run this part at --level message.\n",
               function);
  return raised(MPI_COMM_WORLD, MPI_ERR_COMM);
}

int SmpiRank::world_rank()
{
  int rank = 0;
  fn_.Comm_rank(to_be_comm(MPI_COMM_WORLD), &rank);
  return rank;
}

int SmpiRank::make_intercomm(be_comm local, const std::vector<int>& local_world, const std::vector<int>& remote_world,
                             MPI_Comm* newintercomm)
{
  Intercomm made;
  made.local       = local;
  bool local_first = *std::min_element(local_world.begin(), local_world.end()) <
                     *std::min_element(remote_world.begin(), remote_world.end());
  const std::vector<int>& first  = local_first ? local_world : remote_world;
  const std::vector<int>& second = local_first ? remote_world : local_world;
  made.world_of_bridge           = first;
  made.world_of_bridge.insert(made.world_of_bridge.end(), second.begin(), second.end());
  for (size_t i = 0; i < local_world.size(); ++i)
    made.local_in_bridge.push_back(static_cast<int>(local_first ? i : remote_world.size() + i));
  for (size_t i = 0; i < remote_world.size(); ++i)
    made.remote_in_bridge.push_back(static_cast<int>(local_first ? local_world.size() + i : i));
  be_group world = nullptr, both = nullptr;
  be_comm world_comm = to_be_comm(MPI_COMM_WORLD);
  int result         = fn_.Comm_group(world_comm, &world);
  if (be_ok(result))
    result = fn_.Group_incl(world, static_cast<int>(made.world_of_bridge.size()), made.world_of_bridge.data(), &both);
  if (be_ok(result)) // SMPI's MPI_Comm_create involves the group's members only
    result = fn_.Comm_create(world_comm, both, &made.bridge);
  if (be_ok(result))
    result = fn_.Comm_create(world_comm, both, &made.collective);
  if (both != nullptr)
    fn_.Group_free(&both);
  if (world != nullptr)
    fn_.Group_free(&world);
  if (not be_ok(result) || made.bridge == nullptr) {
    *newintercomm = MPI_COMM_NULL;
    return raised(MPI_COMM_WORLD, be_ok(result) ? MPI_ERR_INTERN : from_be_errcode(result));
  }
  *newintercomm            = from_be_comm(made.bridge);
  intercomms_[made.bridge] = std::move(made);
  return MPI_SUCCESS;
}

int SmpiRank::Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm bridge_comm, int remote_leader, int tag,
                               MPI_Comm* newintercomm)
{
  if (newintercomm == nullptr)
    return raised(local_comm, MPI_ERR_ARG);
  if (is_intercomm(local_comm))
    return raised(local_comm, MPI_ERR_COMM);
  be_comm local      = to_be_comm(local_comm);
  be_datatype number = to_be_datatype(MPI_INT);
  int local_size = 0, local_rank = 0, me = world_rank();
  int result = fn_.Comm_size(local, &local_size);
  if (be_ok(result))
    result = fn_.Comm_rank(local, &local_rank);
  std::vector<int> local_world(static_cast<size_t>(std::max(local_size, 1)));
  if (be_ok(result))
    result = fn_.Allgather(&me, 1, number, local_world.data(), 1, number, local);
  int remote_size = 0;
  std::vector<int> remote_world;
  if (be_ok(result) && local_rank == local_leader) { // the leaders exchange their groups (world ranks)
    be_comm peer = to_be_comm(bridge_comm);
    result = fn_.Sendrecv(&local_size, 1, number, to_be_rank(remote_leader), to_be_tag(tag), &remote_size, 1, number,
                          to_be_rank(remote_leader), to_be_tag(tag), peer, nullptr);
    remote_world.resize(static_cast<size_t>(std::max(remote_size, 1)));
    if (be_ok(result))
      result = fn_.Sendrecv(local_world.data(), local_size, number, to_be_rank(remote_leader), to_be_tag(tag),
                            remote_world.data(), remote_size, number, to_be_rank(remote_leader), to_be_tag(tag), peer,
                            nullptr);
  }
  if (be_ok(result))
    result = fn_.Bcast(&remote_size, 1, number, local_leader, local);
  remote_world.resize(static_cast<size_t>(std::max(remote_size, 1)));
  if (be_ok(result))
    result = fn_.Bcast(remote_world.data(), remote_size, number, local_leader, local);
  remote_world.resize(static_cast<size_t>(std::max(remote_size, 0)));
  be_comm group = nullptr;
  if (be_ok(result))
    result = fn_.Comm_split(local, 0, local_rank, &group);
  if (not be_ok(result) || remote_world.empty()) {
    *newintercomm = MPI_COMM_NULL;
    return raised(local_comm, be_ok(result) ? MPI_ERR_ARG : from_be_errcode(result));
  }
  return make_intercomm(group, local_world, remote_world, newintercomm);
}

int SmpiRank::Comm_test_inter(MPI_Comm comm, int* flag)
{
  if (flag == nullptr)
    return raised(comm, MPI_ERR_ARG);
  if (to_be_comm(comm) == nullptr)
    return raised(MPI_COMM_WORLD, MPI_ERR_COMM);
  *flag = is_intercomm(comm) ? 1 : 0;
  return MPI_SUCCESS;
}

int SmpiRank::Comm_remote_size(MPI_Comm comm, int* size)
{
  if (not is_intercomm(comm) || size == nullptr)
    return raised(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, MPI_ERR_COMM);
  *size = static_cast<int>(intercomm_of(comm).remote_in_bridge.size());
  return MPI_SUCCESS;
}

int SmpiRank::Comm_remote_group(MPI_Comm comm, MPI_Group* group)
{
  if (not is_intercomm(comm) || group == nullptr)
    return raised(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, MPI_ERR_COMM);
  const Intercomm& inter = intercomm_of(comm);
  be_group both = nullptr, remote = nullptr;
  int result = fn_.Comm_group(inter.bridge, &both);
  if (be_ok(result))
    result =
        fn_.Group_incl(both, static_cast<int>(inter.remote_in_bridge.size()), inter.remote_in_bridge.data(), &remote);
  if (both != nullptr)
    fn_.Group_free(&both);
  *group = be_ok(result) ? from_be_group(remote) : MPI_GROUP_NULL;
  return from_be_errcode(result);
}

int SmpiRank::inter_Comm_size(MPI_Comm comm, int* size)
{
  return from_be_errcode(fn_.Comm_size(intercomm_of(comm).local, size));
}

int SmpiRank::inter_Comm_rank(MPI_Comm comm, int* rank)
{
  return from_be_errcode(fn_.Comm_rank(intercomm_of(comm).local, rank));
}

int SmpiRank::inter_Comm_group(MPI_Comm comm, MPI_Group* group)
{
  be_group made = nullptr;
  int result    = fn_.Comm_group(intercomm_of(comm).local, &made);
  *group        = be_ok(result) ? from_be_group(made) : MPI_GROUP_NULL;
  return from_be_errcode(result);
}

int SmpiRank::inter_Comm_free(MPI_Comm* comm)
{
  run_pending(to_be_comm(*comm), nullptr); // MPI_Comm_free is collective: every rank called them before it
  Intercomm inter = intercomm_of(*comm);
  intercomms_.erase(inter.bridge);
  fn_.Comm_free(&inter.collective);
  fn_.Comm_free(&inter.local);
  int result = fn_.Comm_free(&inter.bridge); // the program's attributes' delete functions run here
  *comm      = MPI_COMM_NULL;
  return from_be_errcode(result);
}

int SmpiRank::inter_dup(MPI_Comm comm, MPI_Comm* newcomm)
{
  const Intercomm& inter = intercomm_of(comm);
  Intercomm made         = inter;
  made.bridge = made.collective = made.local = nullptr;
  int result = fn_.Comm_dup(inter.bridge, &made.bridge); // the program's attributes copied as MPI says
  if (be_ok(result))
    result = fn_.Comm_dup(inter.collective, &made.collective);
  if (be_ok(result))
    result = fn_.Comm_dup(inter.local, &made.local);
  if (not be_ok(result)) {
    *newcomm = MPI_COMM_NULL;
    return raised(comm, from_be_errcode(result));
  }
  *newcomm                 = from_be_comm(made.bridge);
  intercomms_[made.bridge] = std::move(made);
  return MPI_SUCCESS;
}

int SmpiRank::inter_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm)
{
  // Every rank learns every (color, key); the ranks of one color on both sides make a new inter-communicator,
  // each group in the order of the keys (then of the old ranks), as MPI_Comm_split orders one group.
  const Intercomm inter = intercomm_of(comm);
  int both_size         = static_cast<int>(inter.world_of_bridge.size());
  int mine[2]           = {color == MPI_UNDEFINED ? kSmpiUndefined : color, key};
  std::vector<int> all(static_cast<size_t>(both_size) * 2);
  be_datatype number = to_be_datatype(MPI_INT);
  int result         = fn_.Allgather(mine, 2, number, all.data(), 2, number, inter.collective);
  be_comm local      = nullptr;
  if (be_ok(result))
    result = fn_.Comm_split(inter.local, mine[0], key, &local);
  if (not be_ok(result))
    return raised(comm, from_be_errcode(result));
  *newcomm = MPI_COMM_NULL;
  if (color == MPI_UNDEFINED)
    return MPI_SUCCESS;
  auto members = [&](const std::vector<int>& in_bridge) {
    std::vector<std::pair<int, int>> chosen; // (key, old rank)
    for (size_t r = 0; r < in_bridge.size(); ++r)
      if (all[static_cast<size_t>(in_bridge[r]) * 2] == mine[0])
        chosen.emplace_back(all[static_cast<size_t>(in_bridge[r]) * 2 + 1], static_cast<int>(r));
    std::sort(chosen.begin(), chosen.end());
    std::vector<int> world;
    for (auto [k, r] : chosen)
      world.push_back(inter.world_of_bridge[static_cast<size_t>(in_bridge[static_cast<size_t>(r)])]);
    return world;
  };
  std::vector<int> local_world = members(inter.local_in_bridge), remote_world = members(inter.remote_in_bridge);
  if (remote_world.empty()) { // MPI-3.1 6.4.2: no remote process of this color
    fn_.Comm_free(&local);
    return MPI_SUCCESS;
  }
  return make_intercomm(local, local_world, remote_world, newcomm);
}

int SmpiRank::inter_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm)
{
  int rank   = kSmpiUndefined;
  int result = fn_.Group_rank(to_be_group(group), &rank);
  if (not be_ok(result))
    return raised(comm, from_be_errcode(result));
  return inter_Comm_split(comm, rank == kSmpiUndefined ? MPI_UNDEFINED : 0, rank, newcomm);
}

int SmpiRank::Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm)
{
  if (not is_intercomm(intercomm) || newintracomm == nullptr)
    return raised(intercomm == MPI_COMM_NULL ? MPI_COMM_WORLD : intercomm, MPI_ERR_COMM);
  const Intercomm& inter = intercomm_of(intercomm);
  int both_size          = static_cast<int>(inter.world_of_bridge.size());
  std::vector<int> highs(static_cast<size_t>(both_size));
  be_datatype number = to_be_datatype(MPI_INT);
  int mine           = high ? 1 : 0;
  int result         = fn_.Allgather(&mine, 1, number, highs.data(), 1, number, inter.collective);
  int local_rank     = 0;
  fn_.Comm_rank(inter.local, &local_rank);
  // The group that gave high = false first; both alike: the bridge's order.
  int theirs       = highs[static_cast<size_t>(inter.remote_in_bridge[0])];
  bool local_first = mine != theirs ? mine == 0 : inter.local_in_bridge[0] == 0;
  be_comm made     = nullptr;
  if (be_ok(result))
    result = fn_.Comm_split(inter.collective, 0, (local_first ? 0 : both_size) + local_rank, &made);
  *newintracomm = be_ok(result) ? from_be_comm(made) : MPI_COMM_NULL;
  return be_ok(result) ? MPI_SUCCESS : raised(intercomm, from_be_errcode(result));
}

// Point-to-point: the remote rank is a bridge rank; a received status names the remote rank.

namespace
{
/** One of SMPI's sends (blocking, or nonblocking with its request) to remote rank `dest` of `remote_in_bridge` over
 *  `bridge`; SMPI's code. */
template <class Send, class... Request>
int send_to_remote(Send send, const std::vector<int>& remote_in_bridge, void* bridge, const void* buf, int count,
                   void* type, int dest, int tag, Request... request)
{
  return send(SmpiAbi::to_be_bottom(buf), count, type, to_bridge(remote_in_bridge, dest), SmpiAbi::to_be_tag(tag),
              bridge, request...);
}

/** A nonblocking send_to_remote: the program's request; bxisim's code. */
template <class Send>
int started_to_remote(const SmpiAbi& abi, Send send, const std::vector<int>& remote_in_bridge, void* bridge,
                      const void* buf, int count, void* type, int dest, int tag, MPI_Request* request)
{
  SmpiAbi::be_request made{};
  int result = send_to_remote(send, remote_in_bridge, bridge, buf, count, type, dest, tag, &made);
  *request   = SmpiAbi::be_ok(result) ? abi.from_be_request(made) : MPI_REQUEST_NULL;
  return SmpiAbi::from_be_errcode(result);
}
} // namespace

int SmpiRank::inter_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
  const Intercomm& inter = intercomm_of(comm);
  return from_be_errcode(
      send_to_remote(fn_.Send, inter.remote_in_bridge, inter.bridge, buf, count, to_be_datatype(datatype), dest, tag));
}

int SmpiRank::inter_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
  const Intercomm& inter = intercomm_of(comm);
  return from_be_errcode(
      send_to_remote(fn_.Ssend, inter.remote_in_bridge, inter.bridge, buf, count, to_be_datatype(datatype), dest, tag));
}

int SmpiRank::inter_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
  const Intercomm& inter = intercomm_of(comm);
  return from_be_errcode(
      send_to_remote(fn_.Bsend, inter.remote_in_bridge, inter.bridge, buf, count, to_be_datatype(datatype), dest, tag));
}

int SmpiRank::inter_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
  const Intercomm& inter = intercomm_of(comm);
  return from_be_errcode(
      send_to_remote(fn_.Rsend, inter.remote_in_bridge, inter.bridge, buf, count, to_be_datatype(datatype), dest, tag));
}

int SmpiRank::inter_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                          MPI_Request* request)
{
  const Intercomm& inter = intercomm_of(comm);
  return started_to_remote(*this, fn_.Isend, inter.remote_in_bridge, inter.bridge, buf, count, to_be_datatype(datatype),
                           dest, tag, request);
}

int SmpiRank::inter_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request* request)
{
  const Intercomm& inter = intercomm_of(comm);
  return started_to_remote(*this, fn_.Issend, inter.remote_in_bridge, inter.bridge, buf, count,
                           to_be_datatype(datatype), dest, tag, request);
}

int SmpiRank::inter_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request* request)
{
  const Intercomm& inter = intercomm_of(comm);
  return started_to_remote(*this, fn_.Ibsend, inter.remote_in_bridge, inter.bridge, buf, count,
                           to_be_datatype(datatype), dest, tag, request);
}

int SmpiRank::inter_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                           MPI_Request* request)
{
  const Intercomm& inter = intercomm_of(comm);
  return started_to_remote(*this, fn_.Irsend, inter.remote_in_bridge, inter.bridge, buf, count,
                           to_be_datatype(datatype), dest, tag, request);
}

int SmpiRank::inter_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                         MPI_Status* status)
{
  const Intercomm& inter = intercomm_of(comm);
  be_status got{};
  int result = fn_.Recv(to_be_bottom(buf), count, to_be_datatype(datatype), to_bridge(inter.remote_in_bridge, source),
                        to_be_tag(tag), inter.bridge, &got);
  if (be_ok(result))
    from_bridge_status(inter.remote_in_bridge, got, status, true);
  return from_be_errcode(result);
}

int SmpiRank::inter_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                          MPI_Request* request)
{
  // A request of bxisim's over SMPI's receive, so that its status names the remote rank at completion.
  const Intercomm& inter = intercomm_of(comm);
  be_request made{};
  int result = fn_.Irecv(to_be_bottom(buf), count, to_be_datatype(datatype), to_bridge(inter.remote_in_bridge, source),
                         to_be_tag(tag), inter.bridge, &made);
  if (not be_ok(result)) {
    *request = MPI_REQUEST_NULL;
    return from_be_errcode(result);
  }
  *request                  = composite_request({made});
  CompositeRequest& receive = *composites_.at(*request);
  receive.receive           = true;
  receive.remote_in_bridge  = inter.remote_in_bridge;
  return MPI_SUCCESS;
}

int SmpiRank::inter_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status)
{
  const Intercomm& inter = intercomm_of(comm);
  be_status got{};
  int result = fn_.Probe(to_bridge(inter.remote_in_bridge, source), to_be_tag(tag), inter.bridge, &got);
  if (be_ok(result))
    from_bridge_status(inter.remote_in_bridge, got, status, true);
  return from_be_errcode(result);
}

int SmpiRank::inter_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status)
{
  const Intercomm& inter = intercomm_of(comm);
  be_status got{};
  int result = fn_.Iprobe(to_bridge(inter.remote_in_bridge, source), to_be_tag(tag), inter.bridge, flag, &got);
  if (be_ok(result) && *flag)
    from_bridge_status(inter.remote_in_bridge, got, status, true);
  return from_be_errcode(result);
}

int SmpiRank::inter_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                             MPI_Comm comm, MPI_Status* status)
{
  const Intercomm& inter = intercomm_of(comm);
  be_status got{};
  int result =
      fn_.Sendrecv(to_be_bottom(sendbuf), sendcount, to_be_datatype(sendtype), to_bridge(inter.remote_in_bridge, dest),
                   to_be_tag(sendtag), to_be_bottom(recvbuf), recvcount, to_be_datatype(recvtype),
                   to_bridge(inter.remote_in_bridge, source), to_be_tag(recvtag), inter.bridge, &got);
  if (be_ok(result))
    from_bridge_status(inter.remote_in_bridge, got, status, true);
  return from_be_errcode(result);
}

int SmpiRank::inter_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                     int recvtag, MPI_Comm comm, MPI_Status* status)
{
  const Intercomm& inter = intercomm_of(comm);
  be_status got{};
  int result = fn_.Sendrecv_replace(to_be_bottom(buf), count, to_be_datatype(datatype),
                                    to_bridge(inter.remote_in_bridge, dest), to_be_tag(sendtag),
                                    to_bridge(inter.remote_in_bridge, source), to_be_tag(recvtag), inter.bridge, &got);
  if (be_ok(result))
    from_bridge_status(inter.remote_in_bridge, got, status, true);
  return from_be_errcode(result);
}

// Collectives (MPI-3.1 5.2.2: the root group gives MPI_ROOT at its root and MPI_PROC_NULL elsewhere).

void* SmpiRank::scratch_for(int count, MPI_Datatype datatype, std::vector<unsigned char>& bytes)
{
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  be_datatype type = to_be_datatype(datatype);
  fn_.Type_get_extent(type, &lb, &extent);
  fn_.Type_get_true_extent(type, &true_lb, &true_extent);
  MPI_Aint span = count <= 0 ? 0 : true_extent + static_cast<MPI_Aint>(count - 1) * extent;
  bytes.assign(static_cast<size_t>(std::max<MPI_Aint>(span, 0)) + 1, 0);
  return bytes.data() - true_lb;
}

MPI_Aint SmpiRank::extent_of(MPI_Datatype datatype)
{
  MPI_Aint lb = 0, extent = 0;
  fn_.Type_get_extent(to_be_datatype(datatype), &lb, &extent);
  return extent;
}

int SmpiRank::exchange_all(const Intercomm& inter, const std::function<Block(size_t)>& send_block,
                           const std::function<Block(size_t)>& receive_block, bool sends, bool receives)
{
  static const std::vector<int> nobody;
  std::vector<be_request> parts;
  int result = post_exchange(inter.collective, receives ? inter.remote_in_bridge : nobody,
                             sends ? inter.remote_in_bridge : nobody, send_block, receive_block, parts);
  if (be_ok(result) && not parts.empty())
    result = fn_.Waitall(static_cast<int>(parts.size()), parts.data(), nullptr);
  return from_be_errcode(result);
}

int SmpiRank::inter_Barrier(MPI_Comm comm)
{
  return from_be_errcode(fn_.Barrier(intercomm_of(comm).collective));
}

int SmpiRank::inter_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
  const Intercomm& inter = intercomm_of(comm);
  be_datatype type       = to_be_datatype(datatype);
  if (root == MPI_PROC_NULL)
    return MPI_SUCCESS;
  if (root == MPI_ROOT) // to the other group's rank 0, which broadcasts in its group
    return from_be_errcode(fn_.Send(buffer, count, type, inter.remote_in_bridge[0], 0, inter.collective));
  int local_rank = 0, result = kSmpiSuccess;
  fn_.Comm_rank(inter.local, &local_rank);
  if (local_rank == 0)
    result = fn_.Recv(buffer, count, type, to_bridge(inter.remote_in_bridge, root), 0, inter.collective, nullptr);
  if (be_ok(result))
    result = fn_.Bcast(buffer, count, type, 0, inter.local);
  return from_be_errcode(result);
}

int SmpiRank::inter_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, int root, MPI_Comm comm)
{
  std::vector<int> counts, displs;
  const Intercomm& inter = intercomm_of(comm);
  if (root == MPI_ROOT) {
    counts.assign(inter.remote_in_bridge.size(), recvcount);
    for (size_t r = 0; r < counts.size(); ++r)
      displs.push_back(static_cast<int>(r) * recvcount);
  }
  return inter_Gatherv(sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, root, comm);
}

int SmpiRank::inter_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
  const Intercomm& inter = intercomm_of(comm);
  if (root == MPI_PROC_NULL)
    return MPI_SUCCESS;
  if (root != MPI_ROOT)
    return from_be_errcode(fn_.Send(sendbuf, sendcount, to_be_datatype(sendtype),
                                    to_bridge(inter.remote_in_bridge, root), 0, inter.collective));
  MPI_Aint extent  = extent_of(recvtype);
  be_datatype type = to_be_datatype(recvtype);
  auto received    = [&](size_t r) { return Block{at(recvbuf, displs[r] * extent), recvcounts[r], type}; };
  return exchange_all(inter, received, received, false, true);
}

int SmpiRank::inter_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm)
{
  std::vector<int> counts, displs;
  const Intercomm& inter = intercomm_of(comm);
  if (root == MPI_ROOT) {
    counts.assign(inter.remote_in_bridge.size(), sendcount);
    for (size_t r = 0; r < counts.size(); ++r)
      displs.push_back(static_cast<int>(r) * sendcount);
  }
  return inter_Scatterv(sendbuf, counts.data(), displs.data(), sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int SmpiRank::inter_Scatterv(const void* sendbuf, const int* sendcounts, const int* displs, MPI_Datatype sendtype,
                             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
  const Intercomm& inter = intercomm_of(comm);
  if (root == MPI_PROC_NULL)
    return MPI_SUCCESS;
  if (root != MPI_ROOT)
    return from_be_errcode(fn_.Recv(recvbuf, recvcount, to_be_datatype(recvtype),
                                    to_bridge(inter.remote_in_bridge, root), 0, inter.collective, nullptr));
  MPI_Aint extent  = extent_of(sendtype);
  be_datatype type = to_be_datatype(sendtype);
  auto sent        = [&](size_t r) { return Block{at(sendbuf, displs[r] * extent), sendcounts[r], type}; };
  return exchange_all(inter, sent, sent, true, false);
}

int SmpiRank::inter_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm)
{
  const Intercomm& inter = intercomm_of(comm);
  std::vector<int> counts(inter.remote_in_bridge.size(), recvcount), displs;
  for (size_t r = 0; r < counts.size(); ++r)
    displs.push_back(static_cast<int>(r) * recvcount);
  return inter_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, counts.data(), displs.data(), recvtype, comm);
}

int SmpiRank::inter_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                               const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm)
{
  const Intercomm& inter = intercomm_of(comm);
  MPI_Aint extent        = extent_of(recvtype);
  be_datatype send = to_be_datatype(sendtype), receive = to_be_datatype(recvtype);
  auto sent     = [&](size_t) { return Block{sendbuf, sendcount, send}; };
  auto received = [&](size_t r) { return Block{at(recvbuf, displs[r] * extent), recvcounts[r], receive}; };
  return exchange_all(inter, sent, received, true, true);
}

int SmpiRank::inter_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm)
{
  const Intercomm& inter = intercomm_of(comm);
  MPI_Aint send_extent = extent_of(sendtype), receive_extent = extent_of(recvtype);
  be_datatype send = to_be_datatype(sendtype), receive = to_be_datatype(recvtype);
  auto sent = [&](size_t r) {
    return Block{at(sendbuf, static_cast<MPI_Aint>(r) * sendcount * send_extent), sendcount, send};
  };
  auto received = [&](size_t r) {
    return Block{at(recvbuf, static_cast<MPI_Aint>(r) * recvcount * receive_extent), recvcount, receive};
  };
  return exchange_all(inter, sent, received, true, true);
}

int SmpiRank::inter_Alltoallv(const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
                              void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
  const Intercomm& inter = intercomm_of(comm);
  MPI_Aint send_extent = extent_of(sendtype), receive_extent = extent_of(recvtype);
  be_datatype send = to_be_datatype(sendtype), receive = to_be_datatype(recvtype);
  auto sent     = [&](size_t r) { return Block{at(sendbuf, sdispls[r] * send_extent), sendcounts[r], send}; };
  auto received = [&](size_t r) { return Block{at(recvbuf, rdispls[r] * receive_extent), recvcounts[r], receive}; };
  return exchange_all(inter, sent, received, true, true);
}

int SmpiRank::inter_Alltoallw(const void* sendbuf, const int* sendcounts, const int* sdispls,
                              const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const int* rdispls,
                              const MPI_Datatype* recvtypes, MPI_Comm comm)
{
  const Intercomm& inter = intercomm_of(comm);
  auto sent     = [&](size_t r) { return Block{at(sendbuf, sdispls[r]), sendcounts[r], to_be_datatype(sendtypes[r])}; };
  auto received = [&](size_t r) { return Block{at(recvbuf, rdispls[r]), recvcounts[r], to_be_datatype(recvtypes[r])}; };
  return exchange_all(inter, sent, received, true, true);
}

int SmpiRank::inter_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                           MPI_Comm comm)
{
  const Intercomm& inter = intercomm_of(comm);
  be_datatype type       = to_be_datatype(datatype);
  if (root == MPI_PROC_NULL)
    return MPI_SUCCESS;
  if (root == MPI_ROOT) // the other group reduces to its rank 0, which sends the result
    return from_be_errcode(fn_.Recv(recvbuf, count, type, inter.remote_in_bridge[0], 0, inter.collective, nullptr));
  std::vector<unsigned char> bytes;
  void* reduced  = scratch_for(count, datatype, bytes);
  int local_rank = 0;
  fn_.Comm_rank(inter.local, &local_rank);
  int result = fn_.Reduce(sendbuf, reduced, count, type, to_be_op(op), 0, inter.local);
  if (be_ok(result) && local_rank == 0)
    result = fn_.Send(reduced, count, type, to_bridge(inter.remote_in_bridge, root), 0, inter.collective);
  return from_be_errcode(result);
}

int SmpiRank::inter_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                              MPI_Comm comm)
{
  // Each group's reduction goes to the other group: reduced at rank 0, exchanged there, broadcast in the group.
  const Intercomm& inter = intercomm_of(comm);
  be_datatype type       = to_be_datatype(datatype);
  std::vector<unsigned char> bytes;
  void* reduced  = scratch_for(count, datatype, bytes);
  int local_rank = 0;
  fn_.Comm_rank(inter.local, &local_rank);
  int result = fn_.Reduce(sendbuf, reduced, count, type, to_be_op(op), 0, inter.local);
  if (be_ok(result) && local_rank == 0)
    result = fn_.Sendrecv(reduced, count, type, inter.remote_in_bridge[0], 0, recvbuf, count, type,
                          inter.remote_in_bridge[0], 0, inter.collective, nullptr);
  if (be_ok(result))
    result = fn_.Bcast(recvbuf, count, type, 0, inter.local);
  return from_be_errcode(result);
}

int SmpiRank::inter_Reduce_scatter(const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm)
{
  // This group's data is reduced and scattered over the other group by its counts, and the reverse.
  const Intercomm& inter = intercomm_of(comm);
  be_datatype type = to_be_datatype(datatype), number = to_be_datatype(MPI_INT);
  int local_size = 0, local_rank = 0;
  fn_.Comm_size(inter.local, &local_size);
  fn_.Comm_rank(inter.local, &local_rank);
  int remote_size = static_cast<int>(inter.remote_in_bridge.size());
  std::vector<int> remote_counts(static_cast<size_t>(remote_size));
  int result = kSmpiSuccess;
  if (local_rank == 0)
    result = fn_.Sendrecv(recvcounts, local_size, number, inter.remote_in_bridge[0], 0, remote_counts.data(),
                          remote_size, number, inter.remote_in_bridge[0], 0, inter.collective, nullptr);
  if (be_ok(result))
    result = fn_.Bcast(remote_counts.data(), remote_size, number, 0, inter.local);
  int outgoing = std::accumulate(remote_counts.begin(), remote_counts.end(), 0);
  int incoming = std::accumulate(recvcounts, recvcounts + local_size, 0);
  std::vector<unsigned char> reduced_bytes, received_bytes;
  void* reduced  = scratch_for(outgoing, datatype, reduced_bytes);
  void* received = scratch_for(incoming, datatype, received_bytes);
  if (be_ok(result))
    result = fn_.Reduce(sendbuf, reduced, outgoing, type, to_be_op(op), 0, inter.local);
  if (be_ok(result) && local_rank == 0)
    result = fn_.Sendrecv(reduced, outgoing, type, inter.remote_in_bridge[0], 0, received, incoming, type,
                          inter.remote_in_bridge[0], 0, inter.collective, nullptr);
  std::vector<int> displs(static_cast<size_t>(local_size));
  for (int r = 1; r < local_size; ++r)
    displs[static_cast<size_t>(r)] = displs[static_cast<size_t>(r) - 1] + recvcounts[r - 1];
  if (be_ok(result))
    result =
        fn_.Scatterv(received, recvcounts, displs.data(), type, recvbuf, recvcounts[local_rank], type, 0, inter.local);
  return from_be_errcode(result);
}

int SmpiRank::inter_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                         MPI_Op op, MPI_Comm comm)
{
  int local_size = 0;
  fn_.Comm_size(intercomm_of(comm).local, &local_size);
  std::vector<int> counts(static_cast<size_t>(local_size), recvcount);
  return inter_Reduce_scatter(sendbuf, recvbuf, counts.data(), datatype, op, comm);
}

// Nonblocking collectives on an inter-communicator: the blocking one runs in the completion call (MPI_Test included)
// once every rank of both groups has called it. The request's parts are an empty message from and to every other
// rank of both groups, posted at the call, so that a test answers no while a rank has not called it (running it at
// the call blocked a rank that another waited for before its own call; SMPI's MPI_Ibarrier would not do: it ends at
// a rank other than 0 as soon as rank 0 entered). Completing one runs those called before it first, as every rank
// called them in the same order: ranks may complete them in any order (MPI-3.1 5.12).

namespace
{
constexpr int kArrivalTag = 1; // on an inter-communicator's collective communicator (its collectives: tag 0)
} // namespace

int SmpiRank::when_everyone_called(MPI_Comm comm, std::function<int()> run, MPI_Request* request)
{
  Intercomm& inter = intercomm_of(comm);
  int size = 0, me = 0;
  fn_.Comm_size(inter.collective, &size);
  fn_.Comm_rank(inter.collective, &me);
  std::vector<int> others;
  for (int r = 0; r < size; ++r)
    if (r != me)
      others.push_back(r);
  Block nothing{nullptr, 0, to_be_datatype(MPI_BYTE)};
  std::vector<be_request> arrivals;
  int result = post_exchange(
      inter.collective, others, others, [&nothing](size_t) { return nothing; }, [&nothing](size_t) { return nothing; },
      arrivals, kArrivalTag);
  if (not be_ok(result)) {
    *request = MPI_REQUEST_NULL;
    return raised(comm, from_be_errcode(result));
  }
  auto operation = std::make_shared<std::function<int()>>(std::move(run));
  inter.pending.push_back(operation);
  *request                                = composite_request(std::move(arrivals));
  const void* key                         = inter.bridge;
  composites_.at(*request)->at_completion = [this, key, operation] { run_pending(key, operation.get()); };
  return MPI_SUCCESS;
}

void SmpiRank::run_pending(const void* intercomm, const std::function<int()>* last)
{
  auto inter = intercomms_.find(intercomm);
  if (inter == intercomms_.end())
    return;
  auto& pending = inter->second.pending;
  if (last != nullptr &&
      std::none_of(pending.begin(), pending.end(), [last](const auto& p) { return p.get() == last; }))
    return; // run already, when a later one completed
  while (not pending.empty()) {
    auto next = pending.front();
    pending.pop_front();
    (*next)();
    if (next.get() == last)
      break;
  }
}

int SmpiRank::inter_Ibarrier(MPI_Comm comm, MPI_Request* request)
{
  return when_everyone_called(
      comm, [=] { return inter_Barrier(comm); }, request);
}

int SmpiRank::inter_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                           MPI_Request* request)
{
  return when_everyone_called(
      comm, [=] { return inter_Bcast(buffer, count, datatype, root, comm); }, request);
}

int SmpiRank::inter_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request)
{
  return when_everyone_called(
      comm, [=] { return inter_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      request);
}

int SmpiRank::inter_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, MPI_Comm comm,
                             MPI_Request* request)
{
  return when_everyone_called(
      comm,
      [=] { return inter_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm); },
      request);
}

int SmpiRank::inter_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                             MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request)
{
  return when_everyone_called(
      comm, [=] { return inter_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      request);
}

int SmpiRank::inter_Iscatterv(const void* sendbuf, const int* sendcounts, const int* displs, MPI_Datatype sendtype,
                              void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                              MPI_Request* request)
{
  return when_everyone_called(
      comm,
      [=] { return inter_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm); },
      request);
}

int SmpiRank::inter_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request)
{
  return when_everyone_called(
      comm, [=] { return inter_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); }, request);
}

int SmpiRank::inter_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request* request)
{
  return when_everyone_called(
      comm, [=] { return inter_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm); },
      request);
}

int SmpiRank::inter_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request)
{
  return when_everyone_called(
      comm, [=] { return inter_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); }, request);
}

int SmpiRank::inter_Ialltoallv(const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
                               void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request* request)
{
  return when_everyone_called(
      comm,
      [=] {
        return inter_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
      },
      request);
}

int SmpiRank::inter_Ialltoallw(const void* sendbuf, const int* sendcounts, const int* sdispls,
                               const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts, const int* rdispls,
                               const MPI_Datatype* recvtypes, MPI_Comm comm, MPI_Request* request)
{
  return when_everyone_called(
      comm,
      [=] {
        return inter_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
      },
      request);
}

int SmpiRank::inter_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                            MPI_Comm comm, MPI_Request* request)
{
  return when_everyone_called(
      comm, [=] { return inter_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); }, request);
}

int SmpiRank::inter_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request* request)
{
  return when_everyone_called(
      comm, [=] { return inter_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); }, request);
}

int SmpiRank::inter_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int* recvcounts, MPI_Datatype datatype,
                                    MPI_Op op, MPI_Comm comm, MPI_Request* request)
{
  return when_everyone_called(
      comm, [=] { return inter_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm); }, request);
}

int SmpiRank::inter_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype datatype,
                                          MPI_Op op, MPI_Comm comm, MPI_Request* request)
{
  return when_everyone_called(
      comm, [=] { return inter_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm); }, request);
}

} // namespace bxisim::mw
