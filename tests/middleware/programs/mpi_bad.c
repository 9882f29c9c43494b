/* Bad MPI programs, one per argument: before_init, no_finalize, mismatch, abort,
   bad_pointer, cancel_matched, recv_never, error_string, ... */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv)
{
  const char* mode = argc > 1 ? argv[1] : "";
  int rank         = -1;
  if (!strcmp(mode, "before_init")) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* not allowed yet */
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!strcmp(mode, "no_finalize")) {
    if (rank == 1)
      return 0; /* leaves without MPI_Finalize */
    MPI_Finalize();
    return 0;
  }
  if (!strcmp(mode, "mismatch")) {
    int value = 0;
    if (rank == 0)
      MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    else
      MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
  }
  if (!strcmp(mode, "bad_pointer")) { /* rank 1 gives MPI an output pointer into unmapped memory */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
      MPI_Comm_size(MPI_COMM_WORLD, (int*)16);
    MPI_Finalize();
    return 0;
  }
  if (!strcmp(mode, "cancel_matched")) { /* rank 1 cancels a send that rank 0's receive has already matched */
    static int data[20000];
    MPI_Request request;
    MPI_Status status;
    int cancelled = -1;
    if (rank == 0)
      MPI_Irecv(data, 20000, MPI_INT, 1, 7, MPI_COMM_WORLD, &request);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
      MPI_Isend(data, 20000, MPI_INT, 0, 7, MPI_COMM_WORLD, &request);
      MPI_Cancel(&request);
    }
    MPI_Wait(&request, &status);
    MPI_Test_cancelled(&status, &cancelled);
    printf("rank %d: cancelled %d\n", rank, cancelled);
    MPI_Finalize();
    return 0;
  }
  if (!strcmp(mode, "dup_without_rank0")) { /* rank 0 goes to MPI_Finalize, the others duplicate MPI_COMM_WORLD */
    MPI_Comm dup;
    if (rank != 0) {
      MPI_Comm_dup(MPI_COMM_WORLD, &dup);
      MPI_Comm_free(&dup);
    }
    MPI_Finalize();
    return 0;
  }
  if (!strcmp(mode, "recv_never")) { /* rank 0 waits for a message nobody sends */
    int value = 0;
    if (rank == 0)
      MPI_Recv(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
  }
  if (!strcmp(mode, "null_handle")) { /* a null pointer for a handle: returned under MPI_ERRORS_RETURN, fatal after */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int returned         = MPI_Type_commit(NULL);
    MPI_Request* nowhere = NULL;
    int value = 0, isend_returned = MPI_Isend(&value, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, nowhere);
    printf("returned=%d isend_returned=%d\n", returned, isend_returned);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
      MPI_Op_free(NULL);
    printf("passed_the_error=1\n");
    MPI_Finalize();
    return 0;
  }
  if (!strcmp(mode, "error_string")) { /* an error code no MPI library knows, under MPI_ERRORS_ARE_FATAL */
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (rank == 1)
      MPI_Error_string(-12345, text, &length);
    printf("passed_the_error=1\n");
    MPI_Finalize();
    return 0;
  }
  if (!strcmp(mode, "exit_while_awaited")) { /* rank 1 exits with code 9; rank 0 waits for its message */
    int value = 0;
    if (rank == 1)
      exit(9);
    MPI_Recv(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
  }
  if (!strcmp(mode, "abort_while_exiting")) { /* rank 0 aborts as the others exit after 20 ms of computation */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
      MPI_Abort(MPI_COMM_WORLD, 42);
    struct timespec start, now;
    syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID,
            &start); /* the host's CPU clock (a system call: bxisim's clock_gettime is the simulated one) */
    do
      syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &now);
    while ((now.tv_sec - start.tv_sec) * 1e9 + (now.tv_nsec - start.tv_nsec) < 20e6);
    printf("passed_the_abort=1\n");
    exit(0); /* its last burst of 20 ms is simulated as it ends: rank 0's abort stops it there */
  }
  if (!strcmp(mode, "abort_everywhere")) { /* every rank aborts at once (Kripke's KRIPKE_ASSERT on a bad layout) */
    MPI_Abort(MPI_COMM_WORLD, 7);
    printf("passed_the_abort=1\n");
    return 0;
  }
  if (!strcmp(mode, "abort")) { /* the last rank aborts after a barrier, the others wait for its message */
    int size = 0, value = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1)
      MPI_Abort(MPI_COMM_WORLD, 42);
    else
      MPI_Recv(&value, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("passed_the_abort=1\n");
    MPI_Finalize();
    return 0;
  }
  MPI_Finalize();
  return 0;
}
