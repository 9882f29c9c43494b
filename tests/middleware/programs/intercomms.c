/* Inter-communicators (MPI-3.1 6.6) at every level (SMPI 3.32 has none: bxisim's at smpi). MPI_COMM_WORLD split in
 * halves, the low half the left group; each check prints bad_<name> when wrong, and the run prints intercomms=1. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHECK(condition, name)                                                                                         \
  do {                                                                                                                 \
    if (!(condition))                                                                                                  \
      printf("bad_%s\n", name);                                                                                        \
  } while (0)

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int left = rank < size / 2, half = size / 2;
  MPI_Comm local, inter, dup, split, merged;
  MPI_Comm_split(MPI_COMM_WORLD, left, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, left ? half : 0, 7, &inter);
  int is_inter = 0, local_size = 0, local_rank = -1, remote_size = 0;
  MPI_Comm_test_inter(inter, &is_inter);
  MPI_Comm_size(inter, &local_size);
  MPI_Comm_rank(inter, &local_rank);
  MPI_Comm_remote_size(inter, &remote_size);
  int my_size = left ? half : size - half, their_size = size - my_size;
  CHECK(is_inter && local_size == my_size && remote_size == their_size, "sizes");
  CHECK(local_rank == (left ? rank : rank - half), "rank");
  MPI_Group remote;
  int group_size = 0;
  MPI_Comm_remote_group(inter, &remote);
  MPI_Group_size(remote, &group_size);
  CHECK(group_size == their_size, "remote_group");
  MPI_Group_free(&remote);

  /* point-to-point: local rank i and remote rank i exchange their world ranks (a receive from MPI_ANY_SOURCE) */
  int pairs = my_size < their_size ? my_size : their_size, value = -1;
  MPI_Status statuses[2];
  MPI_Request requests[2];
  if (local_rank < pairs) {
    MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 3, inter, &requests[0]);
    MPI_Isend(&rank, 1, MPI_INT, local_rank, 3, inter, &requests[1]);
    MPI_Waitall(2, requests, statuses);
    int world_sender = left ? half + local_rank : local_rank;
    CHECK(value == world_sender && statuses[0].MPI_SOURCE == local_rank && statuses[0].MPI_TAG == 3, "p2p");
    value = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, local_rank, 4, &value, 1, MPI_INT, local_rank, 4, inter, &statuses[0]);
    CHECK(value == world_sender && statuses[0].MPI_SOURCE == local_rank, "sendrecv");
  }

  /* collectives: the left group's rank 0 roots */
  int root = left ? (local_rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, token = left ? 42 : -1;
  MPI_Bcast(&token, 1, MPI_INT, root, inter);
  CHECK(token == 42, "bcast");
  int sum = -1, expected_sum = 0;
  for (int r = 0; r < size; r++)
    expected_sum += (r < half) != left ? r : 0; /* the remote group's world ranks */
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter);
  CHECK(sum == expected_sum, "allreduce");
  int gathered[64], sent[64], received[64];
  MPI_Allgather(&rank, 1, MPI_INT, gathered, 1, MPI_INT, inter);
  for (int r = 0; r < their_size; r++)
    CHECK(gathered[r] == (left ? half + r : r), "allgather");
  for (int r = 0; r < their_size; r++)
    sent[r] = rank * 100 + r;
  MPI_Alltoall(sent, 1, MPI_INT, received, 1, MPI_INT, inter);
  for (int r = 0; r < their_size; r++)
    CHECK(received[r] == (left ? half + r : r) * 100 + local_rank, "alltoall");
  int reduced = -1;
  MPI_Reduce(&rank, &reduced, 1, MPI_INT, MPI_SUM, root, inter);
  CHECK(!(left && local_rank == 0) || reduced == expected_sum, "reduce");
  MPI_Request request;
  token = left ? 43 : -1;
  MPI_Ibcast(&token, 1, MPI_INT, root, inter, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  CHECK(token == 43 && request == MPI_REQUEST_NULL, "ibcast");
  MPI_Barrier(inter);

  /* constructors over it */
  MPI_Comm_dup(inter, &dup);
  MPI_Comm_test_inter(dup, &is_inter);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
  CHECK(is_inter && sum == expected_sum, "dup");
  MPI_Comm_split(inter, local_rank % 2, local_rank, &split);
  if (split != MPI_COMM_NULL) {
    MPI_Comm_remote_size(split, &remote_size);
    CHECK(remote_size == (their_size + 1 - local_rank % 2) / 2, "split");
    MPI_Comm_free(&split);
  }
  MPI_Intercomm_merge(inter, !left, &merged);
  int merged_rank = -1;
  MPI_Comm_rank(merged, &merged_rank);
  MPI_Comm_test_inter(merged, &is_inter);
  CHECK(merged_rank == rank && !is_inter, "merge");
  MPI_Comm_free(&merged);
  if (argc > 1 && strcmp(argv[1], "uncarried") == 0) { /* a call bxisim's smpi inter-communicators do not carry */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Message message = MPI_MESSAGE_NULL;
    int found = 0, class = -1;
    MPI_Error_class(MPI_Improbe(MPI_ANY_SOURCE, 99, inter, &found, &message, MPI_STATUS_IGNORE), &class);
    printf("improbe_class=%s\n", class == MPI_SUCCESS ? "success" : class == MPI_ERR_COMM ? "comm" : "other");
  }
  if (argc > 1 && strcmp(argv[1], "deferred") == 0) {
    /* The left group's rank 0 tests its MPI_Ibcast, then sends what the right group's rank 0 waits for before its
     * own MPI_Ibcast: the test must return (MPI-3.1 3.7.3). Then two broadcasts completed in the reverse order. */
    MPI_Request requests[2];
    int flag = 1, word = 0, first = left ? 11 : -1, second = left ? 12 : -1;
    if (left && local_rank == 0) {
      MPI_Ibcast(&first, 1, MPI_INT, root, inter, &requests[0]);
      MPI_Test(&requests[0], &flag, MPI_STATUS_IGNORE);
      CHECK(!flag, "ibcast_test_before_the_others");
      MPI_Send(&word, 1, MPI_INT, half, 5, MPI_COMM_WORLD);
      MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
    } else {
      if (!left && local_rank == 0)
        MPI_Recv(&word, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Ibcast(&first, 1, MPI_INT, root, inter, &requests[0]);
      MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
    }
    MPI_Ibcast(&first, 1, MPI_INT, root, inter, &requests[0]);
    MPI_Ibcast(&second, 1, MPI_INT, root, inter, &requests[1]);
    MPI_Wait(&requests[1], MPI_STATUS_IGNORE); /* the later one first */
    MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
    CHECK(first == 11 && second == 12, "ibcast_order");
    printf("deferred=1\n");
  }
  MPI_Comm_free(&dup);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  printf("intercomms=1\n");
  MPI_Finalize();
  return 0;
}
