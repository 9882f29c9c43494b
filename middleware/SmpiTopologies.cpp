// Graph topologies and neighbour collectives at the smpi level (MPI-3.1 chapter 7), which SMPI 3.32 lacks (its
// Cartesian topologies are its own).
//
// A graph or distributed-graph communicator is an SMPI communicator of the same ranks in the same order (no
// reordering, as OpenMPI's basic topology component does) with its neighbours kept by bxisim. Neighbour
// collectives post a receive per source and a send per destination, in the order of the neighbour lists, as
// OpenMPI's coll/basic does, on a communicator of their own (split from the topology's at the first one, so they
// never match the program's messages), and wait for them all; the nonblocking ones hand out the lot as one
// request (SmpiCompositeRequests.cpp).

#include "SmpiRank.hpp"

#include <algorithm>
#include <cstdio>

namespace bxisim::mw
{

SmpiAbi::Neighbourhood* SmpiRank::neighbourhood(MPI_Comm comm)
{
  be_comm called = to_be_comm(comm);
  auto known     = neighbourhoods_.find(called);
  if (known == neighbourhoods_.end())
    return nullptr;
  Neighbourhood& topology = known->second;
  if (not topology.listed) { // Cartesian (MPI-3.1 7.6): per dimension, the neighbour below, then the one above
    int ndims = 0;
    if (not be_ok(fn_.Cartdim_get(called, &ndims)))
      return nullptr;
    for (int d = 0; d < ndims; ++d) {
      int below = 0, above = 0;
      if (not be_ok(fn_.Cart_shift(called, d, 1, &below, &above)))
        return nullptr;
      topology.sources.push_back(from_be_rank(below));
      topology.sources.push_back(from_be_rank(above));
    }
    topology.destinations = topology.sources;
    topology.listed       = true;
  }
  if (topology.exchange == nullptr) {
    int me = 0;
    fn_.Comm_rank(called, &me);
    if (not be_ok(fn_.Comm_split(called, 0, me, &topology.exchange)))
      return nullptr;
  }
  return &topology;
}

void SmpiRank::forget_topology(MPI_Comm comm)
{
  auto known = neighbourhoods_.find(to_be_comm(comm));
  if (known == neighbourhoods_.end())
    return;
  if (known->second.exchange != nullptr)
    fn_.Comm_free(&known->second.exchange);
  neighbourhoods_.erase(known);
}

void SmpiRank::copy_topology(MPI_Comm comm, MPI_Comm duplicate)
{
  auto known = neighbourhoods_.find(to_be_comm(comm));
  if (known == neighbourhoods_.end() || duplicate == MPI_COMM_NULL)
    return;
  Neighbourhood copy                     = known->second;
  copy.exchange                          = nullptr; // its own, at its first neighbour collective
  neighbourhoods_[to_be_comm(duplicate)] = std::move(copy);
}

int SmpiRank::made_topology(MPI_Comm comm_old, int result, be_comm made, Neighbourhood topology, MPI_Comm* newcomm)
{
  if (not be_ok(result)) {
    *newcomm = MPI_COMM_NULL;
    return raised(comm_old, from_be_errcode(result));
  }
  *newcomm = from_be_comm(made);
  if (made != nullptr)
    neighbourhoods_[made] = std::move(topology);
  return MPI_SUCCESS;
}

int SmpiRank::Graph_create(MPI_Comm comm_old, int nnodes, const int* index, const int* edges, int reorder,
                           MPI_Comm* comm_graph)
{
  (void)reorder; // ranks are kept in order, as OpenMPI's basic component keeps them
  int size = 0, me = 0;
  if (comm_graph == nullptr || not be_ok(fn_.Comm_size(to_be_comm(comm_old), &size)) || nnodes < 0 || nnodes > size ||
      (nnodes > 0 && (index == nullptr || edges == nullptr)))
    return raised(comm_old, MPI_ERR_ARG);
  Neighbourhood graph;
  graph.kind   = MPI_GRAPH;
  graph.listed = true;
  graph.index.assign(index, index + nnodes);
  graph.edges.assign(edges, edges + (nnodes > 0 ? index[nnodes - 1] : 0));
  for (int i = 0; i < nnodes; ++i)
    if (index[i] < (i > 0 ? index[i - 1] : 0))
      return raised(comm_old, MPI_ERR_ARG);
  for (int edge : graph.edges)
    if (edge < 0 || edge >= nnodes)
      return raised(comm_old, MPI_ERR_ARG);
  fn_.Comm_rank(to_be_comm(comm_old), &me);
  if (me < nnodes) {
    int first = me > 0 ? index[me - 1] : 0;
    graph.sources.assign(edges + first, edges + index[me]);
    graph.destinations = graph.sources;
  }
  be_comm made{};
  int result = fn_.Comm_split(to_be_comm(comm_old), me < nnodes ? 0 : kSmpiUndefined, me, &made);
  return made_topology(comm_old, result, made, std::move(graph), comm_graph);
}

int SmpiRank::Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int* sources, const int* sourceweights,
                                         int outdegree, const int* destinations, const int* destweights, MPI_Info info,
                                         int reorder, MPI_Comm* comm_dist_graph)
{
  (void)info;
  (void)reorder;
  if (comm_dist_graph == nullptr || indegree < 0 || outdegree < 0 || (indegree > 0 && sources == nullptr) ||
      (outdegree > 0 && destinations == nullptr))
    return raised(comm_old, MPI_ERR_ARG);
  Neighbourhood graph;
  graph.kind   = MPI_DIST_GRAPH;
  graph.listed = true;
  graph.sources.assign(sources, sources + indegree);
  graph.destinations.assign(destinations, destinations + outdegree);
  graph.weighted = sourceweights != MPI_UNWEIGHTED && destweights != MPI_UNWEIGHTED;
  if (graph.weighted && sourceweights != MPI_WEIGHTS_EMPTY && indegree > 0)
    graph.source_weights.assign(sourceweights, sourceweights + indegree);
  if (graph.weighted && destweights != MPI_WEIGHTS_EMPTY && outdegree > 0)
    graph.destination_weights.assign(destweights, destweights + outdegree);
  int me = 0;
  fn_.Comm_rank(to_be_comm(comm_old), &me);
  be_comm made{};
  int result = fn_.Comm_split(to_be_comm(comm_old), 0, me, &made);
  return made_topology(comm_old, result, made, std::move(graph), comm_dist_graph);
}

