/* Process topologies and neighbour collectives (MPI-3.1 chapter 7), MPI_Comm_idup, at every level (SMPI 3.32 has
 * no graph topology, neighbour collective nor MPI_Comm_idup: bxisim's). Each check prints bad_<name> when wrong.
 *
 *   neighbourhoods graphs        graph and distributed-graph constructors and queries, MPI_Topo_test, the maps
 *   neighbourhoods collectives   every neighbour collective on a ring, a 2-D grid, a graph and a distributed
 *                                graph; the nonblocking ones completed by each completion call, mixed with
 *                                point-to-point requests
 *   neighbourhoods idup          MPI_Comm_idup while rank 0 waits for the others (MPICH's comm/comm_idup) */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHECK(condition, name)                                                                                         \
  do {                                                                                                                 \
    if (!(condition))                                                                                                  \
      printf("bad_%s\n", name);                                                                                        \
  } while (0)

static int rank, size;

static void graphs(void)
{
  /* a ring as MPI_Graph_create wants it; the last rank is left out */
  int nodes = size - 1, index[64], edges[128];
  for (int i = 0; i < nodes; i++) {
    index[i]         = 2 * (i + 1);
    edges[2 * i]     = (i + nodes - 1) % nodes;
    edges[2 * i + 1] = (i + 1) % nodes;
  }
  MPI_Comm graph, dup, dist, adjacent;
  MPI_Graph_create(MPI_COMM_WORLD, nodes, index, edges, 0, &graph);
  CHECK((graph == MPI_COMM_NULL) == (rank >= nodes), "graph_members");
  int kind = -1, count = -1, got_nodes = 0, got_edges = 0, neighbours[4] = {-1, -1, -1, -1}, mapped = -2;
  if (graph != MPI_COMM_NULL) {
    MPI_Topo_test(graph, &kind);
    CHECK(kind == MPI_GRAPH, "graph_kind");
    MPI_Graphdims_get(graph, &got_nodes, &got_edges);
    CHECK(got_nodes == nodes && got_edges == 2 * nodes, "graphdims");
    MPI_Graph_neighbors_count(graph, rank, &count);
    MPI_Graph_neighbors(graph, rank, 4, neighbours);
    CHECK(count == 2 && neighbours[0] == (rank + nodes - 1) % nodes && neighbours[1] == (rank + 1) % nodes,
          "graph_neighbours");
    MPI_Comm_dup(graph, &dup);
    MPI_Topo_test(dup, &kind);
    CHECK(kind == MPI_GRAPH, "dup_keeps_graph");
    MPI_Comm_free(&dup);
    MPI_Comm_free(&graph);
  }
  MPI_Graph_map(MPI_COMM_WORLD, nodes, index, edges, &mapped);
  CHECK(mapped == (rank < nodes ? rank : MPI_UNDEFINED), "graph_map");
  int dims[1] = {size - 1}, periods[1] = {0};
  MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &mapped);
  CHECK(mapped == (rank < size - 1 ? rank : MPI_UNDEFINED), "cart_map");
  MPI_Topo_test(MPI_COMM_WORLD, &kind);
  CHECK(kind == MPI_UNDEFINED, "world_kind");

  /* the same weighted edges given two ways: each rank names its out-edges to the next two ranks */
  int sources[2]      = {(rank + size - 1) % size, (rank + size - 2) % size};
  int destinations[2] = {(rank + 1) % size, (rank + 2) % size};
  int in_weights[2] = {sources[0] + 1, sources[1] + 1}, out_weights[2] = {rank + 1, rank + 1};
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, in_weights, 2, destinations, out_weights, MPI_INFO_NULL, 0,
                                 &adjacent);
  int me[1] = {rank}, degrees[1] = {2};
  /* reorder allowed: every level keeps the ranks in order (OpenMPI's topo/treematch, left out, reordered them by the
   * host machine's hardware and printed a modex error per rank) */
  MPI_Dist_graph_create(MPI_COMM_WORLD, 1, me, degrees, destinations, out_weights, MPI_INFO_NULL, 1, &dist);
  int rank_in_dist = -1;
  MPI_Comm_rank(dist, &rank_in_dist);
  CHECK(rank_in_dist == rank, "dist_rank_kept");
  MPI_Comm made[2] = {adjacent, dist};
  for (int m = 0; m < 2; m++) {
    int in = -1, out = -1, weighted = -1, got_sources[2], got_weights[2], got_destinations[2], got_out[2];
    MPI_Topo_test(made[m], &kind);
    MPI_Dist_graph_neighbors_count(made[m], &in, &out, &weighted);
    CHECK(kind == MPI_DIST_GRAPH && in == 2 && out == 2 && weighted, "dist_counts");
    MPI_Dist_graph_neighbors(made[m], 2, got_sources, got_weights, 2, got_destinations, got_out);
    int sources_ok = (got_sources[0] == sources[0] && got_sources[1] == sources[1]) ||
                     (got_sources[0] == sources[1] && got_sources[1] == sources[0]);
    CHECK(sources_ok && got_weights[0] == got_sources[0] + 1, "dist_sources");
    CHECK(got_destinations[0] != got_destinations[1] && got_out[0] == rank + 1, "dist_destinations");
    MPI_Comm_free(&made[m]);
  }
  printf("graphs=1\n");
}

