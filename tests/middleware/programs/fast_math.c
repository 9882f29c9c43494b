/* Built with -Ofast: the link adds crtfastmath, whose constructor sets flush-to-zero and denormals-are-zero as the
 * program loads, so each rank of it flushes denormals as the same program under mpirun does, after MPI calls too.
 * Prints key=value fields; "bad_x=1" names a failed check. */
#include <mpi.h>
#include <stdio.h>
#include <xmmintrin.h>

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double value = rank, sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  int flushes          = (_mm_getcsr() & 0x8040) == 0x8040;
  volatile double tiny = 1e-300;
  int denormal_kept    = tiny * 1e-15 != 0.0;
  printf("fast_flushes=%d fast_denormal_kept=%d\n", flushes, denormal_kept);
  if (!flushes || denormal_kept)
    printf("bad_fast_math=1\n");
  printf("ok=%d\n", flushes && !denormal_kept);
  MPI_Finalize();
  return 0;
}