int SmpiRank::Dist_graph_create(MPI_Comm comm_old, int n, const int* sources, const int* degrees,
                                const int* destinations, const int* weights, MPI_Info info, int reorder,
                                MPI_Comm* comm_dist_graph)
{
  (void)info;
  (void)reorder;
  be_comm old = to_be_comm(comm_old);
  int size = 0, me = 0;
  if (comm_dist_graph == nullptr || n < 0 || (n > 0 && (sources == nullptr || degrees == nullptr)) ||
      not be_ok(fn_.Comm_size(old, &size)))
    return raised(comm_old, MPI_ERR_ARG);
  fn_.Comm_rank(old, &me);
  // Every rank learns every edge (source, destination, weight), in the order of the ranks that gave them.
  std::vector<int> mine;
  int given = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < degrees[i]; ++j, ++given) {
      mine.push_back(sources[i]);
      mine.push_back(destinations[given]);
      mine.push_back(weights == MPI_UNWEIGHTED || weights == MPI_WEIGHTS_EMPTY ? 1 : weights[given]);
    }
  }
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<size_t>(size)), offsets(static_cast<size_t>(size));
  be_datatype integer = to_be_datatype(MPI_INT);
  int result          = fn_.Allgather(&length, 1, integer, lengths.data(), 1, integer, old);
  if (not be_ok(result))
    return raised(comm_old, from_be_errcode(result));
  int total = 0;
  for (int r = 0; r < size; ++r) {
    offsets[static_cast<size_t>(r)] = total;
    total += lengths[static_cast<size_t>(r)];
  }
  std::vector<int> all(static_cast<size_t>(total) + 1);
  mine.push_back(0); // a valid address when this rank gives no edge
  result = fn_.Allgatherv(mine.data(), length, integer, all.data(), lengths.data(), offsets.data(), integer, old);
  if (not be_ok(result))
    return raised(comm_old, from_be_errcode(result));
  Neighbourhood graph;
  graph.kind     = MPI_DIST_GRAPH;
  graph.listed   = true;
  graph.weighted = weights != MPI_UNWEIGHTED;
  for (int e = 0; e + 2 < total + 1; e += 3) {
    int from = all[static_cast<size_t>(e)], to = all[static_cast<size_t>(e) + 1],
        weight = all[static_cast<size_t>(e) + 2];
    if (from < 0 || from >= size || to < 0 || to >= size)
      return raised(comm_old, MPI_ERR_ARG);
    if (to == me) {
      graph.sources.push_back(from);
      graph.source_weights.push_back(weight);
    }
    if (from == me) {
      graph.destinations.push_back(to);
      graph.destination_weights.push_back(weight);
    }
  }
  if (not graph.weighted) {
    graph.source_weights.clear();
    graph.destination_weights.clear();
  }
  be_comm made{};
  result = fn_.Comm_split(old, 0, me, &made);
  return made_topology(comm_old, result, made, std::move(graph), comm_dist_graph);
}