/* Every neighbour collective on `comm`, blocking or not: rank in[i] is this rank's i-th source (MPI_PROC_NULL at a
 * grid's edge), and this rank is the from_block[i]-th destination of in[i]. Rank r sends r * 100 + j to its j-th
 * destination. The number of wrong values. */
static int exchanges(MPI_Comm comm, int degree, const int* in, const int* from_block, int blocking)
{
  int sent[8], received[8], counts[8], displs[8], wrong = 0;
  MPI_Aint bytes[8];
  MPI_Datatype types[8];
  for (int i = 0; i < degree; i++) {
    sent[i]   = rank * 100 + i;
    counts[i] = 1;
    displs[i] = i;
    bytes[i]  = (MPI_Aint)(i * sizeof(int));
    types[i]  = MPI_INT;
  }
  for (int form = 0; form < 5; form++) {
    memset(received, 0xff, sizeof received);
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Request* r      = blocking ? NULL : &request;
    switch (form) {
    case 0:
      r ? MPI_Ineighbor_allgather(&sent[0], 1, MPI_INT, received, 1, MPI_INT, comm, r)
        : MPI_Neighbor_allgather(&sent[0], 1, MPI_INT, received, 1, MPI_INT, comm);
      break;
    case 1:
      r ? MPI_Ineighbor_allgatherv(&sent[0], 1, MPI_INT, received, counts, displs, MPI_INT, comm, r)
        : MPI_Neighbor_allgatherv(&sent[0], 1, MPI_INT, received, counts, displs, MPI_INT, comm);
      break;
    case 2:
      r ? MPI_Ineighbor_alltoall(sent, 1, MPI_INT, received, 1, MPI_INT, comm, r)
        : MPI_Neighbor_alltoall(sent, 1, MPI_INT, received, 1, MPI_INT, comm);
      break;
    case 3:
      r ? MPI_Ineighbor_alltoallv(sent, counts, displs, MPI_INT, received, counts, displs, MPI_INT, comm, r)
        : MPI_Neighbor_alltoallv(sent, counts, displs, MPI_INT, received, counts, displs, MPI_INT, comm);
      break;
    default:
      r ? MPI_Ineighbor_alltoallw(sent, counts, bytes, types, received, counts, bytes, types, comm, r)
        : MPI_Neighbor_alltoallw(sent, counts, bytes, types, received, counts, bytes, types, comm);
    }
    if (r) {
      /* completed beside a point-to-point exchange, by another completion call for each form */
      int token = rank, got = -1, flag = 0, index = -1, outcount = 0, indices[3];
      MPI_Request set[3];
      MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &set[0]);
      MPI_Isend(&token, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, &set[1]);
      set[2] = request;
      if (form == 0) {
        MPI_Waitall(3, set, MPI_STATUSES_IGNORE);
      } else if (form == 1) {
        while (!flag)
          MPI_Testall(3, set, &flag, MPI_STATUSES_IGNORE);
      } else if (form == 2) {
        for (int done = 0; done < 3; done++)
          MPI_Waitany(3, set, &index, MPI_STATUS_IGNORE);
        MPI_Waitany(3, set, &index, MPI_STATUS_IGNORE);
        wrong += index != MPI_UNDEFINED;
      } else if (form == 3) {
        for (int done = 0; done < 3; done += outcount)
          MPI_Waitsome(3, set, &outcount, indices, MPI_STATUSES_IGNORE);
      } else {
        for (int done = 0; done < 3; done += outcount)
          MPI_Testsome(3, set, &outcount, indices, MPI_STATUSES_IGNORE);
        MPI_Testany(3, set, &index, &flag, MPI_STATUS_IGNORE);
        wrong += !flag || index != MPI_UNDEFINED;
      }
      wrong += got != (rank + size - 1) % size;
      for (int k = 0; k < 3; k++)
        wrong += set[k] != MPI_REQUEST_NULL;
    }
    for (int i = 0; i < degree; i++) {
      if (in[i] == MPI_PROC_NULL)
        wrong += received[i] != -1; /* untouched */
      else
        wrong += received[i] != in[i] * 100 + (form < 2 ? 0 : from_block[i]);
    }
  }
  return wrong;
}

