/* An MPI call from a thread that a library created for the rank (an OpenMP runtime's team member), which runs
 * outside the simulation: bxisim refuses it with a message naming the rank, at every level. */
#include <mpi.h>
#include <omp.h>

int main(int argc, char** argv)
{
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 1) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  }
  MPI_Finalize();
  return 0;
}