const SmpiAbi::Neighbourhood* SmpiRank::graph_of(MPI_Comm comm, int kind) const
{
  auto known = neighbourhoods_.find(to_be_comm(comm));
  return known != neighbourhoods_.end() && known->second.kind == kind ? &known->second : nullptr;
}

int SmpiRank::Topo_test(MPI_Comm comm, int* status)
{
  if (comm == MPI_COMM_NULL)
    return raised(MPI_COMM_WORLD, MPI_ERR_COMM);
  if (status == nullptr)
    return raised(comm, MPI_ERR_ARG);
  auto known = neighbourhoods_.find(to_be_comm(comm));
  *status    = known != neighbourhoods_.end() ? known->second.kind : static_cast<int>(MPI_UNDEFINED);
  return MPI_SUCCESS;
}

int SmpiRank::Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges)
{
  const Neighbourhood* graph = graph_of(comm, MPI_GRAPH);
  if (graph == nullptr)
    return raised(comm, MPI_ERR_TOPOLOGY);
  if (nnodes == nullptr || nedges == nullptr)
    return raised(comm, MPI_ERR_ARG);
  *nnodes = static_cast<int>(graph->index.size());
  *nedges = static_cast<int>(graph->edges.size());
  return MPI_SUCCESS;
}

int SmpiRank::Graph_get(MPI_Comm comm, int maxindex, int maxedges, int* index, int* edges)
{
  const Neighbourhood* graph = graph_of(comm, MPI_GRAPH);
  if (graph == nullptr)
    return raised(comm, MPI_ERR_TOPOLOGY);
  std::copy_n(graph->index.begin(), std::min<size_t>(graph->index.size(), static_cast<size_t>(std::max(maxindex, 0))),
              index);
  std::copy_n(graph->edges.begin(), std::min<size_t>(graph->edges.size(), static_cast<size_t>(std::max(maxedges, 0))),
              edges);
  return MPI_SUCCESS;
}

int SmpiRank::Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors)
{
  const Neighbourhood* graph = graph_of(comm, MPI_GRAPH);
  if (graph == nullptr)
    return raised(comm, MPI_ERR_TOPOLOGY);
  if (rank < 0 || static_cast<size_t>(rank) >= graph->index.size() || nneighbors == nullptr)
    return raised(comm, MPI_ERR_RANK);
  *nneighbors = graph->index[static_cast<size_t>(rank)] - (rank > 0 ? graph->index[static_cast<size_t>(rank) - 1] : 0);
  return MPI_SUCCESS;
}

int SmpiRank::Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int* neighbors)
{
  int count = 0;
  int code  = Graph_neighbors_count(comm, rank, &count);
  if (code != MPI_SUCCESS)
    return code;
  const Neighbourhood* graph = graph_of(comm, MPI_GRAPH);
  int first                  = rank > 0 ? graph->index[static_cast<size_t>(rank) - 1] : 0;
  for (int i = 0; i < count && i < maxneighbors; ++i)
    neighbors[i] = graph->edges[static_cast<size_t>(first + i)];
  return MPI_SUCCESS;
}

int SmpiRank::Dist_graph_neighbors_count(MPI_Comm comm, int* inneighbors, int* outneighbors, int* weighted)
{
  const Neighbourhood* graph = graph_of(comm, MPI_DIST_GRAPH);
  if (graph == nullptr)
    return raised(comm, MPI_ERR_TOPOLOGY);
  if (inneighbors == nullptr || outneighbors == nullptr || weighted == nullptr)
    return raised(comm, MPI_ERR_ARG);
  *inneighbors  = static_cast<int>(graph->sources.size());
  *outneighbors = static_cast<int>(graph->destinations.size());
  *weighted     = graph->weighted ? 1 : 0;
  return MPI_SUCCESS;
}