static void collectives(void)
{
  int wrong = 0;
  for (int blocking = 1; blocking >= 0; blocking--) {
    /* a periodic ring (MPI-3.1 7.6: the neighbour below, then the one above) and a graph of the same ring */
    MPI_Comm ring, grid, graph, dist;
    int dims[2] = {size, 0}, periods[2] = {1, 0};
    int ring_in[2] = {(rank + size - 1) % size, (rank + 1) % size}, ring_blocks[2] = {1, 0};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    wrong += exchanges(ring, 2, ring_in, ring_blocks, blocking);
    MPI_Comm_free(&ring);
    int index[64], edges[128];
    for (int i = 0; i < size; i++) {
      index[i]         = 2 * (i + 1);
      edges[2 * i]     = (i + size - 1) % size;
      edges[2 * i + 1] = (i + 1) % size;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
    wrong += exchanges(graph, 2, ring_in, ring_blocks, blocking);
    MPI_Comm_free(&graph);
    /* a non-periodic 2 x (size / 2) grid: MPI_PROC_NULL at its edges */
    dims[0] = 2, dims[1] = size / 2, periods[0] = 0;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    if (grid != MPI_COMM_NULL) {
      int grid_in[4], grid_blocks[4] = {1, 0, 3, 2};
      MPI_Cart_shift(grid, 0, 1, &grid_in[0], &grid_in[1]);
      MPI_Cart_shift(grid, 1, 1, &grid_in[2], &grid_in[3]);
      wrong += exchanges(grid, 4, grid_in, grid_blocks, blocking);
      MPI_Comm_free(&grid);
    }
    /* a distributed graph: from the previous rank, to the next */
    int from[1] = {(rank + size - 1) % size}, to[1] = {(rank + 1) % size}, dist_blocks[1] = {0};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, from, MPI_UNWEIGHTED, 1, to, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   &dist);
    wrong += exchanges(dist, 1, from, dist_blocks, blocking);
    MPI_Comm_free(&dist);
  }
  CHECK(wrong == 0, "neighbour_data");
  printf("collectives=1 wrong=%d\n", wrong);
}

static void idup(void)
{
  MPI_Comm copy;
  MPI_Request request;
  int token = rank, sum = 0;
  if (rank == 0) {
    for (int i = 1; i < size; i++)
      MPI_Recv(&token, 1, MPI_INT, i, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Comm_idup(MPI_COMM_WORLD, &copy, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {
    MPI_Comm_idup(MPI_COMM_WORLD, &copy, &request);
    MPI_Ssend(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    int flag = 0;
    while (!flag)
      MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
  }
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, copy);
  CHECK(sum == size * (size - 1) / 2 && request == MPI_REQUEST_NULL, "idup");
  MPI_Comm_free(&copy);
  printf("idup=1\n");
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "graphs") == 0)
    graphs();
  else if (strcmp(mode, "collectives") == 0)
    collectives();
  else if (strcmp(mode, "idup") == 0)
    idup();
  MPI_Finalize();
  return 0;
}
