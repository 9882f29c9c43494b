// A job that ends while ranks hold a joinable std::thread: rank 0's main waits in MPI_Recv with a std::thread in
// scope, a thread of rank 1 waits in join(). argv[1] "abort": rank 1's main calls MPI_Abort(7) at 50 us; "deadlock":
// nobody sends. The kill unwinds the ranks' frames, and std::thread's destructor calls std::terminate for a joinable
// thread. Two ranks.
#include <mpi.h>

#include <unistd.h>

#include <cstring>
#include <thread>

int main(int argc, char** argv)
{
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  bool abort = argc > 1 && std::strcmp(argv[1], "abort") == 0;
  std::thread waiting([] {
    int x = 0;
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  });
  if (rank == 1 && abort) {
    usleep(50);
    MPI_Abort(MPI_COMM_WORLD, 7);
  }
  if (rank == 0) {
    int x = 0;
    MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  waiting.join();
  MPI_Finalize();
  return 0;
}