int SmpiRank::Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int* sources, int* sourceweights, int maxoutdegree,
                                   int* destinations, int* destweights)
{
  const Neighbourhood* graph = graph_of(comm, MPI_DIST_GRAPH);
  if (graph == nullptr)
    return raised(comm, MPI_ERR_TOPOLOGY);
  bool source_weights      = graph->weighted && sourceweights != MPI_UNWEIGHTED && sourceweights != nullptr;
  bool destination_weights = graph->weighted && destweights != MPI_UNWEIGHTED && destweights != nullptr;
  for (size_t i = 0; i < graph->sources.size() && i < static_cast<size_t>(std::max(maxindegree, 0)); ++i) {
    sources[i] = graph->sources[i];
    if (source_weights && i < graph->source_weights.size())
      sourceweights[i] = graph->source_weights[i];
  }
  for (size_t i = 0; i < graph->destinations.size() && i < static_cast<size_t>(std::max(maxoutdegree, 0)); ++i) {
    destinations[i] = graph->destinations[i];
    if (destination_weights && i < graph->destination_weights.size())
      destweights[i] = graph->destination_weights[i];
  }
  return MPI_SUCCESS;
}

int SmpiRank::post_exchange(be_comm on, const std::vector<int>& from, const std::vector<int>& to,
                            const std::function<Block(size_t)>& send_block,
                            const std::function<Block(size_t)>& receive_block, std::vector<be_request>& parts, int tag)
{
  // MPI_PROC_NULL peers (a grid's edge) get no message; SMPI 3.32's MPI_Waitany crashed on such requests.
  parts.reserve(from.size() + to.size());
  int result = kSmpiSuccess;
  for (size_t i = 0; i < from.size() && be_ok(result); ++i) {
    if (from[i] == kSmpiProcNull)
      continue;
    Block block = receive_block(i);
    parts.emplace_back();
    result = fn_.Irecv(const_cast<void*>(block.buffer), block.count, block.type, from[i], tag, on, &parts.back());
  }
  for (size_t i = 0; i < to.size() && be_ok(result); ++i) {
    if (to[i] == kSmpiProcNull)
      continue;
    Block block = send_block(i);
    parts.emplace_back();
    result = fn_.Isend(const_cast<void*>(block.buffer), block.count, block.type, to[i], tag, on, &parts.back());
  }
  return result;
}

int SmpiRank::neighbour_exchange(MPI_Comm comm, const std::function<Block(size_t)>& send_block,
                                 const std::function<Block(size_t)>& receive_block, MPI_Request* request)
{
  Neighbourhood* neighbours = neighbourhood(comm);
  if (neighbours == nullptr) {
    std::fprintf(stderr, "bxisim: a neighbour collective on a communicator without a process topology: "
                         "MPI_ERR_TOPOLOGY (make it with MPI_Cart_create, MPI_Graph_create or "
                         "MPI_Dist_graph_create(_adjacent))\n");
    return raised(comm, MPI_ERR_TOPOLOGY);
  }
  std::vector<int> from(neighbours->sources.size()), to(neighbours->destinations.size());
  std::transform(neighbours->sources.begin(), neighbours->sources.end(), from.begin(), to_be_rank);
  std::transform(neighbours->destinations.begin(), neighbours->destinations.end(), to.begin(), to_be_rank);
  std::vector<be_request> parts;
  int result = post_exchange(neighbours->exchange, from, to, send_block, receive_block, parts);
  if (not be_ok(result))
    return raised(comm, from_be_errcode(result));
  if (request != nullptr) {
    *request = composite_request(std::move(parts));
    return MPI_SUCCESS;
  }
  result = parts.empty() ? kSmpiSuccess : fn_.Waitall(static_cast<int>(parts.size()), parts.data(), nullptr);
  return be_ok(result) ? MPI_SUCCESS : raised(comm, from_be_errcode(result));
}

namespace
{
const char* at(const void* buffer, MPI_Aint bytes)
{
  return static_cast<const char*>(buffer) + bytes;
}
} // namespace

int SmpiRank::allgather_neighbours(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const int* recvcounts, const int* displs, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Request* request)
{
  be_datatype send = to_be_datatype(sendtype), receive = to_be_datatype(recvtype);
  MPI_Aint extent = extent_of(recvtype);
  auto sent       = [&](size_t) { return Block{sendbuf, sendcount, send}; };
  auto received   = [&](size_t i) {
    if (recvcounts == nullptr)
      return Block{at(recvbuf, static_cast<MPI_Aint>(i) * recvcount * extent), recvcount, receive};
    return Block{at(recvbuf, displs[i] * extent), recvcounts[i], receive};
  };
  return neighbour_exchange(comm, sent, received, request);
}

