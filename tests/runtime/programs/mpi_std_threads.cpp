// MPI from C++'s threads (simulated threads of the rank): under MPI_THREAD_MULTIPLE two std::threads of each rank
// exchange with the peer's at once (MPI_Sendrecv, one tag each) while main waits in join; then std::async's thread
// sums what they got and main waits for it through its future. Two ranks. Prints key=value lines.
#include <mpi.h>

#include <cstdio>
#include <future>
#include <thread>

int main(int argc, char** argv)
{
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int got[2]    = {-1, -1};
  double start  = MPI_Wtime();
  auto exchange = [&](int tag) {
    int mine = rank * 10 + tag;
    MPI_Sendrecv(&mine, 1, MPI_INT, 1 - rank, tag, &got[tag], 1, MPI_INT, 1 - rank, tag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  };
  std::thread first(exchange, 0), second(exchange, 1);
  first.join();
  second.join();
  double took = MPI_Wtime() - start;
  auto sum    = std::async(std::launch::async, [&] {
    int total = 0;
    MPI_Allreduce(&got[0], &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return total;
  });
  std::printf("multiple=%d got=%d,%d took_ns=%.0f sum=%d\n", provided == MPI_THREAD_MULTIPLE ? 1 : 0, got[0], got[1],
              took * 1e9, sum.get());
  MPI_Finalize();
  return 0;
}
