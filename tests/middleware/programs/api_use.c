/* Uses a spread of the MPI API, compiled (not run) by the header tests; also a profiling layer. */
#include <mpi.h>
#include <stdio.h>

static int sends = 0;

/* A PMPI tool: counts sends, then calls the library. */
int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
  ++sends;
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

static void add(void* in, void* inout, int* len, MPI_Datatype* type)
{
  (void)type;
  for (int i = 0; i < *len; ++i)
    ((int*)inout)[i] += ((int*)in)[i];
}

int main(int argc, char** argv)
{
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int value = rank, sum = 0;
  MPI_Request request;
  MPI_Status status;
  MPI_Irecv(&sum, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &request);
  MPI_Send(&value, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
  MPI_Wait(&request, &status);
  MPI_Waitall(1, &request, MPI_STATUSES_IGNORE);
  MPI_Probe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &status);
  int count = 0;
  MPI_Get_count(&status, MPI_INT, &count);
  MPI_Op op;
  MPI_Op_create(add, 1, &op);
  MPI_Allreduce(&value, &sum, 1, MPI_INT, op, MPI_COMM_WORLD);
  MPI_Op_free(&op);
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Comm split;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
  MPI_Group group;
  MPI_Comm_group(split, &group);
  MPI_Group_free(&group);
  MPI_Comm_free(&split);
  MPI_Datatype vector;
  MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &vector);
  MPI_Type_commit(&vector);
  MPI_Type_free(&vector);
  MPI_Win win;
  MPI_Win_create(&value, sizeof value, sizeof value, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Accumulate(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_unlock(0, win);
  MPI_Win_free(&win);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  MPI_Alltoall(&value, 1, MPI_INT, &sum, 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Gather(&value, 1, MPI_INT, &sum, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  printf("%d %d %g %d\n", sends, count, t, PMPI_Barrier(MPI_COMM_WORLD));
  MPI_Finalize();
  return 0;
}