int SmpiRank::alltoall_neighbours(const void* sendbuf, const int* sendcounts, const void* sdispls, int sendcount,
                                  const MPI_Datatype* sendtypes, MPI_Datatype sendtype, void* recvbuf,
                                  const int* recvcounts, const void* rdispls, int recvcount,
                                  const MPI_Datatype* recvtypes, MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Request* request)
{
  // Three forms: one count and type (alltoall), counts and displacements in elements of one type (alltoallv),
  // counts, displacements in bytes and a type per block (alltoallw).
  be_datatype send = to_be_datatype(sendtype), receive = to_be_datatype(recvtype);
  MPI_Aint send_extent    = sendtypes != nullptr ? 1 : extent_of(sendtype);
  MPI_Aint receive_extent = recvtypes != nullptr ? 1 : extent_of(recvtype);
  auto block = [this](const void* buffer, const int* counts, const void* displs, int count, const MPI_Datatype* types,
                      be_datatype type, MPI_Aint extent, size_t i) {
    if (counts == nullptr)
      return Block{at(buffer, static_cast<MPI_Aint>(i) * count * extent), count, type};
    if (types == nullptr)
      return Block{at(buffer, static_cast<const int*>(displs)[i] * extent), counts[i], type};
    return Block{at(buffer, static_cast<const MPI_Aint*>(displs)[i]), counts[i], to_be_datatype(types[i])};
  };
  auto sent = [&](size_t i) { return block(sendbuf, sendcounts, sdispls, sendcount, sendtypes, send, send_extent, i); };
  auto received = [&](size_t i) {
    return block(recvbuf, recvcounts, rdispls, recvcount, recvtypes, receive, receive_extent, i);
  };
  return neighbour_exchange(comm, sent, received, request);
}

int SmpiRank::Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
  return allgather_neighbours(sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvcount, recvtype, comm,
                              nullptr);
}

int SmpiRank::Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request)
{
  return allgather_neighbours(sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvcount, recvtype, comm,
                              request);
}

int SmpiRank::Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                  const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm)
{
  return allgather_neighbours(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, comm, nullptr);
}

int SmpiRank::Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                   const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Request* request)
{
  return allgather_neighbours(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0, recvtype, comm, request);
}

int SmpiRank::Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm)
{
  return alltoall_neighbours(sendbuf, nullptr, nullptr, sendcount, nullptr, sendtype, recvbuf, nullptr, nullptr,
                             recvcount, nullptr, recvtype, comm, nullptr);
}

int SmpiRank::Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request)
{
  return alltoall_neighbours(sendbuf, nullptr, nullptr, sendcount, nullptr, sendtype, recvbuf, nullptr, nullptr,
                             recvcount, nullptr, recvtype, comm, request);
}

int SmpiRank::Neighbor_alltoallv(const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
                                 void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
                                 MPI_Comm comm)
{
  return alltoall_neighbours(sendbuf, sendcounts, sdispls, 0, nullptr, sendtype, recvbuf, recvcounts, rdispls, 0,
                             nullptr, recvtype, comm, nullptr);
}

int SmpiRank::Ineighbor_alltoallv(const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
                                  void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Request* request)
{
  return alltoall_neighbours(sendbuf, sendcounts, sdispls, 0, nullptr, sendtype, recvbuf, recvcounts, rdispls, 0,
                             nullptr, recvtype, comm, request);
}

int SmpiRank::Neighbor_alltoallw(const void* sendbuf, const int* sendcounts, const MPI_Aint* sdispls,
                                 const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts,
                                 const MPI_Aint* rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm)
{
  return alltoall_neighbours(sendbuf, sendcounts, sdispls, 0, sendtypes, MPI_BYTE, recvbuf, recvcounts, rdispls, 0,
                             recvtypes, MPI_BYTE, comm, nullptr);
}

int SmpiRank::Ineighbor_alltoallw(const void* sendbuf, const int* sendcounts, const MPI_Aint* sdispls,
                                  const MPI_Datatype* sendtypes, void* recvbuf, const int* recvcounts,
                                  const MPI_Aint* rdispls, const MPI_Datatype* recvtypes, MPI_Comm comm,
                                  MPI_Request* request)
{
  return alltoall_neighbours(sendbuf, sendcounts, sdispls, 0, sendtypes, MPI_BYTE, recvbuf, recvcounts, rdispls, 0,
                             recvtypes, MPI_BYTE, comm, request);
}

} // namespace bxisim::mw
